import DustConfig
import DustKit
import DustServices
import DustStorage
import DustWeb
import Foundation
import Logging
import ServiceLifecycle

/// `dustd --demo`: the bundled responses replayed into a local database through the real
/// pipeline, then the dashboard, API and metrics served on them until stopped. No key, no network.
public struct DemoDashboard: Sendable {
    /// The demo's clock: the last minute of the demo day, so `/` shows 2026-11-20 as "today".
    public static let now = DemoReplay.now.addingTimeInterval(-20 * 60 - 1)

    private let databasePath: String
    private let settings: FineDustSettings
    private let logger: Logger
    private let metrics: PrometheusBackend

    /// - Parameter metrics: the process's swift-metrics backend, whose registry `/metrics` renders.
    public init(databasePath: String, settings: FineDustSettings, logger: Logger, metrics: PrometheusBackend) {
        self.databasePath = databasePath
        self.settings = settings
        self.logger = logger
        self.metrics = metrics
    }

    /// What the demo's pages and API read: 종로구 and the demo household (docs/REFERENCE.md §6), whoever the
    /// configuration names, so `?person=` and the person switcher have both of them.
    public static func reportSettings(databasePath: String, calendar: DayCalendar, intakeModel: any IntakeModel) -> WebData.ReportSettings {
        WebData.ReportSettings(
            stations: StationPreference(primary: DemoReplay.station), calendar: calendar, intakeModel: intakeModel,
            databasePath: databasePath, people: DemoReplay.people, followingRadiusKilometres: DemoReplay.locationRadiusKilometres)
    }

    /// Replays the fixtures, prints what happened with `report`, and serves until SIGTERM or SIGINT.
    public func run(fixtures: URL, report: @escaping @Sendable (String) -> Void) async -> ExitStatus {
        let inUse =
            "\(databasePath) holds data the demo did not write, so it was left alone; the demo writes only into a new file or one "
            + "it made: name another with --demo-database (or, if it is an older FineDust's demo file, remove it and run again)."
        // Asked before the file is opened to write, which would migrate a household's older database.
        guard await StorageBackend.demoMayReplay(intoSQLite: databasePath, logger: DaemonDatabase.quietLogger) else {
            report(inUse)
            return .cannotCreate
        }
        // The demo's own SQLite file: no connections to run beside it.
        let store: any FineDustStore
        do {
            store = try await StorageBackend.sqlite(path: databasePath).open(.write, environment: [:], logger: DaemonDatabase.quietLogger)
                .store
        } catch {
            report("\(error)")
            return error.exitStatus
        }
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul") ?? KoreaStandardTime.timeZone)
        let replay: DemoReplay.Replay
        do {
            replay = try await DemoReplay(fixtures: fixtures, store: store, calendar: calendar).run()
        } catch is DemoReplay.DatabaseInUse {
            report(inUse)
            return .cannotCreate
        } catch {
            report("The demo could not be replayed: \(error)")
            return .ioError
        }
        let outcomes = replay.responses
        let stored = outcomes.filter { if case .stored = $0.1 { true } else { false } }.count
        let activity = replay.activity.map { "\($0.person)'s \($0.held)" }
        report(
            "Replayed \(outcomes.count) AirKorea responses into \(databasePath): \(stored) stored, \(outcomes.count - stored) rejected "
                + "as dustd would reject them; \(activity.joined(separator: ", ")).")

        // The demo is a running dustd as far as its pages can tell: polled just now, healthy.
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: getpid(), version: FineDustVersion.current,
            station: DemoReplay.station, startedAt: Self.now, heartbeatSeconds: 600)
        status.heartbeatAt = Self.now
        status.lastSuccess = .init(at: Self.now.addingTimeInterval(-30 * 60), rowsNew: stored, rowsUpdated: 0, requests: outcomes.count)
        try? await store.saveStatus(status)

        let reportSettings = Self.reportSettings(databasePath: databasePath, calendar: calendar, intakeModel: settings.intakeModel)
        let data = WebData(store: { store }, settings: { reportSettings }, clock: FixedClock(Self.now))
        var household = settings
        household.people = DemoReplay.people
        let address = settings.http.address.map { "http://\($0.host.contains(":") ? "[\($0.host)]" : $0.host):\($0.port)/" } ?? ""
        let web: any Service
        do {
            guard
                let service = WebFrontEnd.service(
                    settings: household, access: try WebFrontEnd.access(for: household.http), data: data, metrics: metrics,
                    logger: logger, endsOnFailure: true,
                    // Said once the port is bound: a script waits for this line before it connects.
                    onRunning: {
                        report(
                            "Serving the dashboard on \(address) (the demo's clock stands at \(KoreaStandardTime.iso8601(Self.now))); Ctrl-C stops."
                        )
                    })
            else {
                report("http.listen is off, so there is nothing to serve; the demo database is \(databasePath).")
                return .ok
            }
            web = service
        } catch {
            report("Invalid configuration: \(error)")
            return .configuration
        }
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: web), .init(service: HeapTrimService(trim: HeapTrimService.trimStoreAndHeap { store }))],
            logger: logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        configuration.maximumGracefulShutdownDuration = .seconds(4)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            // ServiceGroup rethrows what a service threw: the sentence is the service's own.
            if let failure = error as? WebServingFailure {
                report(failure.description)
                return .unavailable
            }
            report("The dashboard stopped: \(error)")
            return .software
        }
        status.state = .stopped
        status.stoppedAt = Self.now
        try? await store.saveStatus(status)
        return .ok
    }
}
