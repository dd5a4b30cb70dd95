/// A file of an SQLite database this user may not use as a command needs, found by looking at the files
/// (docs/REFERENCE.md §15, "Who may use the database"): which file, whose it is, and what fixes it. SQLite
/// says only "unable to open database file" or "attempt to write a readonly database", whichever file it
/// was, and its sentence sent people to give a directory rights it must not have.
public struct AccessProblem: Sendable, Hashable, CustomStringConvertible {
    /// What the user could not do.
    public enum Need: String, Sendable, Hashable {
        /// Enter the directory (it lacks the search permission for this user).
        case enter
        /// Read the file.
        case read
        /// Write the file, or create one in the directory.
        case write
    }

    /// What fixes it.
    public enum Fix: Sendable, Hashable {
        /// The user is not in the group that may read: join it (`usermod -aG`), then log in again.
        case joinGroup(String)
        /// The file belongs to another user than the directory's (a `sudo dustctl` made it): give it back.
        case giveBack(owner: String, group: String, files: String)
        /// The group may not read the file: let it (`chmod g+r`), as its owner or root.
        case letGroupRead(String)
        /// The user may read but not write: a command that writes runs as the files' owner.
        case runAsOwner(String)
        /// Nothing this user can do: its owner or root must.
        case askOwner
    }

    /// The file or directory, as named.
    public var path: String
    public var need: Need
    /// The user running the command.
    public var user: String
    /// The file's owner, group and permission bits (`0640`), as `ls -l` would show them.
    public var owner: String
    public var group: String
    public var mode: String
    public var fix: Fix

    public init(path: String, need: Need, user: String, owner: String, group: String, mode: String, fix: Fix) {
        (self.path, self.need, self.user, self.owner, self.group, self.mode, self.fix) = (path, need, user, owner, group, mode, fix)
    }

    public var description: String {
        let what: String =
            switch need {
            case .enter: "this user (\(user)) may not enter \(path)"
            case .read: "this user (\(user)) may not read \(path)"
            case .write: "this user (\(user)) may not write \(path)"
            }
        let whose = "\(owner):\(group), mode \(mode)"
        let remedy: String =
            switch fix {
            case .joinGroup(let group):
                "members of the group \(group) may: `sudo usermod -aG \(group) \(user)`, then log in again (or use sudo)"
            case .giveBack(let owner, let group, let files):
                "it belongs to \(self.owner), not to \(owner) whose directory it is in (a command run with sudo made it?): "
                    + "`sudo chown \(owner):\(group) \(files)`"
            case .letGroupRead(let file): "its group may not read it: `sudo chmod g+r \(file)`"
            case .runAsOwner(let owner):
                "commands that write (import, activity import, person, stations sync) run as its owner: "
                    + "`sudo -u \(owner) dustctl …` (or sudo)"
            case .askOwner: "its owner (\(self.owner)) or root must give this user access, or run the command as them"
            }
        return "\(what) (\(whose)); \(remedy)"
    }
}
