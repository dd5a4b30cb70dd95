import DustKit
import DustServices
import Foundation

// Indoor samples and the sensors' states (docs/REFERENCE.md §21). Samples are kept a row per sensor and
// hour (`indoor_hour`), each hour's samples packed by `IndoorHourRecord`: a week is read as 168 rows a
// sensor, and a minute's sample is written by rewriting its hour's row.

extension SQLDatabase {
    public func indoorSeries(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSeries] {
        guard !sensors.isEmpty else { return [] }
        let (first, end) = (SQLTime.minuteBound(from), SQLTime.minuteBound(to))
        return try await read { session in
            var found: [IndoorSeries] = []
            for sensor in sensors.sorted() {
                var series = IndoorSeries(sensor: sensor)
                series.reserveCapacity(Int(min(max(0, end - first) / 60, 20_160)))  // a week and its hour before, at most
                try session.forEachRow(
                    "SELECT slot_start, samples FROM indoor_hour WHERE sensor = ? AND slot_start >= ? AND slot_start < ? ORDER BY slot_start",
                    [.text(sensor), .integer(hourStart(first)), .integer(end)]
                ) { row in
                    // By position, in place: a week of two monitors is 20,000 samples.
                    guard case .integer(let slot) = row.values[0], case .blob(let bytes) = row.values[1],
                        IndoorHourRecord.append(bytes, slot: slot, from: first, to: end, to: &series)
                    else { throw SQLDecodingError(column: "samples", found: row.values[1]) }
                }
                if series.count > 0 { found.append(series) }
            }
            return found
        }
    }

    public func indoorSensorStates() async throws(StorageFailure) -> [IndoorSensorState] {
        try await read { session in
            try session.rows(
                "SELECT sensor, kind, checked_at, last_sample_at, problem, problem_since, unknown_samples FROM indoor_sensor ORDER BY sensor"
            ).map { row in
                IndoorSensorState(
                    sensor: try row.string("sensor"), kind: try row.string("kind"),
                    checkedAt: try row.optionalInt64("checked_at").map(SQLTime.date),
                    lastSampleAt: try row.optionalInt64("last_sample_at").map(SQLTime.date), problem: try row.optionalString("problem"),
                    problemSince: try row.optionalInt64("problem_since").map(SQLTime.date), unknownSamples: try row.int("unknown_samples"))
            }
        }
    }

    public func indoorSensorsStored() async throws(StorageFailure) -> [(sensor: String, newestHour: Date)] {
        try await read { session in
            try session.rows("SELECT sensor, max(slot_start) AS newest FROM indoor_hour GROUP BY sensor ORDER BY sensor").map { row in
                StoredSensor(sensor: try row.string("sensor"), newestHour: SQLTime.date(try row.int64("newest")))
            }
        }.map { ($0.sensor, $0.newestHour) }
    }

    public func saveIndoor(samples: [IndoorSample], states: [IndoorSensorState]) async throws(StorageFailure) {
        guard !samples.isEmpty || !states.isEmpty else { return }
        try await write { session in
            // Each hour a sample falls in: its stored samples, these written over them minute by minute.
            let byHour = Dictionary(grouping: samples) { HourKey(sensor: $0.sensor, slot: hourStart(SQLTime.seconds($0.at))) }
            for key in byHour.keys.sorted(by: { ($0.sensor, $0.slot) < ($1.sensor, $1.slot) }) {
                var entries = try storedEntries(key, session)
                for sample in byHour[key]! {
                    entries.append(
                        IndoorHourRecord.Entry(
                            minute: Int((SQLTime.seconds(sample.at) - key.slot) / 60), hold: sample.holdSeconds,
                            pm25: sample.value.ultraFineDust ?? .nan, pm10: sample.value.fineDust ?? .nan))
                }
                try writeHour(key, entries, session)
            }
            for state in states {
                try session.execute(
                    """
                    INSERT INTO indoor_sensor (sensor, kind, checked_at, last_sample_at, problem, problem_since, unknown_samples)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (sensor) DO UPDATE SET kind = excluded.kind, checked_at = excluded.checked_at,
                        last_sample_at = excluded.last_sample_at, problem = excluded.problem,
                        problem_since = excluded.problem_since, unknown_samples = excluded.unknown_samples
                    """, state.sensor, state.kind, state.checkedAt.map(SQLTime.seconds), state.lastSampleAt.map(SQLTime.seconds),
                    state.problem, state.problemSince.map(SQLTime.seconds), state.unknownSamples)
            }
        }
    }

