import DustKit
import Foundation

/// Finds the PostgreSQL password (docs/REFERENCE.md §20): `$CREDENTIALS_DIRECTORY/postgres-password`
/// (systemd `LoadCredential=`), else the file `storage.passwordFile`, else none at all, which suits
/// peer or trust authentication over the server's Unix socket.
///
/// Never from `storage.url`, a command line or an environment variable: those show up in logs,
/// process listings and status.
public struct PostgresPasswordLoader: Sendable {
    /// The credential name a unit's `LoadCredential=` uses.
    public static let credentialName = "postgres-password"

    private let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Where the password came from, for a log line that does not show it.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        case credential(String)
        case file(String)
        /// Neither is set up: the server must let the role in without one.
        case none

        public var description: String {
            switch self {
            case .credential(let path): "systemd credential \(path)"
            case .file(let path): "password file \(path)"
            case .none: "no password (the server must allow the role by peer or trust authentication, e.g. over its Unix socket)"
            }
        }
    }

    /// The password (nil when none is configured), where it came from, and a warning when the
    /// credential was passed but could not be read.
    public struct Loaded: Sendable, Hashable {
        public var password: SecretText?
        public var source: Source
        public var warning: String?
    }

    /// The password for `storage.url`, from the credential or `passwordFile` (`storage.passwordFile`);
    /// errors name the credential or `storage.passwordFile`, never the password.
    public func load(passwordFile: String?) throws(ConfigurationError) -> Loaded {
        try Self.load(
            credential: Self.credentialName, file: passwordFile, key: "storage.passwordFile", role: "the password file", noun: "password",
            fallback: "using storage.passwordFile or no password", environment: environment)
    }

    /// A one-line secret from the systemd credential `credential`, else from `file` (the setting
    /// `key`), else none: the PostgreSQL password, Home Assistant's token (docs/REFERENCE.md §21).
    /// Errors name the credential or the key, never the secret.
    static func load(
        credential: String, file: String?, key: String, role: String, noun: String, fallback: String, environment: [String: String]
    ) throws(ConfigurationError) -> Loaded {
        var warning: String?
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            // By path, as for the service key: a service may open its credential without listing the directory.
            let path = (directory as NSString).appendingPathComponent(credential)
            if let data = FileManager.default.contents(atPath: path) {
                guard let text = String(data: data, encoding: .utf8) else {
                    throw ConfigurationError(key: nil, problem: "the credential \(path) is not UTF-8 text")
                }
                do throws(ValueProblem) {
                    return Loaded(password: try Self.password(in: text, noun: noun), source: .credential(path), warning: nil)
                } catch {
                    throw ConfigurationError(key: nil, problem: "the credential \(path) \(error.problem)")
                }
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                close(descriptor)
            } else if errno == EACCES || errno == EPERM {
                warning = "systemd passed credentials in \(directory) but this user may not read \(credential) there; \(fallback)"
            }
        }
        if let path = file {
            let text = try readSecretFile(path, key: key, role: role)
            do throws(ValueProblem) {
                return Loaded(password: try Self.password(in: text, noun: noun), source: .file(path), warning: warning)
            } catch {
                throw ConfigurationError(key: key, problem: "names \(path), which \(error.problem)")
            }
        }
        return Loaded(password: nil, source: .none, warning: warning)
    }

    /// The one line a password file holds, its line end (`\n` or `\r\n`) removed; the problem reads
    /// after the file's name ("is empty").
    private static func password(in text: String, noun: String) throws(ValueProblem) -> SecretText {
        var line = Substring(text)
        // "\r\n" is one Character in Swift: dropping the last one removes either ending.
        if let last = line.last, last.isNewline { line = line.dropLast() }
        guard !line.isEmpty else { throw ValueProblem("is empty; write the \(noun) on its one line") }
        guard !line.contains(where: \.isNewline) else {
            throw ValueProblem("holds more than one line; write the \(noun) alone on one line")
        }
        return SecretText(String(line))
    }
}
