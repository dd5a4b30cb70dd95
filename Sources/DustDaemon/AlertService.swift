import DustConfig
import DustKit
import DustServices
import DustStorage
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Alerts (docs/REFERENCE.md §14) as a service beside the poll loop: after each poll it checks the rules (read
/// from the live configuration, so SIGHUP changes them) and hands what fired or cleared to the
/// sinks. Deliveries and their retries run in their own tasks: a dead sink never delays a poll or
/// the next evaluation.
public struct AlertService: Service, CustomStringConvertible {
    /// The name the service group logs: its fields (the settings, the sinks) stay out of the journal.
    public var description: String { "AlertService" }

    private let live: LiveConfiguration
    private let database: DaemonDatabase
    private let dispatcher: AlertDispatcher
    private let triggers: AsyncStream<Date>
    private let clock: any WallClock
    private let logger: Logger
    /// Since when each active alert's condition has not held: it clears after `alerts.clearAfterMinutes`
    /// (docs/REFERENCE.md §14). Kept for the service's life.
    private let clearing: ClearingHold

    /// - Parameter triggers: one element after each poll (`PollService`'s `afterCycle`).
    public init(
        live: LiveConfiguration, database: DaemonDatabase, dispatcher: AlertDispatcher, triggers: AsyncStream<Date>,
        clock: any WallClock = SystemClock(), logger: Logger, clearing: ClearingHold = ClearingHold()
    ) {
        self.clearing = clearing
        self.live = live
        self.database = database
        self.dispatcher = dispatcher
        self.triggers = triggers
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        // The newest event of each rule: an older one still being retried gives way to it.
        let newest = NewestAlerts()
        await withDiscardingTaskGroup { deliveries in
            for pending in await pendingDeliveries() {
                logger.notice(
                    "Resuming an alert delivery that was waiting when dustd stopped",
                    metadata: ["rule": "\(pending.event.rule)", "sink": "\(pending.sink)", "attempt": "\(pending.lastAttempt + 1)"])
                newest.record(pending.event)
                deliveries.addTask {
                    if let delivery = await dispatcher.resume(
                        pending.event, sink: pending.sink, afterAttempt: pending.lastAttempt,
                        endedBy: { newest.endedBy(pending.event) ?? dayEnded(pending.event) }, heldUntil: { quietUntil(pending.event) })
                    {
                        log(delivery)
                    }
                }
            }
            for await now in triggers.cancelOnGracefulShutdown() {
                for event in await evaluate(at: now) {
                    logger.notice(
                        "Alert \(event.kind.rawValue): \(event.title(in: .en))",
                        metadata: ["rule": "\(event.rule)", "station": "\(event.station)"])
                    newest.record(event)
                    deliveries.addTask {
                        await deliver(event, endedBy: { newest.endedBy(event) ?? dayEnded(event) }, heldUntil: { quietUntil(event) })
                    }
                }
            }
            // Shutting down: the waits between retries end; what was not delivered stays `retrying`
            // in the database, and the next start takes it up.
            deliveries.cancelAll()
        }
    }

    /// Checks the rules now; returns the stored events to deliver. A storage failure is logged and
    /// checked again after the next poll (the state did not change, so nothing is lost or repeated).
    func evaluate(at now: Date) async -> [AlertEvent] {
        let settings = live.snapshot.settings
        guard !settings.alerts.rules.isEmpty, let station = settings.station.name else { return [] }
        do {
            let store = try database.current()
            // Each person's dose as `dustctl today --person` computes it: their station, settings, walking,
            // heart rate and sleep (docs/REFERENCE.md §18).
            let statistics = StatisticsService(
                store: store, clock: FixedClock(now), calendar: settings.calendar, intakeModel: settings.intakeModel,
                stations: StationPreference(primary: station, fallbacks: settings.station.fallbacks),
                followingRadiusKilometres: settings.followingRadiusKilometres)
            // The forecast region and the advisory district follow each person's home station.
            let regional: @Sendable (String) -> AlertRegionalReaders = { home in
                AlertRegionalReaders(
                    forecast: StoredTomorrowForecast(
                        reader: ForecastReader(store: store, timeZone: settings.calendar.timeZone),
                        station: home, region: settings.forecast.region),
                    advisories: StoredAdvisoryLevel(
                        reader: AdvisoryReader(store: store), district: settings.advisories.district, area: settings.advisories.area,
                        station: home))
            }
            let readers = regional(station)
            return try await AlertMonitor(
                rules: settings.alerts.rules, quietHours: settings.alerts.quietHours, store: store,
                statistics: statistics, forecast: readers.forecast, advisories: readers.advisories,
                people: settings.people, regional: regional, clearing: clearing,
                clearAfter: TimeInterval(settings.alerts.clearAfterMinutes * 60)
            ).evaluate(at: now)
        } catch {
            logger.error("Could not check the alert rules: \(error)")
            return []
        }
    }

    /// What was waiting for delivery when dustd last stopped (`AlertResumption`); nothing when the
    /// records cannot be read (logged: the next event is delivered as usual).
    func pendingDeliveries() async -> [AlertResumption.Pending] {
        let rules = live.snapshot.settings.alerts.rules
        guard !rules.isEmpty, !dispatcher.sinkNames.isEmpty else { return [] }
        do {
            let recent = try await AlertStoreOfDatabase(database: database).recentAlertEvents(limit: 100)
            return AlertResumption.pending(in: recent, rules: Set(rules.map(\.description)), sinks: dispatcher.sinkNames, now: clock.now)
        } catch {
            logger.error("Could not read the alert deliveries left from the last run: \(error)")
            return []
        }
    }

    /// Why the alert of a day's dose (`AlertRule.isNewsOfItsDay`) is no longer news once its day has
    /// ended (nil before, and for any other alert): the rule cleared silently at the turn, so no newer
    /// event stops the retries of a sink that was failing, and yesterday's dose is not sent at 01:00.
    func dayEnded(_ event: AlertEvent) -> String? {
        let settings = live.snapshot.settings
        guard event.kind == .fired, settings.alerts.rules.contains(where: { $0.description == event.rule && $0.isNewsOfItsDay }),
            settings.calendar.date(containing: event.at) != settings.calendar.date(containing: clock.now)
        else { return nil }
        return "the day of the dose it was about ended"
    }

    /// When the quiet hours that hold a rise back end, while they hold it now (`alerts.quietHours`, local hours):
    /// a retry or a resumed delivery of a fired alert waits until then. Nil outside them, and for a clearing or a
    /// test, which quiet hours let through.
    func quietUntil(_ event: AlertEvent) -> Date? {
        let settings = live.snapshot.settings
        guard event.kind == .fired, let quiet = settings.alerts.quietHours else { return nil }
        let calendar = settings.calendar
        var hour = clock.now
        guard quiet.contains(hour, calendar: calendar) else { return nil }
        for _ in 0..<24 {
            hour = calendar.nextHourStart(after: hour)
            if !quiet.contains(hour, calendar: calendar) { return hour }
        }
        // Quiet all day (`{from: 0, to: 24}`): held, asked again within the hour.
        return calendar.nextHourStart(after: clock.now)
    }

    private func deliver(
        _ event: AlertEvent, endedBy: @escaping @Sendable () -> String?, heldUntil: @escaping @Sendable () -> Date?
    ) async {
        for delivery in await dispatcher.deliver(event, endedBy: endedBy, heldUntil: heldUntil) {
            log(delivery)
        }
    }

    private func log(_ delivery: AlertDelivery) {
        switch delivery.outcome {
        case .delivered:
            logger.info("Alert delivered", metadata: ["sink": "\(delivery.sink)", "attempt": "\(delivery.attempt)"])
        case .retrying:
            logger.notice("Alert delivery paused: dustd is stopping; the next start tries again", metadata: ["sink": "\(delivery.sink)"])
        case .failed:
            logger.error(
                "Alert not delivered after \(delivery.attempt) attempts: \(delivery.detail ?? "no reason")",
                metadata: ["sink": "\(delivery.sink)"])
        }
    }
}

/// `dustd --test-alerts` (what `dustctl alerts test` runs): one test event to every sink, once,
/// recorded like any other.
public struct AlertTest: Sendable {
    private let settings: FineDustSettings
    private let environment: [String: String]
    private let clock: any WallClock

    public init(settings: FineDustSettings, environment: [String: String], clock: any WallClock = SystemClock()) {
        self.settings = settings
        self.environment = environment
        self.clock = clock
    }

    /// Lines for stdout and stderr, and the exit status: 0 when every sink took it.
    public func run() async -> OneShotOutcome {
        let sinks: AlertSinks
        do {
            sinks = try AlertSinks(settings: settings.alerts, environment: environment, clock: clock)
        } catch {
            return OneShotOutcome(status: .configuration, diagnostics: [error.description])
        }
        guard !sinks.sinks.isEmpty else {
            await sinks.shutdown()
            return OneShotOutcome(
                status: .configuration,
                diagnostics: ["No alert sinks are configured (alerts.sinks in \(settings.configurationFile ?? "the configuration file"))."])
        }
        // Recorded like any alert when the database is there and writable; sent all the same when not.
        if case .sqlite(let path) = settings.storage, !FileManager.default.fileExists(atPath: path) {
            return await send(to: sinks, recordedIn: UnrecordedAlerts(), note: "not recorded: there is no database at \(path)")
        }
        let opened: OpenedStorage
        do {
            opened = try await settings.storage.open(.write, environment: environment, logger: DaemonDatabase.quietLogger)
        } catch {
            return await send(to: sinks, recordedIn: UnrecordedAlerts(), note: "not recorded: \(error)")
        }
        return (try? await opened.serving { store in await send(to: sinks, recordedIn: store, note: nil) })
            ?? OneShotOutcome(status: .software)
    }

    private func send(to sinks: AlertSinks, recordedIn store: any AlertStore, note: String?) async -> OneShotOutcome {
        let test = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: settings.station.name ?? "-", at: clock.now)
        let event = (try? await store.saveAlertEvent(test)) ?? test
        // One attempt each: a test says at once whether a sink works.
        let dispatcher = AlertDispatcher(sinks: sinks.sinks, store: store, policy: AlertRetryPolicy(maxAttempts: 1))
        let results = await dispatcher.deliver(event)
        await sinks.shutdown()
        var output: [String] = []
        var diagnostics: [String] = note.map { [$0] } ?? []
        for result in results {
            if result.outcome == .delivered {
                output.append("\(result.sink): delivered")
            } else {
                diagnostics.append("\(result.sink): not delivered: \(result.detail ?? "no reason")")
            }
        }
        let failed = results.contains { $0.outcome != .delivered }
        return OneShotOutcome(status: failed ? .unavailable : .ok, output: output, diagnostics: diagnostics)
    }
}

