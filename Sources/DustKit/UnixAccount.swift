import Foundation

/// The running process's user and groups, and the names of users and groups, as messages that tell a
/// person which `usermod` or `chown` to run name them (docs/REFERENCE.md §15).
public enum UnixAccount {
    /// Whether this process's effective or supplementary groups include `group`.
    public static func isMember(of group: gid_t) -> Bool {
        if getegid() == group { return true }
        let count = getgroups(0, nil)
        guard count > 0 else { return false }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let read = getgroups(count, &groups)
        return read > 0 && groups.prefix(Int(read)).contains(group)
    }

    /// The user's name, or its number when the system has none (a number is what `chown` takes then).
    public static func name(ofUser uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }

    /// The group's name, or its number when the system has none.
    public static func name(ofGroup gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return String(gid) }
        return String(cString: name)
    }

    /// Permission bits as `ls -l`'s octal: `0640`, `0044`.
    public static func mode(_ mode: mode_t) -> String {
        let octal = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - octal.count)) + octal
    }

    /// For a file this user may not read although its group may: that, with the advice to join the group
    /// (`AccessProblem`, the sentence the database's files get). Nil when the group may not read it either,
    /// or the user is already a member.
    public static func joinGroupToRead(_ path: String) -> AccessProblem? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let fix = AccessProblem.Fix.toRead(path, status)
        guard case .joinGroup = fix else { return nil }
        return AccessProblem(path: path, need: .read, status: status, fix: fix)
    }
}

extension AccessProblem {
    /// The problem this process has with `path`, its owner, group and mode as `status` gives them.
    public init(path: String, need: Need, status: stat, fix: Fix) {
        self.init(
            path: path, need: need, user: UnixAccount.name(ofUser: geteuid()), owner: UnixAccount.name(ofUser: status.st_uid),
            group: UnixAccount.name(ofGroup: status.st_gid), mode: UnixAccount.mode(status.st_mode), fix: fix)
    }
}

extension AccessProblem.Fix {
    /// What lets this user read `path` (of `status`), which it may not: joining its group when the group may
    /// read it, letting the group read it when the user is a member, else its owner's word.
    public static func toRead(_ path: String, _ status: stat) -> AccessProblem.Fix {
        let member = UnixAccount.isMember(of: status.st_gid)
        if status.st_mode & S_IRGRP != 0, !member { return .joinGroup(UnixAccount.name(ofGroup: status.st_gid)) }
        return status.st_mode & S_IRGRP == 0 && member ? .letGroupRead(FilePaths.shellQuoted(path)) : .askOwner
    }
}
