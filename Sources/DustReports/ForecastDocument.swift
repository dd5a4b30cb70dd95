import DustKit
import DustServices
import Foundation

extension ReportJSON {
    /// `dustctl forecast --json` and `/api/v1/forecast` (docs/REFERENCE.md §14): today's and tomorrow's grades
    /// for the region, each with the issue it comes from; a grade no issue gave is `null`.
    ///
    /// `{"region":"경기북부","regionEnglish":"Gyeonggi North","station":"행신동","issuedAt":"…",
    ///   "today":{"date":"2026-11-22","pm10":{"grade":2,"word":"보통","issuedAt":"…","overall":"…","cause":"…"},"pm25":…},
    ///   "tomorrow":{…}}`. `grade` is 1–4, or `null` when the published word is not one of the
    /// four (`word` then holds it as published).
    public static func forecast(_ outlook: ForecastOutlook, station: String?, calendar: DayCalendar) -> JSON {
        .object([
            ("region", .string(outlook.region.rawValue)),
            ("regionEnglish", .string(outlook.region.englishName)),
            ("station", station.map(JSON.string) ?? .null),
            ("issuedAt", outlook.issuedAt.map { .string(calendar.iso8601($0)) } ?? .null),
            ("today", forecastDay(outlook.today, outlook.todayGrades, calendar: calendar)),
            ("tomorrow", forecastDay(outlook.today.adding(days: 1), outlook.tomorrowGrades, calendar: calendar)),
        ])
    }

    /// The member `today`'s document gains (`forecastTomorrow`): tomorrow's grades for the region,
    /// or `null` when no forecast for tomorrow is stored or the region is not known.
    public static func forecastTomorrow(_ outlook: ForecastOutlook?, calendar: DayCalendar) -> JSON {
        guard let outlook, outlook.tomorrowGrades.fineDust != nil || outlook.tomorrowGrades.ultraFineDust != nil else { return .null }
        return .object([
            ("region", .string(outlook.region.rawValue)),
            ("date", .string(outlook.today.adding(days: 1).description)),
            ("pm10", forecastGrade(outlook.tomorrowGrades.fineDust, calendar: calendar)),
            ("pm25", forecastGrade(outlook.tomorrowGrades.ultraFineDust, calendar: calendar)),
        ])
    }

    private static func forecastDay(_ date: LocalDate, _ grades: DustPair<RegionalForecast?>, calendar: DayCalendar) -> JSON {
        .object([
            ("date", .string(date.description)),
            ("pm10", forecastGrade(grades.fineDust, calendar: calendar)),
            ("pm25", forecastGrade(grades.ultraFineDust, calendar: calendar)),
        ])
    }

    private static func forecastGrade(_ forecast: RegionalForecast?, calendar: DayCalendar) -> JSON {
        guard let forecast else { return .null }
        return .object([
            ("grade", forecast.grade.grade.map { JSON.integer($0.rawValue) } ?? .null),
            ("word", .string(forecast.grade.word)),
            ("issuedAt", .string(calendar.iso8601(forecast.issuedAt))),
            ("overall", forecast.overall.map(JSON.string) ?? .null),
            ("cause", forecast.cause.map(JSON.string) ?? .null),
        ])
    }
}