/// Where a test alert goes when it cannot be recorded: nowhere.
private struct UnrecordedAlerts: AlertStore {
    func storedAlertStates() throws(StorageFailure) -> [String: StoredAlertState] { [:] }
    func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) throws(StorageFailure) -> AlertEvent? { event }
    func saveAlertEvent(_ event: AlertEvent) throws(StorageFailure) -> AlertEvent { event }
    func recordAlertDelivery(_ delivery: AlertDelivery) throws(StorageFailure) {}
    func recentAlertEvents(limit: Int) throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] { [] }
}

/// The alert records of whatever database file dustd has open now (it reopens a replaced file).
struct AlertStoreOfDatabase: AlertStore {
    let database: DaemonDatabase

    private func store() throws(StorageFailure) -> any FineDustStore {
        try database.current()
    }

    func storedAlertStates() async throws(StorageFailure) -> [String: StoredAlertState] { try await store().storedAlertStates() }

    func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) async throws(StorageFailure) -> AlertEvent? {
        try await store().saveAlertTransition(rule: rule, state: state, event: event, at: at)
    }

    func saveAlertEvent(_ event: AlertEvent) async throws(StorageFailure) -> AlertEvent { try await store().saveAlertEvent(event) }

    func recordAlertDelivery(_ delivery: AlertDelivery) async throws(StorageFailure) { try await store().recordAlertDelivery(delivery) }

    func recentAlertEvents(limit: Int) async throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        try await store().recentAlertEvents(limit: limit)
    }
}

/// The id of each rule's newest event, per the people it names (one person's clearing does not
/// stop the retries of another's alert).
private final class NewestAlerts: Sendable {
    private let ids = Mutex<[String: Int64]>([:])

    func record(_ event: AlertEvent) { ids.withLock { $0[event.recordedRule] = event.id } }

    /// Why `event` is no longer its rule's news, or nil while it is the newest.
    func endedBy(_ event: AlertEvent) -> String? {
        ids.withLock { $0[event.recordedRule] } == event.id ? nil : "a newer alert of the same rule replaced it"
    }
}
