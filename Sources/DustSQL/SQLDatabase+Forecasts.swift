import DustKit
import DustServices
import Foundation

// Forecast issues and their grades per region (docs/REFERENCE.md §14), and the weekly PM2.5 outlook (§17).

extension SQLDatabase {
    /// Stores forecasts in one transaction; storing the same issue again changes nothing, a
    /// changed issue (AirKorea re-published it) replaces its text and grades. Returns how many
    /// (pollutant, issue, date) rows were new or changed.
    @discardableResult
    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) async throws(StorageFailure) -> Int {
        let distinct = dialect.isDistinctFrom
        let issueSQL = """
            INSERT INTO forecast_issue (pollutant, issued_at, forecast_date, overall, cause, fetched_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (pollutant, issued_at, forecast_date) DO UPDATE SET
                overall = excluded.overall, cause = excluded.cause, fetched_at = excluded.fetched_at
            WHERE forecast_issue.overall \(distinct) excluded.overall OR forecast_issue.cause \(distinct) excluded.cause
            """
        let gradeSQL = """
            INSERT INTO forecast_grade (pollutant, issued_at, forecast_date, region, grade, grade_word)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (pollutant, forecast_date, region, issued_at) DO UPDATE SET
                grade = excluded.grade, grade_word = excluded.grade_word
            WHERE forecast_grade.grade \(distinct) excluded.grade OR forecast_grade.grade_word \(distinct) excluded.grade_word
            """
        let fetched = SQLTime.seconds(fetchedAt)
        return try await write { session in
            var changed = 0
            for forecast in forecasts {
                let pollutant = forecast.pollutant.rawValue
                let issued = SQLTime.seconds(forecast.issuedAt)
                let date = forecast.forecastDate.description
                var rowsChanged = try session.execute(issueSQL, pollutant, issued, date, forecast.overall, forecast.cause, fetched)
                for region in ForecastRegion.allCases {
                    guard let value = forecast.grades.byRegion[region] else { continue }
                    rowsChanged += try session.execute(
                        gradeSQL, pollutant, issued, date, region.rawValue, value.grade?.rawValue, value.word)
                }
                if rowsChanged > 0 { changed += 1 }
            }
            return changed
        }
    }

    /// The newest issue time stored for `pollutant`, if any.
    public func newestForecastIssue(pollutant: Pollutant, notAfter: Date) async throws(StorageFailure) -> Date? {
        let bound = SQLTime.seconds(notAfter)
        return try await read { session in
            try session.row(
                "SELECT max(issued_at) AS newest FROM forecast_issue WHERE pollutant = ? AND issued_at <= ?", pollutant.rawValue, bound
            )?
            .optionalInt64("newest").map(SQLTime.date)
        }
    }

    /// The grade of `region` for `date` from the newest issue that graded that region for that date.
    public func forecast(
        pollutant: Pollutant, date: LocalDate, region: ForecastRegion
    ) async throws(StorageFailure)
        -> RegionalForecast?
    {
        try await read { session in
            guard
                let row = try session.row(
                    """
                    SELECT g.issued_at AS issued_at, g.grade AS grade, g.grade_word AS grade_word, i.overall AS overall, i.cause AS cause
                    FROM forecast_grade g
                    LEFT JOIN forecast_issue i
                      ON i.pollutant = g.pollutant AND i.issued_at = g.issued_at AND i.forecast_date = g.forecast_date
                    WHERE g.pollutant = ? AND g.forecast_date = ? AND g.region = ?
                    ORDER BY g.issued_at DESC LIMIT 1
                    """, pollutant.rawValue, date.description, region.rawValue)
            else { return nil }
            let grade: ForecastGrade =
                try row.optionalInt("grade").flatMap(DustGrade.init(rawValue:)).map { .known($0) }
                ?? .unknown(try row.string("grade_word"))
            return RegionalForecast(
                pollutant: pollutant, region: region, forecastDate: date, issuedAt: SQLTime.date(try row.int64("issued_at")),
                grade: grade, overall: try row.optionalString("overall"), cause: try row.optionalString("cause"))
        }
    }

    /// The province and address stored for a station, if it is known at all.
    public func stationLocation(name: String) async throws(StorageFailure) -> StationLocation? {
        try await read { session in
            try session.row("SELECT sido, address FROM station WHERE name = ?", name).map { row in
                StationLocation(sido: try row.optionalString("sido"), address: try row.optionalString("address"))
            }
        }
    }

    // MARK: - The weekly outlook (tables of migration "v10-weekly-outlook")

    /// Stores one publication in one transaction: unchanged, nothing is written; changed, its days
    /// and grades are replaced whole. Returns whether anything changed.
    @discardableResult
    public func saveWeeklyOutlook(_ outlook: WeeklyOutlook, fetchedAt: Date) async throws(StorageFailure) -> Bool {
        try await write { session in
            let published = outlook.publishedOn.description
            guard try loadWeeklyOutlook(session, publishedOn: published) != outlook else { return false }
            for table in ["weekly_outlook_grade", "weekly_outlook_day", "weekly_outlook"] {
                try session.execute("DELETE FROM \(table) WHERE published_on = ?", published)
            }
            try session.execute(
                "INSERT INTO weekly_outlook (published_on, conditions, fetched_at) VALUES (?, ?, ?)", published, outlook.conditions,
                SQLTime.seconds(fetchedAt))
            for (index, day) in outlook.days.prefix(4).enumerated() {
                let position = index + 1
                try session.execute(
                    "INSERT INTO weekly_outlook_day (published_on, position, forecast_date, confidence_word) VALUES (?, ?, ?, ?)",
                    published, position, day.date.description, day.confidence?.word)
                let named = day.byRegion.map { ($0.key.rawValue, $0.value) } + day.unmatchedRegions.map { ($0.key, $0.value) }
                for (region, value) in named {
                    try session.execute(
                        "INSERT INTO weekly_outlook_grade (published_on, position, region, word) VALUES (?, ?, ?, ?)", published,
                        position, region, value.word)
                }
            }
            return true
        }
    }

    /// The newest stored publication, if any.
    public func newestWeeklyOutlook() async throws(StorageFailure) -> WeeklyOutlook? {
        try await read { session in
            guard let newest = try session.row("SELECT max(published_on) AS newest FROM weekly_outlook")?.optionalString("newest")
            else { return nil }
            return try loadWeeklyOutlook(session, publishedOn: newest)
        }
    }

    /// The publication of `publishedOn`, if stored.
    public func weeklyOutlook(publishedOn: LocalDate) async throws(StorageFailure) -> WeeklyOutlook? {
        try await read { session in try loadWeeklyOutlook(session, publishedOn: publishedOn.description) }
    }
}

