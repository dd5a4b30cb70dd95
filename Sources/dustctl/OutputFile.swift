import DustKit
import Foundation

/// The file `export --output FILE` writes (docs/REFERENCE.md §15): only ever a regular file, replaced whole
/// by a new copy with the old one's owner and mode, or left as it was.
struct OutputFile: Sendable {
    let path: String

    /// The file an `--output` option names, or nil for standard output: none given, or `-` (as
    /// every Unix tool reads it; a file named `-` is `./-`).
    static func path(_ option: String?) -> String? { option == "-" ? nil : option }
    /// The mode a new file is created with (less the umask): 0640, or 0600 for one person's health data.
    var newFileMode: mode_t = 0o640
    /// The language of its failures: the locale's (docs/REFERENCE.md §6, "Text").
    var language: ReportLanguage = .process

    private func say(_ korean: String, _ english: String) -> String { language.say(korean, english) }

    /// Writes `bytes` to a new file next to `path`, gives it the existing file's owner and mode,
    /// fsyncs it and renames it over `path`.
    ///
    /// A device, FIFO, socket, directory or symbolic link at `path` is refused (73) before
    /// anything is opened: writing through a symlink or into a FIFO is not what `--output` promises,
    /// and renaming over them would destroy them (as root, `--output /dev/full` once turned the
    /// device into a file). A failed write (74) removes the new copy and leaves `path` untouched.
    func write(_ bytes: some Collection<UInt8> & Sendable) async throws {
        try await write { output in try output.write(bytes) }
    }

    /// `write(_:)` for a file written as it is made: `produce` hands its pieces to the `Writer` it
    /// is given, never holding the whole (`person export` writes a record at a time). `produce` runs
    /// a second time when the unnamed copy cannot be given a name (a system without /proc) and a named
    /// one is made instead; whatever it throws leaves `path` as it was.
    func write(producing produce: (Writer) async throws -> Void) async throws {
        let replaced = try Self.replaceable(path, by: ("--output은", "--output"), language: language)
        let exists = replaced != nil

        // A new file gets 0640 less the umask (open applies it): a household's numbers are not for
        // every user of the machine (docs/REFERENCE.md §15, "Files the way sshd treats them"); a replacement starts
        // private and then takes the old file's owner and mode.
        let mode = exists ? 0o600 : newFileMode
        // The new copy is first a file without a name (O_TMPFILE): dustctl killed while writing it
        // leaves nothing behind. It gets a name only once it is whole and on disk, and that name is
        // renamed over `path` at once. A file system without unnamed files (an old kernel, some
        // network and FAT file systems) or a system without /proc gets a hidden named copy instead.
        if let descriptor = Self.openUnnamed(in: directory, mode: mode) {
            defer { close(descriptor) }
            try await fill(descriptor, producing: produce, replacing: replaced)
            if let temporary = try name(descriptor) {
                try replace(with: temporary)
                return
            }
        }
        let (temporary, descriptor) = try createTemporary(mode: mode)
        var written = false
        defer {
            close(descriptor)
            if !written { unlink(temporary) }
        }
        try await fill(descriptor, producing: produce, replacing: replaced)
        written = true  // from here `replace` renames it or removes it
        try replace(with: temporary)
    }

    /// Where `write(producing:)` hands its pieces: the new copy, written to.
    struct Writer: Sendable {
        let file: OutputFile
        let descriptor: Int32
        let replacing: Bool

        /// Appends `bytes` to the new copy.
        func write(_ bytes: some Collection<UInt8>) throws(CommandFailure) {
            if let code = writeAll(bytes, to: descriptor) { throw file.failedWrite(code, exists: replacing) }
        }
    }

    /// The new copy made whole: the old file's owner and mode (when there is one), what `produce`
    /// gives, on disk.
    private func fill(_ descriptor: Int32, producing produce: (Writer) async throws -> Void, replacing existing: stat?) async throws {
        try prepare(descriptor, replacing: existing)
        try await produce(Writer(file: self, descriptor: descriptor, replacing: existing != nil))
        guard fsync(descriptor) == 0 else { throw failedWrite(errno, exists: existing != nil) }
    }

