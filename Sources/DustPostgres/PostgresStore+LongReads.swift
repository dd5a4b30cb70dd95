import DustKit
import DustServices
import Foundation
import PostgresNIO

// The two long reads of §19's weighting in PostgreSQL's own words (docs/PERFORMANCE.md): the stations'
// dust by `= ANY` of an array, and one position a minute by `DISTINCT ON`. Every other statement is
// the shared statements' (DustSQL).

extension PostgresStore: PollStore, StationStore, ActivityStore, PhysiologyStore, PositionStore, SlotPlaceStore {
    /// The stored readings of `stations` for slots starting in `[from, to)`, by slot, then station.
    /// PM10 and PM2.5 of `stations` over `[from, to)` by slot, then station name, each station by its
    /// index in `stations` (ReadingStore): three columns a row, decoded by position, none of the rest.
    public func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty, from < to else { return [] }
        let indexByName = Dictionary(stations.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT slot_start, station, pm10, pm25 FROM measurement
                WHERE station = ANY(\(stations)::text[])
                  AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                ORDER BY slot_start, station
                """, logger: logger)
            var result: [StationDust] = []
            for try await (slot, station, pm10, pm25) in rows.decode((Int64, String, Double?, Double?).self) {
                guard let index = indexByName[station] else { continue }
                result.append(
                    StationDust(
                        slot: Slot(startEpochSeconds: slot), station: index, concentration: DustPair(fineDust: pm10, ultraFineDust: pm25)))
            }
            return result
        }
    }

    public func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        let logger = logger
        return try await reading { connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT ON (minute) minute, latitude, longitude FROM track_position
                WHERE person = \(person) AND minute >= \(Self.minuteBound(from)) AND minute < \(Self.minuteBound(to))
                ORDER BY minute, source
                """, logger: logger)
            var points: [TrackPoint] = []
            for try await (minute, latitude, longitude) in rows.decode((Int64, Double, Double).self) {
                points.append(TrackPoint(at: Self.date(minute), latitude: latitude, longitude: longitude))
            }
            return points
        }
    }

    private static func minuteBound(_ instant: Date) -> Int64 { Int64(instant.timeIntervalSince1970.rounded(.up)) }

    // MARK: - Helpers

    /// A time as every `*_at` column holds it: whole seconds since 1970.
    static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

    /// The one column of the one row a query returns; nil when no row or NULL.
    static func single<T: PostgresDecodable>(_ rows: PostgresRowSequence, _ column: String) async throws -> T? where T._DecodableType == T {
        var value: T?
        for try await row in rows { value = try row.makeRandomAccess()[column].decode(T?.self) }
        return value
    }
}

extension PostgresRandomAccessRow {
    /// The column `name` decoded as `T` (an optional for a column that may be NULL): rows are read by
    /// column name, as in the SQLite store.
    func value<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try self[name].decode(T.self)
    }
}
