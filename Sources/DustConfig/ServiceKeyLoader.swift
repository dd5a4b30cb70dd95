import AirKorea
import Configuration
import Foundation
import SystemPackage

/// Finds the AirKorea service key (SPEC §7): `$CREDENTIALS_DIRECTORY/airkorea-service-key`
/// (systemd `LoadCredential=`), else `DUSTD_API_SERVICE_KEY`, else the file `api.serviceKeyFile`.
///
/// The key is never read from the YAML file itself and never passed on a command line.
public struct ServiceKeyLoader: Sendable {
    /// The credential name the unit's `LoadCredential=` uses.
    public static let credentialName = "airkorea-service-key"

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
            case let .credential(path): "systemd credential \(path)"
            case .environment: "environment variable DUSTD_API_SERVICE_KEY"
            case let .file(path): "key file \(path)"
            }
        }
    }

    public func load(settings: FineDustSettings) async throws(ConfigurationError) -> (key: ServiceKey, source: Source) {
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let provider: DirectoryFilesProvider
            do {
                provider = try await DirectoryFilesProvider(directoryPath: FilePath(directory), allowMissing: true)
            } catch {
                throw ConfigurationError(key: nil, problem: "the systemd credentials directory \(directory) cannot be read")
            }
            let reader = ConfigReader(provider: provider)
            if let text = reader.string(forKey: ConfigKey([Self.credentialName]), isSecret: true) {
                guard let key = ServiceKey(text) else {
                    throw ConfigurationError(key: nil, problem: "the credential \(Self.credentialName) is empty or holds more than one word")
                }
                return (key, .credential("\(directory)/\(Self.credentialName)"))
            }
        }
        let variables = ConfigReader(provider: EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "dustd"))
        if let text = variables.string(forKey: "api.serviceKey", isSecret: true) {
            guard let key = ServiceKey(text) else {
                throw ConfigurationError(key: "DUSTD_API_SERVICE_KEY", problem: "is empty or holds more than one word")
            }
            return (key, .environment)
        }
        if let path = settings.api.serviceKeyFile {
            return (try readKeyFile(path), .file(path))
        }
        throw ConfigurationError(key: nil, problem: "no AirKorea service key: install it as the systemd credential \(Self.credentialName) (see README, \"Run it as a service\"), set DUSTD_API_SERVICE_KEY, or name a key file in api.serviceKeyFile")
    }

    /// Reads a key file, refusing one that other users may read or write.
    private func readKeyFile(_ path: String) throws(ConfigurationError) -> ServiceKey {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw ConfigurationError(key: "api.serviceKeyFile", problem: "names \(path), which cannot be read: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & (S_IROTH | S_IWOTH) == 0 else {
            throw ConfigurationError(key: "api.serviceKeyFile", problem: "names \(path), which other users may read; run `chmod 600 \(path)` (or 640 with a private group)")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), let key = ServiceKey(text) else {
            throw ConfigurationError(key: "api.serviceKeyFile", problem: "names \(path), which holds no key (it must contain the key alone)")
        }
        return key
    }
}