    /// The directory `path` is in: the new copy is made there, so the rename cannot cross file systems.
    private var directory: String { FilePaths.directory(of: path) }

    /// Gives the new copy the old file's owner and mode, when there is an old file.
    private func prepare(_ descriptor: Int32, replacing existing: stat?) throws(CommandFailure) {
        guard let existing else { return }
        // Only root may give a file to another user. When the new copy cannot have the old
        // file's owner, refuse rather than write into the old file in place: in place would keep
        // owner and mode too, but a full disk halfway through would leave it truncated, and
        // the existing file must survive a failed export whole.
        guard fchown(descriptor, existing.st_uid, existing.st_gid) == 0 else {
            let reason = systemErrorText(errno)
            let owner = "\(existing.st_uid):\(existing.st_gid)"
            throw CommandFailure(
                .cannotCreate,
                say(
                    "\(path)의 소유자는 다른 사용자나 그룹(\(owner))인데, 새 사본에 그 소유자를 줄 수 없었습니다 (\(reason)). 새 파일에 쓰거나 그 소유자로 dustctl을 실행하세요.",
                    "\(path) belongs to another user or group (\(owner)), and a new copy could not be given that owner (\(reason)); write to a new file or run dustctl as its owner."
                ))
        }
        guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else {
            let reason = systemErrorText(errno)
            throw CommandFailure(
                .cannotCreate,
                say("새 \(path) 파일에 예전 파일의 권한을 줄 수 없습니다: ", "Cannot give the new \(path) the old one's mode: ") + "\(reason).")
        }
    }

