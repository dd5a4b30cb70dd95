import DustKit
import DustServices
import Foundation

// One person's data as a whole (docs/REFERENCE.md §13, "Who may see whose data"): their export,
// their removal from every table, and the retention of positions.

extension SQLDatabase {
    public func forEachPersonRecord(
        _ person: String, _ each: @escaping @Sendable (PersonRecord) throws -> Void
    ) async throws(StorageFailure) {
        let forms = PersonTables.forms(of: person)
        try await read { session in
            try session.forEachRow(
                "SELECT source, slot_start, distance_m, imported_at FROM activity_source WHERE person IN (?, ?) ORDER BY source, slot_start",
                forms
            ) { row in
                try each(
                    .walking(
                        .init(
                            source: try row.string("source"), slotStart: try row.int64("slot_start"), metres: try row.double("distance_m"),
                            importedAt: try row.int64("imported_at"))))
            }
            for (table, isResting) in [("heart_rate", false), ("resting_heart_rate", true)] {
                try session.forEachRow(
                    "SELECT source, at, beats_per_minute, imported_at FROM \(table) WHERE person IN (?, ?) ORDER BY at, source", forms
                ) { row in
                    let sample = PersonRecords.HeartRate(
                        source: try row.string("source"), at: try row.int64("at"), beatsPerMinute: try row.double("beats_per_minute"),
                        importedAt: try row.int64("imported_at"))
                    try each(isResting ? .restingHeartRate(sample) : .heartRate(sample))
                }
            }
            try session.forEachRow(
                "SELECT source, start_at, end_at, imported_at FROM sleep_interval WHERE person IN (?, ?) ORDER BY start_at, source",
                forms
            ) { row in
                try each(
                    .sleep(
                        .init(
                            source: try row.string("source"), start: try row.int64("start_at"), end: try row.int64("end_at"),
                            importedAt: try row.int64("imported_at"))))
            }
            try session.forEachRow(
                "SELECT source, minute, latitude, longitude, imported_at FROM track_position WHERE person IN (?, ?) ORDER BY minute, source",
                forms
            ) { row in
                try each(
                    .position(
                        .init(
                            source: try row.string("source"), minute: try row.int64("minute"), latitude: try row.double("latitude"),
                            longitude: try row.double("longitude"), importedAt: try row.int64("imported_at"))))
            }
            for event in try PersonAlerts.events(session) where PersonAlerts.concerns(event, person) {
                try each(
                    .alert(
                        .init(
                            at: event.at, kind: event.kind, rule: event.rule, metric: event.metric, value: event.value,
                            station: event.station)))
            }
        }
    }

    /// Removes every row of `person`, then what the engine keeps of removed rows (`eraseRemovedRows`):
    /// a forgotten person's heart rate is not to be read back from the file. The rewrite runs every
    /// time, even when nothing was left to remove: a run whose rewrite failed (a full disk: SQLite's
    /// needs room for a second copy) is finished by running it again. Its failure says that the rows
    /// are gone and the file still to be rewritten, not "nothing was written".
    public func forgetPerson(_ person: String) async throws(StorageFailure) -> PersonRemoval {
        let removal = try await removePerson(person)
        do {
            try await eraseRemovedRows()
        } catch {
            let removed = removal.total > 0 ? "\(removal.summary) removed" : "Nothing was left to remove"
            throw StorageFailure(
                kind: error.kind,
                description:
                    "\(removed), but the file could not be rewritten to erase what removed rows leave in it: \(error.description) Free what it asks for and run the command again to finish.",
                detail: error.detail)
        }
        return removal
    }

