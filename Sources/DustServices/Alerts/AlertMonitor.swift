import DustKit
import Foundation
import Synchronization

/// The values alert rules are checked against, at one instant; nil is unknown.
public struct AlertInputs: Sendable, Hashable {
    public var station: String
    public var values: [AlertMetric: Double]

    public init(station: String, values: [AlertMetric: Double]) {
        self.station = station
        self.values = values
    }
}

/// Tomorrow's forecast grades for the configured region, and the weekly outlook's 높음 days, when stored.
public protocol TomorrowForecastReader: Sendable {
    func tomorrowGrades(at now: Date) async throws(StorageFailure) -> DustPair<DustGrade?>
    /// The days of the weekly outlook marked 높음 for the region (docs/REFERENCE.md §17); nil when none is stored.
    func outlookHighDays(at now: Date) async throws(StorageFailure) -> Int?
}

/// The stored forecast for the station's region (or `forecast.region`), as the alerts see it: an
/// unknown region or an unknown grade word is no value, not a failure.
public struct StoredTomorrowForecast: TomorrowForecastReader {
    private let reader: ForecastReader
    private let station: String?
    private let region: ForecastRegion?

    public init(reader: ForecastReader, station: String?, region: ForecastRegion?) {
        self.reader = reader
        self.station = station
        self.region = region
    }

    public func tomorrowGrades(at now: Date) async throws(StorageFailure) -> DustPair<DustGrade?> {
        do {
            let outlook = try await reader.outlook(station: station, override: region, now: now)
            return outlook.tomorrowGrades.map { forecast -> DustGrade? in
                guard case .known(let grade)? = forecast?.grade else { return nil }
                return grade
            }
        } catch {
            switch error {
            case .region: return DustPair(repeating: nil)
            case .storage(let failure): throw failure
            }
        }
    }

    public func outlookHighDays(at now: Date) async throws(StorageFailure) -> Int? {
        do {
            let outlook = try await reader.outlook(station: station, override: region, now: now)
            return outlook.weekly?.highDays(for: outlook.region)
        } catch {
            switch error {
            case .region: return nil
            case .storage(let failure): throw failure
            }
        }
    }
}

public struct AlertRegionalReaders: Sendable {
    public var forecast: (any TomorrowForecastReader)?
    public var advisories: (any AdvisoryLevelReader)?

    public init(forecast: (any TomorrowForecastReader)?, advisories: (any AdvisoryLevelReader)?) {
        self.forecast = forecast
        self.advisories = advisories
    }
}

/// Since when each active rule's condition has not held (by `AlertStateKey`): an alert clears only once
/// that has lasted `alerts.clearAfterMinutes`, so a value wavering around its threshold hour by hour (PM2.5 at 35, 36,
/// 35 µg/m³ on a winter day) announces once instead of a firing and a clearing every hour. Kept in memory
/// by the process that evaluates (dustd's alert service, for its life): after a restart an active rule's
/// wait starts again, which only delays a clearing.
public final class ClearingHold: Sendable {
    private let since = Mutex<[String: Date]>([:])

    public init() {}

    /// Whether an active rule whose condition does not hold at `now` clears now, having not held for
    /// `duration`; false starts or goes on waiting. Checks come after polls, an hour apart give or take
    /// the poll's jitter (up to a minute each way), so the wait counts a tenth of itself, at most five
    /// minutes, as slack: 60 minutes clear at the check an hour on, not at random the one after.
    func clears(_ key: String, at now: Date, after duration: TimeInterval) -> Bool {
        guard duration > 0 else { return true }
        let slack = min(300, duration / 10)
        return since.withLock { since in
            let first = since[key] ?? now
            guard now.timeIntervalSince(first) >= duration - slack else {
                since[key] = first
                return false
            }
            since[key] = nil
            return true
        }
    }

    /// The condition holds again (or the rule is not active): no wait goes on.
    func reset(_ key: String) { _ = since.withLock { $0.removeValue(forKey: key) } }
}

/// Checks the rules after each poll: computes the inputs from the stored data, moves each rule
/// through `AlertState.next` for each person it is about, stores the transitions and returns what
/// to announce.
///
/// Per person (docs/REFERENCE.md §18): `intake.today.*` is that person's own dose; every other
/// metric is about the air at their home station (its forecast region, its district). Each
/// (rule, person) has its own state under `AlertStateKey`, but one evaluation announces one change
/// of the air once: the people of one home station whose state moves the same way on the same
/// value share one event that names them all, so a household on one station gets one message per
/// change, not one per person.
public struct AlertMonitor: Sendable {
    private let rules: [AlertRule]
    private let quietHours: QuietHours?
    private let store: any AlertStore
    private let statistics: StatisticsService
    private let forecast: (any TomorrowForecastReader)?
    private let advisories: (any AdvisoryLevelReader)?
    private let people: [Person]
    private let regional: (@Sendable (_ station: String) -> AlertRegionalReaders)?
    private let clearing: ClearingHold
    private let clearAfter: TimeInterval

