import DustKit
import Foundation
import Testing

@Suite("A path's directory and last component, as dirname(1) and basename(1) say them", .timeLimit(.minutes(10)))
struct FilePathsTests {
    @Test(
        "Every shape of path, names of one character among them (Foundation's deletingLastPathComponent traps on those)",
        arguments: [
            ("a", ".", "a"), ("a/", ".", "a"), ("ab", ".", "ab"), ("é", ".", "é"), ("-", ".", "-"), ("~", ".", "~"),
            ("/", "/", "/"), ("//", "/", "/"), ("/a", "/", "a"), ("//a", "/", "a"), ("/a/", "/", "a"),
            ("a/b", "a", "b"), ("a//b", "a", "b"), ("a/b/", "a", "b"), ("./a", ".", "a"), ("../a", "..", "a"),
            ("/var/lib/dustd/finedust.sqlite", "/var/lib/dustd", "finedust.sqlite"), ("백업/민지.sqlite", "백업", "민지.sqlite"),
            ("", ".", ""),
        ])
    func split(path: String, directory: String, last: String) {
        #expect(FilePaths.directory(of: path) == directory, "\(path)")
        #expect(FilePaths.lastComponent(of: path) == last, "\(path)")
    }

    @Test("The same as the C library's dirname(3) and basename(3) for every path of up to three of `a`, `b`, `/`")
    func likeTheCLibrary() {
        var paths = [""]
        for _ in 0..<3 { paths += paths.flatMap { path in ["a", "b", "/"].map { path + $0 } } }
        for path in Set(paths) where !path.isEmpty {
            var bytes = Array(path.utf8CString)
            let dirname = String(cString: Glibc.dirname(&bytes))
            bytes = Array(path.utf8CString)
            // POSIX basename(3) (libgen's), which strips trailing slashes as basename(1) does.
            let basename = String(cString: __xpg_basename(&bytes))
            // glibc keeps a leading `//` (POSIX leaves its meaning to the system); Linux reads it as `/`.
            #expect(FilePaths.directory(of: path) == (dirname == "//" ? "/" : dirname), "dirname \(path)")
            #expect(FilePaths.lastComponent(of: path) == basename, "basename \(path)")
        }
    }

    @Test("A name joined to its directory with one slash")
    func joining() {
        #expect(FilePaths.joining(".", "a") == "./a")
        #expect(FilePaths.joining("/", "a") == "/a")
        #expect(FilePaths.joining("/var/lib/", "a") == "/var/lib/a")
        #expect(FilePaths.joining("", "a") == "a")
    }
}