    private func removePerson(_ person: String) async throws(StorageFailure) -> PersonRemoval {
        try await write { session in
            var removal = PersonRemoval()
            let forms = PersonTables.forms(of: person)
            for (table, kind) in PersonTables.records {
                removal[kind] = try session.execute("DELETE FROM \(table) WHERE person IN (?, ?)", forms)
            }
            for form in NameForm.storedForms(of: person) {
                removal[.keptPlaces] += try PlaceRule.forget(person: form, session)
            }
            for row in try session.rows("SELECT rule FROM alert_state") {
                let key = try row.string("rule")
                if PersonAlerts.stateKey(key, belongsTo: person) {
                    removal[.alertStates] += try session.execute("DELETE FROM alert_state WHERE rule = ?", key)
                }
            }
            for event in try PersonAlerts.events(session) where PersonAlerts.concerns(event, person) {
                let others = AlertEvent.parse(recordedRule: event.rule).people.filter { $0 != person }
                if others.isEmpty {
                    // Deliveries first: SQLite enforces the cascade only with foreign keys switched on.
                    try session.execute("DELETE FROM alert_delivery WHERE event_id = ?", event.id)
                    try session.execute("DELETE FROM alert_event WHERE id = ?", event.id)
                } else {
                    // An event about several people stays theirs, without this one's name.
                    let rule = AlertEvent.parse(recordedRule: event.rule).rule + " for " + others.joined(separator: ", ")
                    try session.execute("UPDATE alert_event SET rule = ? WHERE id = ?", rule, event.id)
                }
                removal[.alertEvents] += 1
            }
            return removal
        }
    }

    public func prunePositions(_ retention: Retention) async throws(StorageFailure) -> PersonRemoval {
        try await write { session in
            var removal = PersonRemoval()
            guard let cutoff = try session.cutoff(retention) else { return removal }
            let bound = SQLTime.minuteBound(cutoff)
            // Each person's pruned span: the kept places of those hours were weighed from these positions.
            let spans = try session.rows(
                "SELECT person, min(minute) AS first, max(minute) AS last FROM track_position WHERE minute < ? GROUP BY person", bound)
            guard !spans.isEmpty else { return removal }
            removal[.positions] = try session.execute("DELETE FROM track_position WHERE minute < ?", bound)
            for span in spans {
                let person = try span.string("person")
                let (first, last) = (SQLTime.date(try span.int64("first")), SQLTime.date(try span.int64("last")))
                // A position covers the minutes after it (`TrackCoverage.positionCover`), so its hour's neighbour too.
                let through = last.addingTimeInterval(TrackCoverage.positionCover)
                removal[.keptPlaces] += try PlaceRule.forget(person: person, from: first, through: through, session)
            }
            return removal
        }
    }
}

/// The tables whose rows are a person's own records, keyed by `person`, with what a removal calls them;
/// their kept places (`slot_place`) and alerts follow their own rules.
enum PersonTables {
    /// `person` as configured (composed) and decomposed, the two values `person IN (?, ?)` takes: a
    /// FineDust before names were composed where they come in stored a Mac's decomposed `--person`
    /// as given (docs/RELIABILITY.md, "The identity of names"), and a person's export and removal
    /// are to reach those rows too.
    static func forms(of person: String) -> [SQLValue] {
        [person.sqlValue, NameForm.decomposed(person).sqlValue]
    }

    static let records: [(table: String, kind: PersonRemoval.Kind)] = [
        ("activity_source", .walking), ("heart_rate", .heartRate), ("resting_heart_rate", .restingHeartRate),
        ("sleep_interval", .sleep), ("track_position", .positions),
    ]
}

/// Which alert rows are a person's: the states of their (rule, person) pairs (`AlertStateKey`) and
/// the events that name them; for `me` without `people:`, whose keys and events name nobody, the
/// states without a person and the events of their own dose (the others are the air's).
private enum PersonAlerts {
    struct Event {
        var id: Int64
        var at: Int64
        var kind: String
        var rule: String
        var metric: String?
        var value: Double?
        var station: String
    }

    static func events(_ session: any SQLSession) throws -> [Event] {
        try session.rows("SELECT id, at, kind, rule, metric, value, station FROM alert_event ORDER BY id").map { row in
            Event(
                id: try row.int64("id"), at: try row.int64("at"), kind: try row.string("kind"), rule: try row.string("rule"),
                metric: try row.optionalString("metric"), value: try row.optionalDouble("value"), station: try row.string("station"))
        }
    }

    static func concerns(_ event: Event, _ person: String) -> Bool {
        let people = AlertEvent.parse(recordedRule: event.rule).people
        if people.contains(person) { return true }
        return person == Person.defaultName && people.isEmpty && event.metric.flatMap(AlertMetric.init(rawValue:))?.isPersonal == true
    }

    static func stateKey(_ key: String, belongsTo person: String) -> Bool {
        guard let range = key.range(of: " for ") else { return person == Person.defaultName }
        return key[range.upperBound...] == person
    }
}
