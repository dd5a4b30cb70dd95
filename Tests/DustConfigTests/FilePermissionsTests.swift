import Foundation
import TestSupport
import Testing

@testable import DustConfig

@Suite("The directory a checked file is in", .timeLimit(.minutes(10)))
struct FilePermissionsDirectoryTests {
    @Test(
        "Is the directory Foundation's URL names, absolute, for absolute and relative paths",
        arguments: ["/etc/dustd/dustd.yaml", "/dustd.yaml", "Config/dustd.yaml", "dustd.yaml", "/etc/dustd/", "/var/lib/dustd/key file"])
    func likeURL(path: String) {
        #expect(FilePermissions.directory(of: path) == URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    @Test("dustctl as an ordinary user trusts files of root and its own, not those of a third user")
    func ownersTrusted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "# empty\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        chmod(directory.url.path, 0o755)
        var status = stat()
        #expect(stat(path, &status) == 0)
        // As root, pretend to be uid 1000; as anyone else, be oneself (the temporary directory is one's own).
        let user: uid_t = geteuid() == 0 ? 1000 : geteuid()
        let checker = FilePermissions(role: "the configuration file", path: path, user: user)
        for owner: uid_t in [0, user] {
            status.st_uid = owner
            #expect(checker.othersCanChange(status) == nil, "owner \(owner)")
        }
        status.st_uid = user + 1
        let problem = try #require(checker.othersCanChange(status))
        #expect(problem.hasPrefix("the configuration file \(path) belongs to "), "\(problem)")
        #expect(problem.contains("(uid \(user + 1)), so that user could change it; run `chown root \(path)` (or `chown "), "\(problem)")
    }
}