    /// - Parameters:
    ///   - people: the household, in the configured order; empty: the one person of `statistics`
    ///     (`me`), with `forecast` and `advisories`.
    ///   - regional: the forecast and advisories of a home station; nil: `forecast` and `advisories`
    ///     for every station.
    ///   - clearing, clearAfter: since when each active rule's condition has not held, and how long that must
    ///     last before it clears (`alerts.clearAfterMinutes`); by default at once.
    public init(
        rules: [AlertRule], quietHours: QuietHours?, store: any AlertStore, statistics: StatisticsService,
        forecast: (any TomorrowForecastReader)? = nil, advisories: (any AdvisoryLevelReader)? = nil,
        people: [Person] = [], regional: (@Sendable (_ station: String) -> AlertRegionalReaders)? = nil,
        clearing: ClearingHold = ClearingHold(), clearAfter: TimeInterval = 0
    ) {
        self.clearing = clearing
        self.clearAfter = clearAfter
        self.advisories = advisories
        self.rules = rules
        self.quietHours = quietHours
        self.store = store
        self.statistics = statistics
        self.forecast = forecast
        self.people = people
        self.regional = regional
    }

    /// The values at `now` for the person of `statistics`: the latest hour's grades when that hour
    /// is under 3 hours old (older data is unknown, not "good"; at 00:20 the latest hour is
    /// yesterday's 23–24), today's intake, tomorrow's forecast.
    public func inputs(at now: Date) async throws(StorageFailure) -> AlertInputs {
        let today = statistics.calendar.date(containing: now)
        let days = try await statistics.days(from: today.adding(days: -1), through: today)
        return try await inputs(
            days, of: statistics, at: now, readers: AlertRegionalReaders(forecast: forecast, advisories: advisories))
    }

    /// Each person's values at `now`, by name, in the order of `people` (the one person of
    /// `statistics` when no people were given). The forecast and advisories are read once per home
    /// station.
    public func householdInputs(at now: Date) async throws(StorageFailure) -> [(person: String, inputs: AlertInputs)] {
        guard !people.isEmpty else { return [(statistics.person.name, try await inputs(at: now))] }
        let today = statistics.calendar.date(containing: now)
        let days = try await statistics.household(people, from: today.adding(days: -1), through: today)
        var readersOfStation: [String: AlertRegionalReaders] = [:]
        var result: [(person: String, inputs: AlertInputs)] = []
        for (person, personDays) in zip(people, days) {
            let station = personDays[1].station
            let readers =
                readersOfStation[station] ?? regional?(station) ?? AlertRegionalReaders(forecast: forecast, advisories: advisories)
            readersOfStation[station] = readers
            result.append((person.name, try await inputs(personDays, of: statistics.forPerson(person), at: now, readers: readers)))
        }
        return result
    }

    /// The values of yesterday's and today's reports (`days`), the latest indoor hour of the person
    /// of `personal`, the forecast and the advisory level.
    private func inputs(
        _ days: [DayReport], of personal: StatisticsService, at now: Date, readers: AlertRegionalReaders
    ) async throws(StorageFailure) -> AlertInputs {
        let calendar = statistics.calendar
        let day = days[1]
        var values: [AlertMetric: Double] = [:]
        if let latest = day.latest ?? days[0].latest, now.timeIntervalSince(latest.slot.end) < DaemonHealth.staleAfter {
            let date = calendar.date(containing: latest.slot.start)
            for (metric, pollutant) in [(AlertMetric.pm10Grade, Pollutant.pm10), (.pm25Grade, .pm25)] {
                if let concentration = latest.concentration[pollutant] {
                    values[metric] = Double(DustGrade(concentration: concentration, of: pollutant, on: date).rawValue)
                }
            }
        }
        // The gases' hour may differ from PM's: each metric reads the latest hour that had gases (docs/REFERENCE.md §17).
        if let latest = day.latestGases ?? days[0].latestGases, now.timeIntervalSince(latest.slot.end) < DaemonHealth.staleAfter {
            let grades = latest.gases.grade
            for metric in [AlertMetric.o3Grade, .no2Grade, .coGrade, .so2Grade] {
                if let gas = metric.gas, let grade = grades[gas] { values[metric] = Double(grade.rawValue) }
            }
            if let grade = latest.gases.caiGrade { values[.khaiGrade] = Double(grade.rawValue) }
        }
        if let intake = day.totals.intake.fineDust { values[.intakeTodayPM10] = intake }
        if let intake = day.totals.intake.ultraFineDust { values[.intakeTodayPM25] = intake }
        // The latest hour the person's home monitors covered, while it is recent (docs/REFERENCE.md §21),
        // from the samples: the day's hours are only those with outdoor readings, so an AirKorea outage
        // (or the hours after midnight) silenced the indoor alert while the monitor read 50 µg/m³.
        if let latest = try await personal.latestIndoorPM25(at: now, within: DaemonHealth.staleAfter) {
            values[.indoorPM25] = latest.pm25
        }
        if let forecast = readers.forecast {
            let tomorrow = try await forecast.tomorrowGrades(at: now)
            if let grade = tomorrow.fineDust { values[.forecastTomorrowPM10] = Double(grade.rawValue) }
            if let grade = tomorrow.ultraFineDust { values[.forecastTomorrowPM25] = Double(grade.rawValue) }
            if let days = try await forecast.outlookHighDays(at: now) { values[.outlookHighDays] = Double(days) }
        }
        if let level = try await readers.advisories?.level(at: now) { values[.advisoryLevel] = Double(level) }
        return AlertInputs(station: day.station, values: values)
    }