    /// Renames the whole new copy over `path`; on failure the copy is removed and `path` is as it was.
    private func replace(with temporary: String) throws(CommandFailure) {
        guard rename(temporary, path) == 0 else {
            let reason = systemErrorText(errno)
            unlink(temporary)
            throw CommandFailure(.ioError, say("\(path) 파일을 바꿀 수 없습니다: ", "Cannot replace \(path): ") + "\(reason).")
        }
    }

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; Swift does not import the macro). `__O_TMPFILE`
    /// is 020000000 on every architecture Swift runs on under Linux (x86_64 and aarch64 among them).
    private static let unnamedFile = O_DIRECTORY | 0o2000_0000

    /// An unnamed regular file in `directory`, or nil where the file system or kernel has none (the
    /// caller then makes a named one; any other failure shows there too, with its reason).
    private static func openUnnamed(in directory: String, mode: mode_t) -> Int32? {
        let descriptor = open(directory, unnamedFile | O_WRONLY | O_CLOEXEC, mode)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Links the unnamed file `descriptor` into its directory under a fresh hidden name and returns
    /// that name, or nil when it cannot be linked (no /proc): the caller writes a named copy instead.
    private func name(_ descriptor: Int32) throws(CommandFailure) -> String? {
        for _ in 0..<8 {
            let temporary = temporaryName()
            if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, temporary, AT_SYMLINK_FOLLOW) == 0 { return temporary }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// A hidden name beside `path` that is not taken yet (most likely).
    private func temporaryName() -> String {
        Self.hiddenName(besides: path, tag: "dustctl-\(String(UInt32.random(in: .min ... .max), radix: 16))")
    }

    /// `.NAME.TAG` in the directory of `path`, NAME its own: a new copy made there is renamed over it without
    /// crossing file systems. A name may have 255 bytes and the hidden one adds the dot and the tag, so a
    /// long name lends it only its first 200 bytes (cut after a whole character).
    static func hiddenName(besides path: String, tag: String) -> String {
        FilePaths.joining(FilePaths.directory(of: path), hiddenComponent(of: path, tag: tag))
    }

    /// `hiddenName`'s last component: `.NAME.TAG`.
    static func hiddenComponent(of path: String, tag: String) -> String {
        var base = FilePaths.lastComponent(of: path)
        while base.utf8.count > 200 { base.removeLast() }
        return ".\(base).\(tag)"
    }

    /// Writing the new copy failed with `code`; an existing file is as it was.
    fileprivate func failedWrite(_ code: Int32, exists: Bool) -> CommandFailure {
        CommandFailure(
            .ioError,
            say("\(path) 파일에 쓸 수 없습니다: ", "Cannot write \(path): ") + systemErrorText(code)
                + (exists ? say("; 있던 파일은 그대로 두었습니다", "; the existing file was left as it was") : "") + ".")
    }

    /// A hidden file in the same directory (so the rename cannot cross file systems), created
    /// exclusively and without following a symlink someone may have planted under its name.
    private func createTemporary(mode: mode_t) throws(CommandFailure) -> (path: String, descriptor: Int32) {
        for _ in 0..<8 {
            let temporary = temporaryName()
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if descriptor >= 0 { return (temporary, descriptor) }
            if errno != EEXIST { break }
        }
        let reason = systemErrorText(errno)
        throw CommandFailure(
            .cannotCreate,
            say(
                "\(path) 파일을 만들 수 없습니다: \(reason) (dustctl은 \(directory)에 새 파일을 쓴 뒤 이름을 바꿉니다).",
                "Cannot create \(path): \(reason) (dustctl writes a new file in \(directory) and renames it)."))
    }

    /// What is at `path`, which `writer` (`--output`, a backup) is to create or replace by renaming a
    /// new file over it: nil when nothing is. Anything but a regular file (a device, FIFO, socket,
    /// directory or symbolic link) is refused (73): renamed over, it would be destroyed (as root,
    /// `/dev/null` and `/dev/full` once became files). So is a file another user put in a shared
    /// directory (FileTrust: the copy would be theirs to read), and a file with a second name (the
    /// rename would quietly leave the other name with the old contents).
    static func replaceable(
        _ path: String, by writer: (korean: String, english: String), language: ReportLanguage
    ) throws(CommandFailure) -> stat? {
        // (`--output ''` was "Cannot replace : No such file or directory", 74.)
        guard !path.isEmpty else {
            throw CommandFailure(
                .usage, language.say("\(writer.korean) 쓸 파일의 이름이 비어 있습니다.", "The file name \(writer.english) is to write is empty."))
        }
        // A name ending in `/` names a directory, there or not (`--output x.csv/` wrote its whole copy and then
        // failed the rename, 74).
        guard !path.hasSuffix("/") else {
            throw CommandFailure(
                .cannotCreate,
                language.say(
                    "\(path)은(는) /로 끝나는 디렉터리의 이름입니다. \(writer.korean) 쓸 파일의 이름을 주세요.",
                    "\(path) ends in /, a directory's name; give the name of the file \(writer.english) is to write."))
        }
        var existing = stat()
        guard lstat(path, &existing) == 0 else {
            if errno == ENOENT { return nil }
            let reason = systemErrorText(errno)
            throw CommandFailure(.cannotCreate, language.say("\(path) 파일에 쓸 수 없습니다: ", "Cannot write \(path): ") + "\(reason).")
        }
        if let kind = notRegular(existing.st_mode) {
            throw CommandFailure(
                .cannotCreate,
                language.say(
                    "\(path)은(는) \(kind.korean)입니다. \(writer.korean) 일반 파일만 만들거나 바꾸므로 그대로 두었습니다.",
                    "\(path) is \(kind.english); \(writer.english) only creates or replaces regular files, so it was left alone."))
        }
        try FileTrust.checkWritten(path, role: .outputFile, language: language)
        return existing
    }

    /// What the file type is, when it is not a regular file, in both languages.
    private static func notRegular(_ mode: mode_t) -> (korean: String, english: String)? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: ("심볼릭 링크", "a symbolic link")
        case S_IFIFO: ("FIFO", "a FIFO")
        case S_IFCHR: ("문자 장치", "a character device")
        case S_IFBLK: ("블록 장치", "a block device")
        case S_IFSOCK: ("소켓", "a socket")
        case S_IFDIR: ("디렉터리", "a directory")
        default: ("일반 파일이 아닌 것", "not a regular file")
        }
    }

}
