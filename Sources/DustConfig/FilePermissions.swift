import DustKit
import Foundation

/// Whether users other than a file's owner and root could change what FineDust reads from it.
///
/// The configuration decides where dustd sends the service key (`api.baseURL`) and the key file
/// holds it, so neither may be writable by its group or by everyone, nor sit in a directory that
/// others may write without the sticky bit (there they could delete the file and put their own in
/// its place). Like sshd's StrictModes, the file, a symlink leading to it and the directories
/// they are in must belong to root or to the user running FineDust: a file that belongs to anyone
/// else is theirs to rewrite, whatever its mode. Mode bits and owners are checked, not access(2):
/// root passes every access check, and dustd is often started as root.
struct FilePermissions {
    /// What the file is, for the sentence: "the configuration file", "the key file".
    let role: String
    let path: String
    /// The user FineDust runs as; root and this user are the owners trusted.
    var user: uid_t = geteuid()

    /// The problem and the `chown` or `chmod` that fixes it, or nil when only root and this user
    /// can change the file. `status` is the file's own (symlinks followed).
    func othersCanChange(_ status: stat) -> String? {
        if let owner = foreignOwner(status.st_uid) {
            return "\(role) \(path) belongs to \(owner), so that user could change it; \(chownAdvice(path))"
        }
        var linkStatus = stat()
        if lstat(path, &linkStatus) == 0, (linkStatus.st_mode & S_IFMT) == S_IFLNK, let owner = foreignOwner(linkStatus.st_uid) {
            return
                "\(role) \(path) is a symlink that belongs to \(owner), so that user could point it elsewhere; replace it with a link of your own or the file itself"
        }
        if (status.st_mode & S_IFMT) == S_IFREG, status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            let who = status.st_mode & S_IWOTH != 0 ? "every user" : "its group"
            return "\(role) \(path) is writable by \(who); run `chmod go-w \(path)`"
        }
        for directory in directories() {
            var directoryStatus = stat()
            guard stat(directory, &directoryStatus) == 0 else { continue }
            let mode = directoryStatus.st_mode
            if mode & (S_IWGRP | S_IWOTH) != 0, mode & S_ISVTX == 0 {
                return
                    "\(role) \(path) is in \(directory), which other users may write, so they could replace the file; run `chmod go-w \(directory)`"
            }
            if let owner = foreignOwner(directoryStatus.st_uid) {
                return
                    "\(role) \(path) is in \(directory), which belongs to \(owner), so that user could replace the file; \(chownAdvice(directory))"
            }
        }
        return nil
    }

    /// The owner's name and uid when it is neither root nor this user.
    private func foreignOwner(_ owner: uid_t) -> String? {
        guard owner != 0, owner != user else { return nil }
        return "\(Self.userName(owner).map { "\($0) " } ?? "")(uid \(owner))"
    }

    /// `run chown root PATH`, and the running user's own name as the other choice when it is not root.
    private func chownAdvice(_ target: String) -> String {
        guard user != 0 else { return "run `chown root \(target)`" }
        let me = Self.userName(user) ?? String(user)
        return "run `chown root \(target)` (or `chown \(me) \(target)`, the user running FineDust)"
    }

    private static func userName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 1024)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The directory the path names, and the one the file really is in when a symlink leads elsewhere.
    private func directories() -> [String] {
        let named = Self.directory(of: path)
        guard let resolved = realpath(path, nil) else { return [named] }
        defer { free(resolved) }
        let real = Self.directory(of: String(cString: resolved))
        return real == named ? [named] : [named, real]
    }

    /// The absolute directory part of a path: `/etc/dustd` for `/etc/dustd/dustd.yaml`, the working
    /// directory's `Config` for `Config/dustd.yaml`. Plain text work: Foundation's `URL` parser,
    /// which did this before, cost every dustctl command 0.1 ms on its first use.
    static func directory(of path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var text = Substring(absolute)
        while text.count > 1, text.hasSuffix("/") { text.removeLast() }
        guard let slash = text.lastIndex(of: "/") else { return "/" }
        let directory = text[..<slash]
        return directory.isEmpty ? "/" : String(directory)
    }
}

/// A file FineDust reads its configuration or a secret from, opened once: the checks and the
/// read see the same file, whatever is renamed into its place in between. Only a regular file is
/// read, and only so much of it: a FIFO would block the read for good, a directory read as empty (all
/// defaults, the real configuration silently ignored), and `/dev/zero` grow without bound.
struct OpenedFile {
    let status: stat
    private let descriptor: Int32

    /// Opens `path` for reading; the error is strerror's sentence (`Permission denied`, `No such
    /// file or directory`), which says more than any later "not readable", or what else than a
    /// regular file it is. Opened without blocking (a FIFO with no writer would block the open), then
    /// read as usual.
    static func open(_ path: String) -> Result<OpenedFile, OpenFailure> {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = errno
            // A file dustd's group may read, asked for before the user has joined it (README: usermod -aG, then log in again).
            let advice = reason == EACCES ? UnixAccount.joinGroupToRead(path).map { ": \($0)" } ?? "" : ""
            return .failure(OpenFailure(reason: String(cString: strerror(reason)) + advice))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            return .failure(OpenFailure(reason: reason))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(descriptor)
            return .failure(OpenFailure(reason: "it is \(kind(status.st_mode)), not a file"))
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return .success(OpenedFile(status: status, descriptor: descriptor))
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "something other"
        }
    }

    struct OpenFailure: Error {
        let reason: String
    }

    /// Why the text could not be had.
    enum ReadFailure: Error {
        /// Larger than `limit` bytes.
        case tooLarge(limit: Int)
        /// Not UTF-8.
        case notText
        /// The read failed: strerror's sentence.
        case unreadable(String)

        /// As a sentence's end: "is …".
        var problem: String {
            switch self {
            case .tooLarge(let limit): "is larger than \(limit / 1024) KiB, far beyond any FineDust needs"
            case .notText: "is not readable UTF-8 text"
            case .unreadable(let reason): "cannot be read: \(reason)"
            }
        }
    }

    /// The whole file as UTF-8 text, at most `limit` bytes; closes the file.
    func readText(limit: Int) -> Result<String, ReadFailure> {
        defer { Glibc.close(descriptor) }
        guard status.st_size <= limit else { return .failure(.tooLarge(limit: limit)) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(String(cString: strerror(errno))))
            }
            if count == 0 { break }
            bytes += chunk[..<count]
            // A file that grows while read (or lies about its size) is cut off here, not read on.
            if bytes.count > limit { return .failure(.tooLarge(limit: limit)) }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notText) }
        // Windows' Notepad may begin a file saved as UTF-8 with a byte-order mark: not part of the text
        // (YAML allows one; in a key or a token it would be sent or compared as three bytes more).
        return .success(text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text)
    }

    /// Closes the file unread.
    func discard() {
        _ = Glibc.close(descriptor)
    }
}
