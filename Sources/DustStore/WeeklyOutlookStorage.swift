import DustKit
import DustServices
import Foundation
import GRDB

// The weekly outlook's part of `ForecastStore` (docs/REFERENCE.md §17; tables of migration "v10-weekly-outlook").
extension SQLiteStore {
    /// Stores one publication in one transaction: unchanged, nothing is written; changed, its days
    /// and grades are replaced whole. Returns whether anything changed.
    @discardableResult
    public func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date = Date()) throws(StorageFailure) -> Bool {
        try writing { db in
            let published = outlook.publishedOn.description
            guard try Self.loadWeeklyOutlook(db, publishedOn: published) != outlook else { return false }
            for table in ["weekly_outlook_grade", "weekly_outlook_day", "weekly_outlook"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE published_on = ?", arguments: [published])
            }
            try db.execute(
                sql: "INSERT INTO weekly_outlook (published_on, conditions, fetched_at) VALUES (?, ?, ?)",
                arguments: [published, outlook.conditions, Self.seconds(fetchedAt)])
            let grade = try db.cachedStatement(
                sql: "INSERT INTO weekly_outlook_grade (published_on, position, region, word) VALUES (?, ?, ?, ?)")
            for (index, day) in outlook.days.prefix(4).enumerated() {
                let position = index + 1
                try db.execute(
                    sql: "INSERT INTO weekly_outlook_day (published_on, position, forecast_date, confidence_word) VALUES (?, ?, ?, ?)",
                    arguments: [published, position, day.date.description, day.confidence?.word])
                let named = day.byRegion.map { ($0.key.rawValue, $0.value) } + day.unmatchedRegions.map { ($0.key, $0.value) }
                for (region, value) in named {
                    try grade.execute(arguments: [published, position, region, value.word])
                }
            }
            return true
        }
    }

    /// The newest stored publication, if any.
    public func newestWeeklyOutlook() throws(StorageFailure) -> WeeklyOutlook? {
        try reading { db in
            guard let newest = try String.fetchOne(db, sql: "SELECT max(published_on) FROM weekly_outlook") else { return nil }
            return try Self.loadWeeklyOutlook(db, publishedOn: newest)
        }
    }

    /// The publication of `publishedOn`, if stored.
    public func weeklyOutlook(publishedOn: LocalDate) throws(StorageFailure) -> WeeklyOutlook? {
        try reading { db in try Self.loadWeeklyOutlook(db, publishedOn: publishedOn.description) }
    }

    private static func loadWeeklyOutlook(_ db: Database, publishedOn published: String) throws -> WeeklyOutlook? {
        guard let date = LocalDate(published),
            let row = try Row.fetchOne(db, sql: "SELECT conditions FROM weekly_outlook WHERE published_on = ?", arguments: [published])
        else { return nil }
        var days: [Int: WeeklyOutlookDay] = [:]
        for dayRow in try Row.fetchAll(
            db, sql: "SELECT position, forecast_date, confidence_word FROM weekly_outlook_day WHERE published_on = ?",
            arguments: [published])
        {
            guard let forecastDate = LocalDate(dayRow["forecast_date"] as String) else { continue }
            days[dayRow["position"]] = WeeklyOutlookDay(
                date: forecastDate, confidence: (dayRow["confidence_word"] as String?).map { OutlookGrade(word: $0) })
        }
        for gradeRow in try Row.fetchAll(
            db, sql: "SELECT position, region, word FROM weekly_outlook_grade WHERE published_on = ?", arguments: [published])
        {
            let position: Int = gradeRow["position"]
            let name: String = gradeRow["region"]
            let grade = OutlookGrade(word: gradeRow["word"] as String)
            if let region = ForecastRegion(rawValue: name) {
                days[position]?.byRegion[region] = grade
            } else {
                days[position]?.unmatchedRegions[name] = grade
            }
        }
        return WeeklyOutlook(publishedOn: date, days: days.keys.sorted().compactMap { days[$0] }, conditions: row["conditions"])
    }
}
