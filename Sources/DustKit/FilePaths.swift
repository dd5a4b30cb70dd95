/// A path's directory and last component, as `dirname(1)` and `basename(1)` say them.
///
/// Foundation's `NSString.deletingLastPathComponent` traps on a name of one character (`a`, `a/`): a
/// precondition inside swift-corelibs-foundation, in release builds too. So `dustctl export --output a`,
/// `backup z` and a `--db` of one letter crashed. Every path FineDust splits goes through here instead.
public enum FilePaths {
    /// The directory holding `path`: `.` for a bare name (`a`, `a/`), `/` for a name at the root, and
    /// otherwise everything before the last component, its trailing slashes removed (`a//b/` → `a`).
    public static func directory(of path: String) -> String {
        var bytes = Array(path.utf8)
        // Trailing slashes belong to no component (`a/` names `a`); a path of slashes alone is the root.
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// `path` as a command to paste into a shell names it: as it is when it holds only letters, digits and
    /// `/._-+,:@%`, else in single quotes (a `'` in it written `'\''`).
    public static func shellQuoted(_ path: String) -> String {
        let plain =
            !path.isEmpty
            && path.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789/._-+,:@%".unicodeScalars.contains($0))
            }
        return plain ? path : "'" + path.replacing("'", with: "'\\''") + "'"
    }

    /// The last component of `path`, its trailing slashes removed (`a/b/` → `b`); `/` for the root and
    /// the empty string for an empty path.
    public static func lastComponent(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard bytes != [UInt8(ascii: "/")] else { return "/" }
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        return String(decoding: bytes[start...], as: UTF8.self)
    }

    /// `name` in `directory`, with one slash between them.
    public static func joining(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
