import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

/// Every way Swift turns a value into text: what a log line or a `dump` would show.
private func everyDescription<Value>(of value: Value) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), "\(value)", dumped]
}

@Suite(
    "The PostgreSQL password: the credential postgres-password, else storage.passwordFile, else none (docs/REFERENCE.md §20)",
    .timeLimit(.minutes(10)))
struct PostgresPasswordTests {
    static let password = "Zq9 Kw7v!Tp"

    /// Settings for `postgresql://dustd@db/finedust` with `passwordFile` (and a place for files).
    func settings(passwordFile: String?) throws -> FineDustSettings {
        var settings = try SettingsLoader(
            environment: ["DUSTD_STORAGE_URL": "postgresql://dustd@db/finedust"], workingDirectory: "/nonexistent"
        )
        .load(configurationFile: nil, now: settingsLoadedAt)
        settings.storagePasswordFile = passwordFile
        return settings
    }

    /// A file holding `text` with `mode`, in a directory only this user may write.
    func file(_ text: String, mode: mode_t, in directory: TemporaryDirectory, name: String = "postgres-password") throws -> String {
        let path = directory.path(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode) == 0 && chmod(directory.url.path, 0o700) == 0)
        return path
    }

    func refusal(_ settings: FineDustSettings, environment: [String: String] = [:]) -> String {
        do {
            _ = try PostgresPasswordLoader(environment: environment).load(passwordFile: settings.storagePasswordFile)
            return "loaded"
        } catch {
            return error.description
        }
    }

    @Test(
        "A password file of mode 0600 or 0640 is read, its one line's end removed",
        arguments: [(0o600, "\n"), (0o640, "\r\n"), (0o400, "")])
    func fileAccepted(mode: Int, lineEnd: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try file(Self.password + lineEnd, mode: mode_t(mode), in: directory)
        let loaded = try PostgresPasswordLoader(environment: [:]).load(passwordFile: settings(passwordFile: path).storagePasswordFile)
        #expect(loaded.password?.revealedForSending == Self.password)
        #expect(loaded.source == .file(path) && loaded.warning == nil)
        #expect(loaded.source.description == "password file \(path)")
    }

    @Test("A password file others may read (0644) is refused with the chmod; one its group may write (0620), too")
    func fileModesRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let readable = try file(Self.password, mode: 0o644, in: directory)
        #expect(
            refusal(try settings(passwordFile: readable))
                == "Invalid configuration: storage.passwordFile names \(readable), which other users may read; run `chmod 600 \(readable)` (or 640 with a private group)."
        )
        let writable = try file(Self.password, mode: 0o620, in: directory, name: "writable")
        #expect(
            refusal(try settings(passwordFile: writable))
                == "Invalid configuration: storage.passwordFile names a file that others could change: the password file \(writable) is writable by its group; run `chmod go-w \(writable)`."
        )
        let missing = directory.path("missing")
        #expect(
            refusal(try settings(passwordFile: missing))
                == "Invalid configuration: storage.passwordFile names \(missing), which cannot be read: No such file or directory.")
    }

    @Test(
        "An empty password file, or one of more than one line, is refused without showing what it holds",
        arguments: [
            ("", "is empty; write the password on its one line"),
            ("\n", "is empty; write the password on its one line"),
            ("Zq9 Kw7v!Tp\nsecond line\n", "holds more than one line; write the password alone on one line"),
            ("Zq9 Kw7v!Tp\n\n", "holds more than one line; write the password alone on one line"),
        ])
    func fileContentRefused(text: String, problem: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try file(text, mode: 0o600, in: directory)
        let sentence = refusal(try settings(passwordFile: path))
        #expect(sentence == "Invalid configuration: storage.passwordFile names \(path), which \(problem).")
        for fragment in fragments(of: Self.password) { #expect(!sentence.contains(fragment)) }
    }

    @Test("The credential postgres-password wins over storage.passwordFile")
    func credentialPreferred() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let credentials = directory.url.appendingPathComponent("credentials").path
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        let credential = (credentials as NSString).appendingPathComponent("postgres-password")
        try "CredentialPw9\n".write(toFile: credential, atomically: false, encoding: .utf8)
        let path = try file(Self.password, mode: 0o600, in: directory)
        let loaded = try PostgresPasswordLoader(environment: ["CREDENTIALS_DIRECTORY": credentials]).load(
            passwordFile: settings(passwordFile: path).storagePasswordFile)
        #expect(loaded.password == SecretText("CredentialPw9"))
        #expect(loaded.source == .credential(credential))
        #expect(loaded.source.description == "systemd credential \(credential)")
        // A credentials directory without postgres-password (only the service key, say): the file.
        try FileManager.default.removeItem(atPath: credential)
        let fallback = try PostgresPasswordLoader(environment: ["CREDENTIALS_DIRECTORY": credentials]).load(
            passwordFile: settings(passwordFile: path).storagePasswordFile)
        #expect(fallback.password?.revealedForSending == Self.password && fallback.source == .file(path))
        // An empty credential is an error, not silently no password.
        try "\n".write(toFile: credential, atomically: false, encoding: .utf8)
        #expect(
            refusal(try settings(passwordFile: path), environment: ["CREDENTIALS_DIRECTORY": credentials])
                == "Invalid configuration: the credential \(credential) is empty; write the password on its one line.")
    }

    @Test("Neither the credential nor storage.passwordFile: no password, which peer or trust authentication allows")
    func noPassword() throws {
        let loaded = try PostgresPasswordLoader(environment: [:]).load(passwordFile: settings(passwordFile: nil).storagePasswordFile)
        #expect(loaded.password == nil && loaded.source == .none && loaded.warning == nil)
        #expect(
            loaded.source.description
                == "no password (the server must allow the role by peer or trust authentication, e.g. over its Unix socket)")
    }

    @Test("A loaded password shows in no description, debug description, interpolation or dump of the password, the result or the settings")
    func neverShown() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try file(Self.password + "\n", mode: 0o600, in: directory)
        let settings = try settings(passwordFile: path)
        let loaded = try PostgresPasswordLoader(environment: [:]).load(passwordFile: settings.storagePasswordFile)
        let password = try #require(loaded.password)
        #expect(password.revealedForSending == Self.password)
        let texts =
            everyDescription(of: password) + everyDescription(of: loaded) + everyDescription(of: loaded.source)
            + everyDescription(of: settings) + everyDescription(of: settings.postgres) + [settings.storage.description]
        for text in texts {
            for fragment in fragments(of: Self.password) {
                #expect(!text.contains(fragment), "\(fragment) shows in: \(text)")
            }
        }
        #expect(password.description == "***" && password.debugDescription == "***")
    }
}