    public func importIndoorSeries(_ series: IndoorSeries) async throws(StorageFailure) {
        guard let firstDate = series.first, let lastDate = series.last else { return }
        let (first, last) = (SQLTime.seconds(firstDate), SQLTime.seconds(lastDate))
        try await write { session in
            // Each hour the file has a row in is the file's (the hours at either end keep what they hold
            // outside the file's span); an hour it has no row in keeps what is stored. Before, every hour
            // between the first row and the last was emptied: one stray row dated 2000 (a monitor without a
            // clock after a power cut) removed months of samples (docs/RELIABILITY.md, "seventeenth session").
            var edges: [Int64: [IndoorHourRecord.Entry]] = [:]
            for slot in Set([hourStart(first), hourStart(last)]) {
                edges[slot] = try storedEntries(HourKey(sensor: series.sensor, slot: slot), session).filter { entry in
                    let minute = slot + Int64(entry.minute * 60)
                    return minute < first || minute > last
                }
            }
            // Hour by hour from the columns: a year of minutes is never held as rows.
            // By minute, a minute given twice in the file's order (`encode` keeps the last of a minute).
            let order = series.minutes.indices.sorted { (series.minutes[$0], $0) < (series.minutes[$1], $1) }
            var position = 0
            try session.insertRows(
                into: "indoor_hour",
                columns: [
                    SQLColumn("sensor", .text, key: true), SQLColumn("slot_start", .integer, key: true), SQLColumn("samples", .blob),
                ],
                rows: AnyIterator { () -> [SQLValue]? in
                    guard position < order.count else { return nil }
                    let slot = hourStart(series.minutes[order[position]])
                    var entries = edges[slot] ?? []
                    while position < order.count, hourStart(series.minutes[order[position]]) == slot {
                        let index = order[position]
                        entries.append(
                            IndoorHourRecord.Entry(
                                minute: Int((series.minutes[index] - slot) / 60), hold: Int(series.holds[index]), pm25: series.pm25[index],
                                pm10: series.pm10[index]))
                        position += 1
                    }
                    return [.text(series.sensor), .integer(slot), .blob(IndoorHourRecord.encode(entries))]
                }, conflict: "ON CONFLICT (sensor, slot_start) DO UPDATE SET samples = excluded.samples")
        }
    }

    public func newestIndoorSample(sensor: String, before: Date) async throws(StorageFailure) -> Date? {
        let bound = SQLTime.minuteBound(before)
        return try await read { session in
            for row in try session.rows(
                "SELECT slot_start, samples FROM indoor_hour WHERE sensor = ? AND slot_start < ? ORDER BY slot_start DESC LIMIT 2", sensor,
                bound)
            {
                let slot = try row.int64("slot_start")
                if let newest = try entries(row).map({ slot + Int64($0.minute * 60) }).filter({ $0 < bound }).max() {
                    return SQLTime.date(newest)
                }
            }
            return nil
        }
    }

    /// Removes the hours that ended by the cutoff of `retention`; returns how many samples they held.
    public func pruneIndoorSamples(_ retention: Retention) async throws(StorageFailure) -> Int {
        try await write { session in
            guard let cutoff = try session.cutoff(retention) else { return 0 }
            let bound = hourStart(SQLTime.seconds(cutoff)) - 3600
            let bytes =
                try session.row("SELECT sum(length(samples)) AS bytes FROM indoor_hour WHERE slot_start <= ?", bound)?
                .optionalInt64("bytes") ?? 0
            try session.execute("DELETE FROM indoor_hour WHERE slot_start <= ?", bound)
            return Int(bytes) / IndoorHourRecord.recordBytes
        }
    }
}

/// A tuple is not `Sendable` across the engine's thread; this is.
private struct StoredSensor: Sendable {
    var sensor: String
    var newestHour: Date
}

/// A sensor's hour.
private struct HourKey: Hashable {
    var sensor: String
    var slot: Int64
}

/// The start of the hour containing `seconds`.
private func hourStart(_ seconds: Int64) -> Int64 { Slot(containing: SQLTime.date(seconds)).startEpochSeconds }

/// An hour row's samples; a row that is not `IndoorHourRecord`s is a damaged database.
private func entries(_ row: SQLRow) throws -> [IndoorHourRecord.Entry] {
    let bytes = try row.bytes("samples")
    guard let entries = IndoorHourRecord.decode(bytes) else { throw SQLDecodingError(column: "samples", found: .blob(bytes)) }
    return entries
}

private func storedEntries(_ key: HourKey, _ session: any SQLSession) throws -> [IndoorHourRecord.Entry] {
    guard let row = try session.row("SELECT samples FROM indoor_hour WHERE sensor = ? AND slot_start = ?", key.sensor, key.slot) else {
        return []
    }
    return try entries(row)
}

/// Writes an hour's samples (the last of a minute given twice wins), or removes the row when there are none.
private func writeHour(_ key: HourKey, _ entries: [IndoorHourRecord.Entry], _ session: any SQLSession) throws {
    guard !entries.isEmpty else {
        try session.execute("DELETE FROM indoor_hour WHERE sensor = ? AND slot_start = ?", key.sensor, key.slot)
        return
    }
    try session.execute(
        "INSERT INTO indoor_hour (sensor, slot_start, samples) VALUES (?, ?, ?) ON CONFLICT (sensor, slot_start) DO UPDATE SET samples = excluded.samples",
        key.sensor, key.slot, IndoorHourRecord.encode(entries))
}

extension IndoorHourRecord.Entry {
    /// The sample's values, unknown for NaN.
    fileprivate var value: DustPair<Double?> { DustPair(fineDust: pm10.isNaN ? nil : pm10, ultraFineDust: pm25.isNaN ? nil : pm25) }
}
