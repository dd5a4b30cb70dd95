import DustKit
import DustServices
import Foundation

// Indoor samples and the sensors' states (docs/REFERENCE.md §21).

extension SQLDatabase {
    public func indoorSeries(sensors: [String], from: Date, to: Date) async throws(StorageFailure) -> [IndoorSeries] {
        guard !sensors.isEmpty else { return [] }
        let (first, end) = (SQLTime.minuteBound(from), SQLTime.minuteBound(to))
        return try await read { session in
            var found: [IndoorSeries] = []
            for sensor in sensors.sorted() {
                var series = IndoorSeries(sensor: sensor)
                try session.forEachRow(
                    "SELECT minute, pm25, pm10, hold_seconds FROM indoor_sample WHERE sensor = ? AND minute >= ? AND minute < ? ORDER BY minute",
                    [.text(sensor), .integer(first), .integer(end)]
                ) { row in
                    // By position (the statement's own order): a week of two monitors is 20,000 rows.
                    let values = row.values
                    guard case .integer(let minute) = values[0], case .integer(let hold) = values[3] else {
                        throw SQLDecodingError(column: "minute", found: values[0])
                    }
                    series.append(
                        minute: minute, value: DustPair(fineDust: try Self.real(values[2]), ultraFineDust: try Self.real(values[1])),
                        hold: Int(hold))
                }
                if series.count > 0 { found.append(series) }
            }
            return found
        }
    }

    /// A REAL column's value: nil for NULL, an INTEGER as its Double; anything else is a damaged row.
    private static func real(_ value: SQLValue) throws(SQLDecodingError) -> Double? {
        switch value {
        case .real(let real): real
        case .integer(let integer): Double(integer)
        case .null: nil
        default: throw SQLDecodingError(column: "pm25/pm10", found: value)
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

    public func saveIndoor(samples: [IndoorSample], states: [IndoorSensorState]) async throws(StorageFailure) {
        guard !samples.isEmpty || !states.isEmpty else { return }
        try await write { session in
            try insertIndoorSamples(samples, session)
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
        guard let first = series.first, let last = series.last else { return }
        try await write { session in
            try session.execute(
                "DELETE FROM indoor_sample WHERE sensor = ? AND minute >= ? AND minute <= ?", series.sensor, SQLTime.seconds(first),
                SQLTime.seconds(last))
            // Row by row from the columns: a year of minutes is never held as rows.
            try session.insertRows(
                into: "indoor_sample", columns: indoorSampleColumns,
                rows: series.minutes.indices.lazy.map { index in
                    let (pm25, pm10) = (series.pm25[index], series.pm10[index])
                    return [
                        .text(series.sensor), .integer(series.minutes[index]), pm25.isNaN ? .null(.real) : .real(pm25),
                        pm10.isNaN ? .null(.real) : .real(pm10), .integer(Int64(series.holdSeconds)),
                    ]
                }, conflict: indoorSampleConflict)
        }
    }

    public func newestIndoorSample(sensor: String, before: Date) async throws(StorageFailure) -> Date? {
        try await read { session in
            try session.row(
                "SELECT max(minute) AS newest FROM indoor_sample WHERE sensor = ? AND minute < ?", sensor, SQLTime.minuteBound(before))?
                .optionalInt64("newest").map(SQLTime.date)
        }
    }

    public func pruneIndoorSamples(before cutoff: Date) async throws(StorageFailure) -> Int {
        try await write { session in try session.execute("DELETE FROM indoor_sample WHERE minute < ?", SQLTime.minuteBound(cutoff)) }
    }
}

private let indoorSampleColumns = [
    SQLColumn("sensor", .text, key: true), SQLColumn("minute", .integer, key: true), SQLColumn("pm25", .real),
    SQLColumn("pm10", .real), SQLColumn("hold_seconds", .integer),
]
private let indoorSampleConflict =
    "ON CONFLICT (sensor, minute) DO UPDATE SET pm25 = excluded.pm25, pm10 = excluded.pm10, hold_seconds = excluded.hold_seconds"

private func insertIndoorSamples(_ samples: [IndoorSample], _ session: any SQLSession) throws {
    try session.insertRows(
        into: "indoor_sample",
        columns: indoorSampleColumns,
        rows: samples.lazy.map { sample in
            [
                .text(sample.sensor), .integer(SQLTime.seconds(sample.at)), sample.value.ultraFineDust.sqlValue,
                sample.value.fineDust.sqlValue, .integer(Int64(sample.holdSeconds)),
            ]
        },
        conflict: indoorSampleConflict)
}
