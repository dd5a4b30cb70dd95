import Foundation

/// Whether users other than a file's owner and root could change what FineDust reads from it.
///
/// The configuration decides where dustd sends the service key (`api.baseURL`) and the key file
/// holds it, so neither may be writable by its group or by everyone, nor sit in a directory that
/// others may write without the sticky bit (there they could delete the file and put their own in
/// its place). Mode bits are checked, not access(2): root passes every access check, and dustd
/// is often started as root.
struct FilePermissions {
    /// What the file is, for the sentence: "the configuration file", "the key file".
    let role: String
    let path: String

    /// The problem and the `chmod` that fixes it, or nil when only the owner and root can change the file.
    func othersCanChange(_ status: stat) -> String? {
        if (status.st_mode & S_IFMT) == S_IFREG, status.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            let who = status.st_mode & S_IWOTH != 0 ? "every user" : "its group"
            return "\(role) \(path) is writable by \(who); run `chmod go-w \(path)`"
        }
        for directory in directories() {
            var directoryStatus = stat()
            guard stat(directory, &directoryStatus) == 0 else { continue }
            let mode = directoryStatus.st_mode
            if mode & (S_IWGRP | S_IWOTH) != 0, mode & S_ISVTX == 0 {
                return "\(role) \(path) is in \(directory), which other users may write, so they could replace the file; run `chmod go-w \(directory)`"
            }
        }
        return nil
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
