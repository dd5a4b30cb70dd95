import DustServices
import Foundation

// The one place a removal keyed on time finds its cutoff (`Retention`).

extension SQLSession {
    /// The instant before which `retention` removes rows, or nil for none: counted back from `now`, or
    /// from the end of the newest stored hour of any station when that is earlier. One probe of
    /// measurement's key per station (every station with readings is in `station`).
    func cutoff(_ retention: Retention) throws -> Date? {
        let newest = try row(
            """
            SELECT max(newest) AS newest FROM (
                SELECT (SELECT max(slot_start) FROM measurement WHERE measurement.station = station.name) AS newest FROM station
            ) AS newest_by_station
            """
        )?.optionalInt64("newest")
        return retention.cutoff(newestHourEnd: newest.map { SQLTime.date($0 + 3600) })
    }
}