private func loadWeeklyOutlook(_ session: any SQLSession, publishedOn published: String) throws -> WeeklyOutlook? {
    guard let date = LocalDate(published),
        let row = try session.row("SELECT conditions FROM weekly_outlook WHERE published_on = ?", published)
    else { return nil }
    var days: [Int: WeeklyOutlookDay] = [:]
    try session.forEachRow(
        "SELECT position, forecast_date, confidence_word FROM weekly_outlook_day WHERE published_on = ?", [published.sqlValue]
    ) { dayRow in
        guard let forecastDate = LocalDate(try dayRow.string("forecast_date")) else { return }
        days[try dayRow.int("position")] = WeeklyOutlookDay(
            date: forecastDate, confidence: try dayRow.optionalString("confidence_word").map { OutlookGrade(word: $0) })
    }
    try session.forEachRow("SELECT position, region, word FROM weekly_outlook_grade WHERE published_on = ?", [published.sqlValue]) {
        gradeRow in
        let position = try gradeRow.int("position")
        let name = try gradeRow.string("region")
        let grade = OutlookGrade(word: try gradeRow.string("word"))
        if let region = ForecastRegion(rawValue: name) {
            days[position]?.byRegion[region] = grade
        } else {
            days[position]?.unmatchedRegions[name] = grade
        }
    }
    return WeeklyOutlook(
        publishedOn: date, days: days.keys.sorted().compactMap { days[$0] }, conditions: try row.optionalString("conditions"))
}