    /// Evaluates every rule for every person it is about at `now`; returns the stored events to
    /// deliver, in rule order, then in the order of the people.
    public func evaluate(at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        try await evaluate(householdInputs(at: now), at: now)
    }

    /// Evaluates every rule against given inputs, for the one person of `statistics` (or the first
    /// of `people`).
    public func evaluate(_ inputs: AlertInputs, at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        try await evaluate([(people.first?.name ?? statistics.person.name, inputs)], at: now)
    }

    /// Evaluates every rule against each person's inputs. Events name their people only when the
    /// household has more than one person, so one person's announcements read as they always did.
    public func evaluate(_ household: [(person: String, inputs: AlertInputs)], at now: Date) async throws(StorageFailure) -> [AlertEvent] {
        let stored = try await store.storedAlertStates()
        // The local hour of now, not of its slot: quiet hours from 23 began at 23:30 in Kolkata.
        let quiet = quietHours?.contains(now, calendar: statistics.calendar) ?? false
        let namesPeople = max(people.count, household.count) > 1
        var events: [AlertEvent] = []
        var seen: Set<AlertStateKey> = []
        for rule in rules {
            // A rule written twice (`pm25.grade >= 3` and `pm25.grade >= 나쁨`, or once for everyone
            // and once for one person) is one rule per person: the settings refuse that, and this is
            // the second line of defence.
            var moves: [Move] = []
            for (person, inputs) in household where rule.applies(to: person) {
                let key = AlertStateKey(rule: rule.description, person: person)
                guard seen.insert(key).inserted else { continue }
                // A day's dose fired or held yesterday is idle today (`AlertRule.state(_:at:calendar:)`).
                let current = rule.state(stored[key.description], at: now, calendar: statistics.calendar)
                let value = inputs.values[rule.metric]
                let holds = value.map(rule.holds)
                if current != .active || holds == true { clearing.reset(key.description) }
                // An active rule whose condition stopped holding clears only once it has not held for a while.
                if current == .active, holds == false, !clearing.clears(key.description, at: now, after: clearAfter) { continue }
                let (state, edge) = current.next(holds: holds, quiet: quiet)
                // Stored when it moved, and when the day turned under it (so idle, silently, even while today's dose
                // is unknown; or held again, in quiet hours, as today's).
                let storedState = stored[key.description]?.state ?? .idle
                guard state != storedState || current != storedState || edge != nil else { continue }
                moves.append(Move(key: key, state: state, edge: edge, value: value, station: inputs.station))
            }
            for group in Self.announcements(moves, sharing: !rule.metric.isPersonal) {
                // A day's dose only grows through the day: it stops exceeding a threshold (`>`, `>=`) when the
                // day turns, which is no news (`intake.today.pm25 < 20` clearing at noon is). That clearing was sent at 01:00 every night, in quiet hours,
                // with the air unchanged; the rule goes back to idle without a message.
                let silent = rule.isNewsOfItsDay && group[0].edge == .cleared
                let event =
                    silent
                    ? nil
                    : group[0].edge.map { edge in
                        AlertEvent(
                            kind: edge == .fired ? .fired : .cleared, rule: rule.description, metric: rule.metric, value: group[0].value,
                            station: group[0].station, at: now, people: namesPeople ? group.map(\.key.person) : [])
                    }
                // The first person's transition carries the event; the others' are stored beside it.
                for (index, move) in group.enumerated() {
                    let announced = index == 0 ? event : nil
                    if let stored = try await store.saveAlertTransition(
                        rule: move.key.description, state: move.state, event: announced, at: now)
                    {
                        events.append(stored)
                    }
                }
            }
        }
        return events
    }

    /// One person's state change under one rule.
    private struct Move {
        var key: AlertStateKey
        var state: AlertState
        var edge: AlertEdge?
        var value: Double?
        var station: String
    }

    /// The moves grouped into announcements, in the order of their first person: with `sharing`
    /// (the air's metrics), the moves of one station to the same state on the same value are one;
    /// otherwise (a person's own intake) each is its own.
    private static func announcements(_ moves: [Move], sharing: Bool) -> [[Move]] {
        var groups: [[Move]] = []
        for move in moves {
            if sharing,
                let index = groups.firstIndex(where: { group in
                    let first = group[0]
                    return first.station == move.station && first.state == move.state && first.edge == move.edge
                        && first.value == move.value
                })
            {
                groups[index].append(move)
            } else {
                groups.append([move])
            }
        }
        return groups
    }
}
