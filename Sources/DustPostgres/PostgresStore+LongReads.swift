import DustKit
import DustSQL
import DustServices
import Foundation
import PostgresNIO

// The two long reads of §19's weighting in PostgreSQL's own words (docs/PERFORMANCE.md): the stations'
// dust by `= ANY` of an array, and one position a minute by `DISTINCT ON`. Every other statement is
// the shared statements' (DustSQL). Both run, as every statement does, on a thread of the store's pool.

extension PostgresStore {
    /// The stored readings of `stations` for slots starting in `[from, to)`, by slot, then station.
    /// PM10 and PM2.5 of `stations` over `[from, to)` by slot, then station name, each station by its
    /// index in `stations` (ReadingStore): three columns a row, decoded by position, none of the rest.
    public func dustValues(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [StationDust] {
        guard !stations.isEmpty, from < to else { return [] }
        let indexByName = Dictionary(stations.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        return try await reading { session in
            let rows = try session.run(
                """
                SELECT slot_start, station, pm10, pm25 FROM measurement
                WHERE station = ANY(\(stations)::text[])
                  AND slot_start >= \(from.startEpochSeconds) AND slot_start < \(to.startEpochSeconds)
                ORDER BY slot_start, station
                """
            ).rows
            var result: [StationDust] = []
            result.reserveCapacity(rows.count)
            for row in rows {
                let (slot, station, pm10, pm25) = try row.decode((Int64, String, Double?, Double?).self)
                guard let index = indexByName[station] else { continue }
                // What the shared reader (`SQLRow`) refuses, refused here too (`StoredValue`).
                result.append(
                    StationDust(
                        slot: try StoredValue.slot(slot, column: "slot_start"), station: index,
                        concentration: DustPair(
                            fineDust: try pm10.flatMap { value throws(SQLDecodingError) in try StoredValue.number(value, column: "pm10") },
                            ultraFineDust: try pm25.flatMap { value throws(SQLDecodingError) in
                                try StoredValue.number(value, column: "pm25")
                            })))
            }
            return result
        }
    }

    public func trackPoints(person: String, from: Date, to: Date) async throws(StorageFailure) -> [TrackPoint] {
        return try await reading { session in
            let rows = try session.run(
                """
                SELECT DISTINCT ON (minute) minute, latitude, longitude FROM track_position
                WHERE person = \(person) AND minute >= \(SQLTime.minuteBound(from)) AND minute < \(SQLTime.minuteBound(to))
                ORDER BY minute, source
                """
            ).rows
            var points: [TrackPoint] = []
            points.reserveCapacity(rows.count)
            for row in rows {
                let (minute, latitude, longitude) = try row.decode((Int64, Double, Double).self)
                points.append(TrackPoint(at: SQLTime.date(minute), latitude: latitude, longitude: longitude))
            }
            return points
        }
    }
}
