import DustKit
import DustServices
import Foundation

extension ReportJSON {
    /// `dustctl forecast --json` and `/api/v1/forecast` (docs/REFERENCE.md §14): today's and tomorrow's grades
    /// for the region, each with the issue it comes from; a grade no issue gave is `null`.
    ///
    /// `{"region":"경기북부","regionEnglish":"Gyeonggi North","station":"행신동","issuedAt":"…",
    ///   "today":{"date":"2026-11-22","pm10":{"grade":2,"word":"보통","issuedAt":"…","overall":"…","cause":"…"},"pm25":…},
    ///   "tomorrow":{…},"outlook":{…}}`. `grade` is 1–4, or `null` when the published word is not one of the
    /// four (`word` then holds it as published). `outlook` (last) is the weekly outlook, `null` when none is stored.
    public static func forecast(_ outlook: ForecastOutlook, station: String?, calendar: DayCalendar) -> JSON {
        .object([
            ("region", .string(outlook.region.rawValue)),
            ("regionEnglish", .string(outlook.region.englishName)),
            ("station", station.map(JSON.string) ?? .null),
            ("issuedAt", outlook.issuedAt.map { .string(calendar.iso8601($0)) } ?? .null),
            ("today", forecastDay(outlook.today, outlook.todayGrades, calendar: calendar)),
            ("tomorrow", forecastDay(outlook.today.adding(days: 1), outlook.tomorrowGrades, calendar: calendar)),
            ("outlook", outlook.weekly.map { weeklyOutlook($0, region: outlook.region) } ?? .null),
        ])
    }

    /// The weekly outlook for `region` (docs/REFERENCE.md §17):
    /// `{"publishedOn":"2026-11-22","highDays":2,"days":[{"date":"2026-11-25","grade":"high","word":"높음",
    ///   "confidence":{"grade":"high","word":"높음"}},…],"conditions":"…"}`. A day's `grade` is `high`,
    /// `low`, or `null` when the word is not one of the two (`word` holds it as published) or the
    /// day does not name the region (`word` `null` too); `confidence` is `null` when not published.
    public static func weeklyOutlook(_ weekly: WeeklyOutlook, region: ForecastRegion) -> JSON {
        func grade(_ grade: OutlookGrade?) -> [(String, JSON)] {
            [("grade", grade?.level.map { JSON.string($0.englishName) } ?? .null), ("word", grade.map { JSON.string($0.word) } ?? .null)]
        }
        return .object([
            ("publishedOn", .string(weekly.publishedOn.description)),
            ("highDays", .integer(weekly.highDays(for: region))),
            (
                "days",
                .array(
                    weekly.days.map { day in
                        .object(
                            [("date", .string(day.date.description))] + grade(day.byRegion[region])
                                + [("confidence", day.confidence.map { .object(grade($0)) } ?? .null)])
                    })
            ),
            ("conditions", weekly.conditions.map(JSON.string) ?? .null),
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
