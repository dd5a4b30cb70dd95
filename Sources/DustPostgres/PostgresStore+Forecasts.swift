import DustKit
import DustServices
import Foundation
import PostgresNIO

// Forecasts, the weekly outlook, alerts and advisories (docs/REFERENCE.md §14, §17): the SQLite
// store's statements (ForecastStorage.swift, WeeklyOutlookStorage.swift, AlertRecords.swift,
// AdvisoryRecords.swift) in PostgreSQL's words.

extension PostgresStore: ForecastStore, AlertStore, AdvisoryStore {
    // MARK: - Forecasts

    /// Stores forecasts in one transaction; the same issue again changes nothing, a re-published one
    /// replaces its text and grades. Returns how many (pollutant, issue, date) rows were new or changed.
    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) async throws(StorageFailure) -> Int {
        let logger = logger
        let fetched = Int64(fetchedAt.timeIntervalSince1970)
        return try await writing { connection in
            var changed = 0
            for forecast in forecasts {
                let pollutant = forecast.pollutant.rawValue
                let issued = Int64(forecast.issuedAt.timeIntervalSince1970)
                let date = forecast.forecastDate.description
                var rowsChanged = 0
                let issue = try await connection.query(
                    """
                    INSERT INTO forecast_issue (pollutant, issued_at, forecast_date, overall, cause, fetched_at)
                    VALUES (\(pollutant), \(issued), \(date), \(forecast.overall), \(forecast.cause), \(fetched))
                    ON CONFLICT (pollutant, issued_at, forecast_date) DO UPDATE SET
                        overall = excluded.overall, cause = excluded.cause, fetched_at = excluded.fetched_at
                    WHERE forecast_issue.overall IS DISTINCT FROM excluded.overall
                       OR forecast_issue.cause IS DISTINCT FROM excluded.cause
                    RETURNING 1 AS changed
                    """, logger: logger)
                for try await _ in issue { rowsChanged += 1 }
                for region in ForecastRegion.allCases {
                    guard let value = forecast.grades.byRegion[region] else { continue }
                    let grade = try await connection.query(
                        """
                        INSERT INTO forecast_grade (pollutant, issued_at, forecast_date, region, grade, grade_word)
                        VALUES (\(pollutant), \(issued), \(date), \(region.rawValue), \(value.grade?.rawValue), \(value.word))
                        ON CONFLICT (pollutant, forecast_date, region, issued_at) DO UPDATE SET
                            grade = excluded.grade, grade_word = excluded.grade_word
                        WHERE forecast_grade.grade IS DISTINCT FROM excluded.grade
                           OR forecast_grade.grade_word IS DISTINCT FROM excluded.grade_word
                        RETURNING 1 AS changed
                        """, logger: logger)
                    for try await _ in grade { rowsChanged += 1 }
                }
                if rowsChanged > 0 { changed += 1 }
            }
            return changed
        }
    }

    public func newestForecastIssue(pollutant: Pollutant) async throws(StorageFailure) -> Date? {
        let logger = logger
        let newest: Int64? = try await reading { connection in
            let rows = try await connection.query(
                "SELECT max(issued_at) AS newest FROM forecast_issue WHERE pollutant = \(pollutant.rawValue)", logger: logger)
            return try await Self.single(rows, "newest")
        }
        return newest.map(Self.date)
    }

    /// The grade of `region` for `date` from the newest issue that graded that region for that date.
    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) async throws(StorageFailure) -> RegionalForecast? {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT g.issued_at, g.grade, g.grade_word, i.overall, i.cause
                FROM forecast_grade g
                LEFT JOIN forecast_issue i
                  ON i.pollutant = g.pollutant AND i.issued_at = g.issued_at AND i.forecast_date = g.forecast_date
                WHERE g.pollutant = \(pollutant.rawValue) AND g.forecast_date = \(date.description) AND g.region = \(region.rawValue)
                ORDER BY g.issued_at DESC LIMIT 1
                """, logger: logger)
            var result: RegionalForecast?
            for try await row in rows {
                let row = row.makeRandomAccess()
                let word: String = try row.value("grade_word")
                let grade: ForecastGrade = Self.grade(try row.value("grade")).map { .known($0) } ?? .unknown(word)
                result = RegionalForecast(
                    pollutant: pollutant, region: region, forecastDate: date, issuedAt: Self.date(try row.value("issued_at")),
                    grade: grade, overall: try row.value("overall"), cause: try row.value("cause"))
            }
            return result
        }
    }

    /// The province and address stored for a station, if it is known at all.
    public func stationLocation(name: String) async throws(StorageFailure) -> StationLocation? {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query("SELECT sido, address FROM station WHERE name = \(name)", logger: logger)
            var location: StationLocation?
            for try await row in rows {
                let row = row.makeRandomAccess()
                location = StationLocation(sido: try row.value("sido"), address: try row.value("address"))
            }
            return location
        }
    }

    // MARK: - The weekly outlook

    /// Stores one publication in one transaction: unchanged, nothing is written; changed, its days
    /// and grades are replaced whole. Returns whether anything changed.
    public func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date) async throws(StorageFailure) -> Bool {
        let logger = logger
        let published = outlook.publishedOn.description
        let fetched = Self.seconds(fetchedAt)
        return try await writing { connection in
            // Two dustd storing the same publication at once: the second waits here, then finds it stored.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext('weekly_outlook ' || \(published)))", logger: logger)
            guard try await Self.loadWeeklyOutlook(connection, publishedOn: published, logger) != outlook else { return false }
            try await connection.query("DELETE FROM weekly_outlook_grade WHERE published_on = \(published)", logger: logger)
            try await connection.query("DELETE FROM weekly_outlook_day WHERE published_on = \(published)", logger: logger)
            try await connection.query("DELETE FROM weekly_outlook WHERE published_on = \(published)", logger: logger)
            try await connection.query(
                """
                INSERT INTO weekly_outlook (published_on, conditions, fetched_at)
                VALUES (\(published), \(outlook.conditions), \(fetched))
                """,
                logger: logger)
            for (index, day) in outlook.days.prefix(4).enumerated() {
                let position = index + 1
                try await connection.query(
                    """
                    INSERT INTO weekly_outlook_day (published_on, position, forecast_date, confidence_word)
                    VALUES (\(published), \(position), \(day.date.description), \(day.confidence?.word))
                    """, logger: logger)
                let named = day.byRegion.map { ($0.key.rawValue, $0.value) } + day.unmatchedRegions.map { ($0.key, $0.value) }
                for (region, value) in named {
                    try await connection.query(
                        """
                        INSERT INTO weekly_outlook_grade (published_on, position, region, word)
                        VALUES (\(published), \(position), \(region), \(value.word))
                        """, logger: logger)
                }
            }
            return true
        }
    }

    public func newestWeeklyOutlook() async throws(StorageFailure) -> WeeklyOutlook? {
        let logger = logger
        return try await snapshot { connection in
            let rows = try await connection.query("SELECT max(published_on) AS newest FROM weekly_outlook", logger: logger)
            guard let newest: String = try await Self.single(rows, "newest") else { return nil }
            return try await Self.loadWeeklyOutlook(connection, publishedOn: newest, logger)
        }
    }

    public func weeklyOutlook(publishedOn: LocalDate) async throws(StorageFailure) -> WeeklyOutlook? {
        let logger = logger
        return try await snapshot { connection in
            try await Self.loadWeeklyOutlook(connection, publishedOn: publishedOn.description, logger)
        }
    }

    private static func loadWeeklyOutlook(
        _ connection: PostgresConnection, publishedOn published: String, _ logger: Logger
    ) async throws
        -> WeeklyOutlook?
    {
        guard let date = LocalDate(published) else { return nil }
        var found = false
        var conditions: String?
        for try await row in try await connection.query(
            "SELECT conditions FROM weekly_outlook WHERE published_on = \(published)", logger: logger)
        {
            found = true
            conditions = try row.makeRandomAccess().value("conditions")
        }
        guard found else { return nil }
        var days: [Int: WeeklyOutlookDay] = [:]
        for try await row in try await connection.query(
            "SELECT position, forecast_date, confidence_word FROM weekly_outlook_day WHERE published_on = \(published)", logger: logger)
        {
            let row = row.makeRandomAccess()
            guard let forecastDate = LocalDate(try row.value("forecast_date", as: String.self)) else { continue }
            days[try row.value("position")] = WeeklyOutlookDay(
                date: forecastDate, confidence: try row.value("confidence_word", as: String?.self).map { OutlookGrade(word: $0) })
        }
        for try await row in try await connection.query(
            "SELECT position, region, word FROM weekly_outlook_grade WHERE published_on = \(published)", logger: logger)
        {
            let row = row.makeRandomAccess()
            let position: Int = try row.value("position")
            let name: String = try row.value("region")
            let grade = OutlookGrade(word: try row.value("word", as: String.self))
            if let region = ForecastRegion(rawValue: name) {
                days[position]?.byRegion[region] = grade
            } else {
                days[position]?.unmatchedRegions[name] = grade
            }
        }
        return WeeklyOutlook(publishedOn: date, days: days.keys.sorted().compactMap { days[$0] }, conditions: conditions)
    }

    // MARK: - Alerts

    /// Every rule's stored state, by rule text; a state this version does not know is left out.
    public func alertStates() async throws(StorageFailure) -> [String: AlertState] {
        let logger = logger
        return try await reading { connection in
            var states: [String: AlertState] = [:]
            for try await row in try await connection.query("SELECT rule, state FROM alert_state", logger: logger) {
                let row = row.makeRandomAccess()
                states[try row.value("rule")] = AlertState(rawValue: try row.value("state"))
            }
            return states
        }
    }

    public func saveAlertTransition(
        rule: String, state: AlertState, event: AlertEvent?, at: Date
    ) async throws(StorageFailure) -> AlertEvent? {
        let logger = logger
        let changed = Int64(at.timeIntervalSince1970)
        return try await writing { connection in
            try await connection.query(
                """
                INSERT INTO alert_state (rule, state, changed_at) VALUES (\(rule), \(state.rawValue), \(changed))
                ON CONFLICT (rule) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at
                """, logger: logger)
            guard let event else { return nil }
            return try await Self.insert(event, connection, logger)
        }
    }

    public func saveAlertEvent(_ event: AlertEvent) async throws(StorageFailure) -> AlertEvent {
        let logger = logger
        return try await writing { connection in try await Self.insert(event, connection, logger) }
    }

    public func recordAlertDelivery(_ delivery: AlertDelivery) async throws(StorageFailure) {
        let logger = logger
        _ = try await writing { connection in
            try await connection.query(
                """
                INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail)
                VALUES (\(delivery.eventID), \(delivery.sink), \(delivery.attempt), \(Int64(delivery.at.timeIntervalSince1970)),
                        \(delivery.outcome.rawValue), \(delivery.detail))
                """, logger: logger)
        }
    }

    /// The newest events, newest first, each with its deliveries in order, from one snapshot. A kind
    /// or outcome this version does not know reads as a test event and a failed delivery.
    public func recentAlertEvents(limit: Int) async throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])] {
        let logger = logger
        let recent: [RecordedEvent] = try await snapshot { connection in
            var events: [AlertEvent] = []
            for try await row in try await connection.query(
                "SELECT id, at, kind, rule, metric, value, station FROM alert_event ORDER BY id DESC LIMIT \(limit)", logger: logger)
            {
                let row = row.makeRandomAccess()
                let recorded = AlertEvent.parse(recordedRule: try row.value("rule"))
                events.append(
                    AlertEvent(
                        id: try row.value("id"), kind: AlertEvent.Kind(rawValue: try row.value("kind")) ?? .test, rule: recorded.rule,
                        metric: try row.value("metric", as: String?.self).flatMap(AlertMetric.init(rawValue:)),
                        value: try row.value("value"),
                        station: try row.value("station"), at: Self.date(try row.value("at")), people: recorded.people))
            }
            var result: [RecordedEvent] = []
            for event in events {
                var deliveries: [AlertDelivery] = []
                for try await row in try await connection.query(
                    "SELECT sink, attempt, at, outcome, detail FROM alert_delivery WHERE event_id = \(event.id) ORDER BY id", logger: logger
                ) {
                    let row = row.makeRandomAccess()
                    deliveries.append(
                        AlertDelivery(
                            eventID: event.id, sink: try row.value("sink"), attempt: try row.value("attempt"),
                            at: Self.date(try row.value("at")),
                            outcome: AlertDelivery.Outcome(rawValue: try row.value("outcome")) ?? .failed, detail: try row.value("detail")))
                }
                result.append(RecordedEvent(event: event, deliveries: deliveries))
            }
            return result
        }
        return recent.map { ($0.event, $0.deliveries) }
    }

    /// An event and its deliveries, as one Sendable value across the transaction.
    private struct RecordedEvent: Sendable {
        var event: AlertEvent
        var deliveries: [AlertDelivery]
    }

    /// The people an event names travel in its `rule` column (`AlertEvent.recordedRule`), as in SQLite.
    private static func insert(_ event: AlertEvent, _ connection: PostgresConnection, _ logger: Logger) async throws -> AlertEvent {
        let rows = try await connection.query(
            """
            INSERT INTO alert_event (at, kind, rule, metric, value, station)
            VALUES (\(Int64(event.at.timeIntervalSince1970)), \(event.kind.rawValue), \(event.recordedRule), \(event.metric?.rawValue),
                    \(event.value), \(event.station))
            RETURNING id
            """, logger: logger)
        var saved = event
        if let id: Int64 = try await single(rows, "id") { saved.id = id }
        return saved
    }

    // MARK: - Advisories

    /// Stores advisories in one transaction, one row per pollutant and key; a revision replaces the
    /// row. Returns how many were new or changed.
    public func saveAdvisories(_ advisories: [Advisory], fetchedAt: Date) async throws(StorageFailure) -> Int {
        let logger = logger
        let fetched = Self.seconds(fetchedAt)
        return try await writing { connection in
            var changed = 0
            for advisory in advisories {
                let rows = try await connection.query(
                    """
                    INSERT INTO advisory (pollutant, advisory_key, district, area, level_word, issued_at, cleared_at,
                                          issue_value, clear_value, max_value, fetched_at)
                    VALUES (\(advisory.pollutant.rawValue), \(advisory.key), \(advisory.district), \(advisory.area), \(advisory.level.word),
                            \(Self.seconds(advisory.issuedAt)), \(advisory.clearedAt.map(Self.seconds)), \(advisory.issueValue),
                            \(advisory.clearValue), \(advisory.maxValue), \(fetched))
                    ON CONFLICT (pollutant, advisory_key) DO UPDATE SET
                        district = excluded.district, area = excluded.area, level_word = excluded.level_word,
                        issued_at = excluded.issued_at, cleared_at = excluded.cleared_at, issue_value = excluded.issue_value,
                        clear_value = excluded.clear_value, max_value = excluded.max_value, fetched_at = excluded.fetched_at
                    WHERE advisory.district IS DISTINCT FROM excluded.district OR advisory.area IS DISTINCT FROM excluded.area
                        OR advisory.level_word IS DISTINCT FROM excluded.level_word
                        OR advisory.issued_at IS DISTINCT FROM excluded.issued_at
                        OR advisory.cleared_at IS DISTINCT FROM excluded.cleared_at
                        OR advisory.issue_value IS DISTINCT FROM excluded.issue_value
                        OR advisory.clear_value IS DISTINCT FROM excluded.clear_value
                        OR advisory.max_value IS DISTINCT FROM excluded.max_value
                    RETURNING 1 AS changed
                    """, logger: logger)
                for try await _ in rows { changed += 1 }
            }
            return changed
        }
    }

    public func advisories(from start: Date, to end: Date) async throws(StorageFailure) -> [Advisory] {
        let logger = logger
        let low = Self.seconds(start)
        let high = Self.seconds(end)
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT * FROM advisory
                WHERE (issued_at >= \(low) AND issued_at < \(high)) OR (issued_at < \(low) AND (cleared_at IS NULL OR cleared_at > \(low)))
                ORDER BY issued_at DESC, pollutant, advisory_key
                """, logger: logger)
            return try await Self.advisories(rows)
        }
    }

    public func activeAdvisories(at now: Date) async throws(StorageFailure) -> [Advisory] {
        let logger = logger
        let instant = Self.seconds(now)
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT * FROM advisory WHERE issued_at <= \(instant) AND (cleared_at IS NULL OR cleared_at > \(instant))
                ORDER BY issued_at DESC, pollutant, advisory_key
                """, logger: logger)
            return try await Self.advisories(rows)
        }
    }

    /// The rows as advisories, by column name; a pollutant this version does not know is left out.
    private static func advisories(_ rows: PostgresRowSequence) async throws -> [Advisory] {
        var advisories: [Advisory] = []
        for try await row in rows {
            let row = row.makeRandomAccess()
            guard let pollutant = AdvisoryPollutant(rawValue: try row.value("pollutant")) else { continue }
            advisories.append(
                Advisory(
                    pollutant: pollutant, key: try row.value("advisory_key"), district: try row.value("district"),
                    area: try row.value("area"), level: AdvisoryLevel(word: try row.value("level_word")),
                    issuedAt: date(try row.value("issued_at")), clearedAt: try row.value("cleared_at", as: Int64?.self).map(date),
                    issueValue: try row.value("issue_value"), clearValue: try row.value("clear_value"), maxValue: try row.value("max_value")
                ))
        }
        return advisories
    }
}
