import AirKorea
import AirKoreaHTTP
import DustConfig
import DustServices
import DustStore

/// What one of dustd's one-shot modes (`--sync-stations`, `--test-alerts`) ended with: the lines
/// for stdout and stderr and the exit status.
public struct OneShotOutcome: Sendable, Equatable {
    public var status: ExitStatus
    public var output: [String] = []
    public var diagnostics: [String] = []

    public init(status: ExitStatus, output: [String] = [], diagnostics: [String] = []) {
        self.status = status
        self.output = output
        self.diagnostics = diagnostics
    }
}

/// `dustd --sync-stations`, which `dustctl stations sync` runs: AirKorea's station list into the
/// database, once. It lives in dustd because dustd is the one FineDust program that talks to the
/// network: dustctl links no HTTP client (which keeps its start-up short, see docs/PERFORMANCE.md).
public struct StationSync: Sendable {
    private let settings: FineDustSettings
    private let environment: [String: String]

    public init(settings: FineDustSettings, environment: [String: String]) {
        self.settings = settings
        self.environment = environment
    }

    public func run() async -> OneShotOutcome {
        let key: ServiceKey
        do {
            key = try await ServiceKeyLoader(environment: environment).load(settings: settings).key
        } catch {
            return OneShotOutcome(status: .configuration, diagnostics: [error.description])
        }
        let transport = AsyncHTTPTransport()
        let fetched: StationListService.Fetched
        do {
            fetched = try await StationListService.fetch(from: AirKoreaClient(api: settings.api, key: key, transport: transport))
            await transport.shutdown()
        } catch {
            await transport.shutdown()
            let status: ExitStatus = error.retryAdvice == .waitForNextHour ? .configuration : .unavailable
            // The client already removed the key from what the server sent; this is the last line
            // of defence, as in the log handler.
            return OneShotOutcome(status: status, diagnostics: [key.redacting(StationListService.explain(error))])
        }
        var outcome = OneShotOutcome(status: .ok)
        if let (claimed, pages) = fetched.capped {
            outcome.diagnostics.append(
                "warning: AirKorea claims \(claimed) stations; stopped after \(pages) pages, all the station list can fill.")
        }
        let unlocated: Int
        do {
            let store = try await DaemonDatabase.open(settings, environment: environment, logger: DaemonDatabase.quietLogger)
            unlocated = try await StationListService(store: store).save(fetched.stations)
        } catch let error as StorageFailure {
            return OneShotOutcome(status: ExitStatus(error), diagnostics: outcome.diagnostics + [error.description])
        } catch {
            return OneShotOutcome(status: .configuration, diagnostics: outcome.diagnostics + ["\(error)"])
        }
        outcome.output.append(StationListService.storedSummary(count: fetched.stations.count, unlocated: unlocated))
        return outcome
    }
}
