import AirKorea
import AirKoreaHTTP
import DustConfig
import DustKit
import DustServices
import DustStorage

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
    private let clock: any WallClock

    /// - Parameter clock: today, for the year of weighed hours kept again after the save.
    public init(settings: FineDustSettings, environment: [String: String], clock: any WallClock = SystemClock()) {
        self.settings = settings
        self.environment = environment
        self.clock = clock
    }

    public func run() async -> OneShotOutcome {
        let key: ServiceKey
        do {
            key = try ServiceKeyLoader(environment: environment).load(settings: settings).key
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
        do {
            return try await settings.storage.withStore(.write, environment: environment, logger: DaemonDatabase.quietLogger) { store in
                let unlocated = try await StationListService(store: store, clock: clock).save(fetched.stations)
                outcome.output.append(StationListService.storedSummary(count: fetched.stations.count, unlocated: unlocated))
                outcome.diagnostics += await keepPlaces(store: store)
                return outcome
            }
        } catch let error as StorageOpeningError {
            return OneShotOutcome(status: error.exitStatus, diagnostics: outcome.diagnostics + [error.description])
        } catch let error as StorageFailure {
            return OneShotOutcome(status: ExitStatus(error), diagnostics: outcome.diagnostics + [error.description])
        } catch {
            return OneShotOutcome(status: .software, diagnostics: outcome.diagnostics + ["\(error)"])
        }
    }

    /// A station placed anew or moved forgets every kept place (docs/REFERENCE.md §19): the year
    /// dustd keeps is weighed again now, as `dustctl stations import` does, rather than at dustd's
    /// next poll. The stations are stored either way; a failure is a warning (reports weigh those
    /// hours when read).
    private func keepPlaces(store: any FineDustStore) async -> [String] {
        var warnings: [String] = []
        _ = await PlaceKeepingService.keep(settings: settings, store: store, at: clock.now) { person, error in
            warnings.append(
                "warning: \(TerminalSafeText.sanitized(person.name))'s hours were not weighed ahead (\(error)); reports weigh them when read."
            )
        }
        return warnings
    }
}
