import AirKorea
import Configuration
import DustKit
import Foundation

/// Finds the AirKorea service key (docs/REFERENCE.md §7): `$CREDENTIALS_DIRECTORY/airkorea-service-key`
/// (systemd `LoadCredential=`), else `DUSTD_API_SERVICE_KEY`, else the file `api.serviceKeyFile`.
///
/// The key is never read from the YAML file itself and never passed on a command line.
public struct ServiceKeyLoader: Sendable {
    /// The credential name the unit's `LoadCredential=` uses.
    public static let credentialName = "airkorea-service-key"

    /// systemd's directory of the unit's credentials (`LoadCredential=`).
    static let credentialsDirectoryVariable = "CREDENTIALS_DIRECTORY"
    /// The key itself, as swift-configuration names `api.serviceKey` under the `dustd` prefix.
    static let keyVariable = "DUSTD_API_SERVICE_KEY"

    /// The environment variables the loader reads: a caller may pass only these
    /// (`EnvironmentVariables.read(named:)`) instead of the whole environment.
    public static let environmentNames: Set<String> = [credentialsDirectoryVariable, keyVariable]

    private let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Where the key came from, for a log line that does not show the key.
    public enum Source: Sendable, Hashable, CustomStringConvertible {
        case credential(String)
        case environment
        case file(String)

        public var description: String {
            switch self {
            case .credential(let path): "systemd credential \(path)"
            case .environment: "environment variable DUSTD_API_SERVICE_KEY"
            case .file(let path): "key file \(path)"
            }
        }
    }

    /// The key, where it came from, and a warning when a source that was set up could not be used.
    public struct Loaded: Sendable {
        public var key: ServiceKey
        public var source: Source
        public var warning: String?
    }

    public func load(settings: FineDustSettings) throws(ConfigurationError) -> Loaded {
        var warning: String?
        if let directory = environment[Self.credentialsDirectoryVariable], !directory.isEmpty {
            // Read by path, not by listing the directory: a service may be allowed to open its
            // credential without being allowed to list the directory.
            let path = (directory as NSString).appendingPathComponent(Self.credentialName)
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                guard let key = ServiceKey(text) else {
                    throw ConfigurationError(key: nil, problem: "the credential \(path) is empty or holds more than one word")
                }
                return try whole(Loaded(key: key, source: .credential(path), warning: nil), key: nil)
            }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 {
                close(descriptor)
            } else if errno == EACCES || errno == EPERM {
                warning =
                    "systemd passed credentials in \(directory) but this user may not read \(Self.credentialName) there; using the next key source"
            }
        }
        let variables = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "dustd"))
        if let text = variables.string(forKey: "api.serviceKey", isSecret: true) {
            guard let key = ServiceKey(text) else {
                throw ConfigurationError(key: Self.keyVariable, problem: "is empty or holds more than one word")
            }
            return try whole(Loaded(key: key, source: .environment, warning: warning), key: Self.keyVariable)
        }
        if let path = settings.api.serviceKeyFile {
            return try whole(Loaded(key: try readKeyFile(path), source: .file(path), warning: warning), key: "api.serviceKeyFile")
        }
        let hint = warning.map { " (\($0))" } ?? ""
        throw ConfigurationError(
            key: nil,
            problem:
                "no AirKorea service key\(hint): install it as the systemd credential \(Self.credentialName) (see README, \"Run it as a service\"), set DUSTD_API_SERVICE_KEY, or name a key file in api.serviceKeyFile"
        )
    }

    /// `loaded`, unless its key is shorter than any data.go.kr issues: a key cut short (or a
    /// placeholder such as `x`) would make every text holding its few letters look like an echo of
    /// it, and dustd withholds those (docs/ARCHITECTURE.md, "The key never comes back").
    private func whole(_ loaded: Loaded, key: String?) throws(ConfigurationError) -> Loaded {
        let count = loaded.key.lettersAndDigits
        guard count >= ServiceKey.minimumLettersAndDigits else {
            throw ConfigurationError(
                key: key,
                problem:
                    "the service key from \(loaded.source) has \(count) letters and digits, fewer than any data.go.kr key "
                    + "(\(ServiceKey.minimumLettersAndDigits) or more; a real one has about 90): paste the whole key as data.go.kr "
                    + "shows it (마이페이지 → 활용신청 현황 → 일반 인증키, the Decoding form)")
        }
        return loaded
    }

    /// Reads a key file, refusing one that other users may read, or that anyone but its owner and
    /// root may change (or replace, through its directory).
    private func readKeyFile(_ path: String) throws(ConfigurationError) -> ServiceKey {
        guard let key = ServiceKey(try readSecretFile(path, key: "api.serviceKeyFile", role: "the key file")) else {
            throw ConfigurationError(
                key: "api.serviceKeyFile", problem: "names \(path), which holds no key (it must contain the key alone)")
        }
        return key
    }
}

/// The text of a file holding a secret (`api.serviceKeyFile`, `http.tokenFile`): refused when other
/// users may read it, or when anyone but root and the user running FineDust owns, may change (or
/// replace) it, or a symlink to it. Errors name `key`.
public func readSecretFile(_ path: String, key: String, role: String) throws(ConfigurationError) -> String {
    let file: OpenedFile
    switch OpenedFile.open(path) {
    case .success(let opened): file = opened
    case .failure(let failure):
        throw ConfigurationError(key: key, problem: "names \(path), which cannot be read: \(failure.reason)")
    }
    guard file.status.st_mode & (S_IROTH | S_IWOTH) == 0 else {
        file.discard()
        throw ConfigurationError(
            key: key, problem: "names \(path), which other users may read; run `chmod 600 \(path)` (or 640 with a private group)")
    }
    if let problem = FilePermissions(role: role, path: path).othersCanChange(file.status) {
        file.discard()
        throw ConfigurationError(key: key, problem: "names a file that others could change: \(problem)")
    }
    // A key or a token is a line of text; 64 KiB is far more than any.
    switch file.readText(limit: 64 << 10) {
    case .success(let text): return text
    case .failure(let failure): throw ConfigurationError(key: key, problem: "names \(path), which \(failure.problem)")
    }
}
