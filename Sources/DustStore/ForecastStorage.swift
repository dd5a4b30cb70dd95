import DustKit
import DustServices
import Foundation
import GRDB

extension SQLiteStore: ForecastStore {
    /// Stores forecasts in one transaction; storing the same issue again changes nothing, a
    /// changed issue (AirKorea re-published it) replaces its text and grades. Returns how many
    /// (pollutant, issue, date) rows were new or changed.
    @discardableResult
    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date = Date()) throws(StorageFailure) -> Int {
        try writing { db in
            let issue = try db.cachedStatement(
                sql: """
                    INSERT INTO forecast_issue (pollutant, issued_at, forecast_date, overall, cause, fetched_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (pollutant, issued_at, forecast_date) DO UPDATE SET
                        overall = excluded.overall, cause = excluded.cause, fetched_at = excluded.fetched_at
                    WHERE overall IS NOT excluded.overall OR cause IS NOT excluded.cause
                    """)
            let grade = try db.cachedStatement(
                sql: """
                    INSERT INTO forecast_grade (pollutant, issued_at, forecast_date, region, grade, grade_word)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (pollutant, forecast_date, region, issued_at) DO UPDATE SET
                        grade = excluded.grade, grade_word = excluded.grade_word
                    WHERE grade IS NOT excluded.grade OR grade_word IS NOT excluded.grade_word
                    """)
            let fetched = Int64(fetchedAt.timeIntervalSince1970)
            var changed = 0
            for forecast in forecasts {
                let issued = Int64(forecast.issuedAt.timeIntervalSince1970)
                let key: [any DatabaseValueConvertible] = [forecast.pollutant.rawValue, issued, forecast.forecastDate.description]
                var rowsChanged = 0
                try issue.execute(arguments: StatementArguments(key + [forecast.overall, forecast.cause, fetched]))
                rowsChanged += db.changesCount
                for region in ForecastRegion.allCases {
                    guard let value = forecast.grades.byRegion[region] else { continue }
                    try grade.execute(arguments: StatementArguments(key + [region.rawValue, value.grade?.rawValue, value.word]))
                    rowsChanged += db.changesCount
                }
                if rowsChanged > 0 { changed += 1 }
            }
            return changed
        }
    }

    /// The newest issue time stored for `pollutant`, if any.
    public func newestForecastIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? {
        try reading { db in
            try Int64.fetchOne(db, sql: "SELECT max(issued_at) FROM forecast_issue WHERE pollutant = ?", arguments: [pollutant.rawValue])
                .map { Date(timeIntervalSince1970: TimeInterval($0)) }
        }
    }

    /// The grade of `region` for `date` from the newest issue that graded that region for that date.
    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        try reading { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT g.issued_at, g.grade, g.grade_word, i.overall, i.cause
                        FROM forecast_grade g
                        LEFT JOIN forecast_issue i
                          ON i.pollutant = g.pollutant AND i.issued_at = g.issued_at AND i.forecast_date = g.forecast_date
                        WHERE g.pollutant = ? AND g.forecast_date = ? AND g.region = ?
                        ORDER BY g.issued_at DESC LIMIT 1
                        """, arguments: [pollutant.rawValue, date.description, region.rawValue])
            else { return nil }
            let grade: ForecastGrade = Self.grade(row["grade"]).map { .known($0) } ?? .unknown(row["grade_word"])
            return RegionalForecast(
                pollutant: pollutant, region: region, forecastDate: date,
                issuedAt: Date(timeIntervalSince1970: TimeInterval(row["issued_at"] as Int64)),
                grade: grade, overall: row["overall"], cause: row["cause"])
        }
    }

    /// The province and address stored for a station, if it is known at all.
    public func stationLocation(name: String) throws(StorageFailure) -> StationLocation? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT sido, address FROM station WHERE name = ?", arguments: [name])
                .map { StationLocation(sido: $0["sido"], address: $0["address"]) }
        }
    }
}
