import DustKit
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

@Suite("Only a regular file of a sensible size is read as the configuration or a secret", .timeLimit(.minutes(10)))
struct ConfigurationFileKindTests {
    func refusal(_ path: String) -> String? {
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("A FIFO is refused at once (its read would block for good); a directory, /dev/zero and 2 MiB are refused, not read as defaults")
    func notAFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path("dustd.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // (Opened as before, it blocked for good: the suite's time limit would end the test.)
        #expect(refusal(fifo)?.contains("it is a FIFO, not a file") == true, "\(refusal(fifo) ?? "accepted")")
        #expect(
            refusal(directory.url.path)?.contains("it is a directory, not a file") == true, "\(refusal(directory.url.path) ?? "accepted")")
        #expect(refusal("/dev/zero")?.contains("it is a character device, not a file") == true, "\(refusal("/dev/zero") ?? "accepted")")
        let large = directory.path("large.yaml")
        try ("station:\n  name: 종로구\n" + String(repeating: "# a comment line of forty bytes or so\n", count: 60_000))
            .write(toFile: large, atomically: true, encoding: .utf8)
        #expect(refusal(large)?.contains("is larger than 1024 KiB") == true, "\(refusal(large) ?? "accepted")")
        // A UTF-8 byte-order mark, as some editors write, is still a configuration.
        let marked = directory.path("bom.yaml")
        try Data([0xEF, 0xBB, 0xBF] + Array("station:\n  name: 종로구\n".utf8)).write(to: URL(fileURLWithPath: marked))
        #expect(try SettingsLoader(environment: [:]).load(configurationFile: marked, now: settingsLoadedAt).station.name == "종로구")
    }

    @Test("A station's name: controls, invisible characters and more than 64 characters are refused, an emoji's selector is not")
    func displayNames() {
        #expect(DisplayName.problem(in: "종로구") == nil && DisplayName.problem(in: "🌫️ 광화문") == nil)
        #expect(DisplayName.problem(in: "종로구\u{200D}")?.english.hasPrefix("holds the invisible character U+200D") == true)
        #expect(DisplayName.problem(in: "종로구\u{1B}[2J")?.english.hasPrefix("holds the control character U+001B") == true)
        #expect(DisplayName.problem(in: String(repeating: "가", count: 65))?.english.hasPrefix("is 65 characters long") == true)
        let marks = "e" + String(repeating: "\u{0301}", count: 300)
        #expect(DisplayName.problem(in: marks)?.english.hasPrefix("is 301 Unicode scalars in 1 characters") == true)
        #expect(DisplayName.problem(in: "종로구\u{200B}")?.korean.contains("보이지 않는 문자(U+200B)가") == true)
    }

    @Test("A secret file larger than 64 KiB is refused, naming the key")
    func secretTooLarge() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("key")
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(repeating: UInt8(ascii: "k"), count: 70 << 10), attributes: [.posixPermissions: 0o600]))
        do {
            _ = try readSecretFile(path, key: "api.serviceKeyFile", role: "the key file")
            Issue.record("a 70 KiB key file was read")
        } catch {
            #expect(
                error.description.contains("api.serviceKeyFile") && error.description.contains("larger than 64 KiB"), "\(error.description)"
            )
        }
    }

    @Test("A secret file that is a FIFO is refused at once, naming the key")
    func secretFIFO() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fifo = directory.path("key.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ConfigurationError.self) { _ = try readSecretFile(fifo, key: "api.serviceKeyFile", role: "the key file") }
        do {
            _ = try readSecretFile(fifo, key: "api.serviceKeyFile", role: "the key file")
        } catch {
            #expect(error.description.contains("api.serviceKeyFile") && error.description.contains("a FIFO"), "\(error.description)")
        }
    }
}
