import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct ForecastCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "forecast",
            abstract: helpAbstract(
                "내 지역의 오늘·내일 AirKorea 미세먼지 예보(PM10과 PM2.5)와 주간 예보.",
                "AirKorea's dust forecast for today and tomorrow in your region (PM10 and PM2.5), and the weekly outlook."),
            discussion: helpText(
                """
                지역은 forecast.region이 설정되어 있으면 그것, 아니면 측정소의 지역입니다: 그
                시도, 그리고 경기와 강원은 주소의 시군에 따라 경기북부/경기남부, 영서/영동
                (dustctl stations sync가 주소를 저장합니다). dustd는 발표(한국 시간 05, 11,
                17, 23시쯤)마다 예보를 가져오고, 주간 초미세먼지 예보(그 뒤 나흘의 낮음/높음과
                신뢰도)는 하루 한 번 한국 시간 17:30 이후에 가져옵니다. 저장된 예보가 아직
                없으면, 측정값이 없을 때의 today처럼 dustctl은 그렇다고 말하고 0으로 끝납니다.
                예:
                  dustctl forecast
                  dustctl forecast --json
                """,
                """
                The region is forecast.region when set, else the station's: its province,
                and for 경기 and 강원 the city in its address (경기북부/경기남부,
                영서/영동; dustctl stations sync stores addresses). dustd fetches each
                publication (about 05, 11, 17 and 23 KST), and the weekly PM2.5 outlook
                (낮음/높음 for the four days after, with its 신뢰도) once a day after
                17:30 KST. With no forecast stored yet, dustctl says so and exits 0, as
                today does with no readings. Examples:
                  dustctl forecast
                  dustctl forecast --json
                """))
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            try await withStore(settings, for: .read) { store in
                if settings.forecast.region == nil { try await options.checkStation(settings, store: store) }
                let outlook = try await forecastOutlook(settings, store: store, now: try options.clock(settings).now)
                if options.json {
                    try standardOutputLine(
                        ReportJSON.forecast(outlook, station: settings.station.name, calendar: settings.calendar).serialized)
                } else {
                    try standardOutput(text(outlook, settings: settings))
                }
            }
        }
    }

    private func text(_ outlook: ForecastOutlook, settings: FineDustSettings) -> String {
        let style = TextStyle.forStandardOutput()
        // Korean under a Korean locale, as the reports (docs/REFERENCE.md §6, "Text").
        let language = ReportLanguage.process
        var lines = [
            style.bold(
                language.say(
                    "미세먼지 예보 · \(outlook.region.rawValue)", "Forecast · \(outlook.region.rawValue) (\(outlook.region.englishName))")
                    + (outlook.issuedAt.map { " · \(ForecastIssueTime.label($0)) 발표" } ?? ""))
        ]
        guard !outlook.isEmpty else {
            lines.append(
                language.say(
                    "오늘과 내일의 예보가 아직 저장되지 않았습니다. dustd는 발표(05, 11, 17, 23시쯤)마다 가져옵니다.",
                    "No forecast is stored for today or tomorrow yet; dustd fetches one after each publication (about 05, 11, 17 and 23 KST)."
                ))
            return (lines + weeklyOutlookLines(outlook, style, language)).joined(separator: "\n") + "\n"
        }
        lines.append(pad("", 20) + pad(style.bold("PM10 미세먼지"), 24) + style.bold("PM2.5 초미세먼지"))
        for (label, date, grades) in [
            (language.say("오늘", "Today"), outlook.today, outlook.todayGrades),
            (language.say("내일", "Tomorrow"), outlook.today.adding(days: 1), outlook.tomorrowGrades),
        ] {
            lines.append(
                pad("\(label) \(date.description.suffix(5))", 20) + pad(forecastGradeText(grades.fineDust, style, language), 24)
                    + forecastGradeText(grades.ultraFineDust, style, language))
        }
        if let overall = outlook.tomorrowGrades.ultraFineDust?.overall ?? outlook.tomorrowGrades.fineDust?.overall {
            lines.append("")
            lines.append(overall)
        }
        return (lines + weeklyOutlookLines(outlook, style, language)).joined(separator: "\n") + "\n"
    }
}

/// The weekly outlook's block (docs/REFERENCE.md §17), after today's and tomorrow's: one line per day;
/// a sentence when none is stored (`dustctl forecast`, `dustctl demo`).
func weeklyOutlookLines(_ outlook: ForecastOutlook, _ style: TextStyle, _ language: ReportLanguage = .english) -> [String] {
    guard let weekly = outlook.weekly else {
        // An outlook is stored, but its days have all passed: dustd has fetched none since (stopped, or failing).
        if let published = outlook.expiredWeeklyPublishedOn {
            return [
                "",
                language.say(
                    "지금의 주간 예보가 없습니다: 저장된 가장 새 것(\(published) 발표)의 날짜가 모두 지났습니다. dustd는 하루 한 번 17:30 이후에 가져옵니다.",
                    "No current weekly outlook: every day of the newest stored (published \(published)) has passed; dustd fetches it once a day after 17:30 KST."
                ),
            ]
        }
        return [
            "",
            language.say(
                "주간 예보가 아직 저장되지 않았습니다. dustd는 하루 한 번 17:30 이후에 가져옵니다.",
                "No weekly outlook is stored yet; dustd fetches it once a day after 17:30 KST."),
        ]
    }
    let title = language.say("주간 예보", "Weekly outlook")
    var lines = ["", style.bold("\(title) · \(outlook.region.rawValue) · PM2.5 초미세먼지 · \(weekly.publishedOn) 발표")]
    for day in weekly.days {
        lines.append(
            pad("\(language.weekday(day.date)) \(day.date.description.suffix(5))", 20)
                + pad(outlookGradeText(day.byRegion[outlook.region], style, language), 24)
                + (day.confidence.map { "신뢰도 \($0.word)" } ?? ""))
    }
    if let conditions = weekly.conditions {
        lines.append("")
        lines.append(conditions)
    }
    return lines
}

/// `높음 (high)` in the colour of 나쁨, `낮음 (low)` in that of 좋음; an unknown word as published; `–`
/// when the day does not name the region.
func outlookGradeText(_ grade: OutlookGrade?, _ style: TextStyle, _ language: ReportLanguage = .english) -> String {
    guard let grade else { return "–" }
    switch grade.level {
    case .high: return style.graded(language.say("높음", "높음 (high)"), .bad)
    case .low: return style.graded(language.say("낮음", "낮음 (low)"), .good)
    case nil: return language.say("\(grade.word) (알 수 없는 단어)", "\(grade.word) (unknown word)")
    }
}

/// `나쁨 (bad)`, coloured by grade; an unknown word as published; `–` when none is stored.
func forecastGradeText(_ forecast: RegionalForecast?, _ style: TextStyle, _ language: ReportLanguage = .english) -> String {
    guard let forecast else { return "–" }
    guard let grade = forecast.grade.grade else {
        return language.say("\(forecast.grade.word) (알 수 없는 등급)", "\(forecast.grade.word) (unknown word)")
    }
    return style.graded(language.bilingualGrade(grade), grade)
}

/// Today's and tomorrow's forecast for the configured region; a region that cannot be known is a
/// configuration error telling the user to set forecast.region.
func forecastOutlook(_ settings: FineDustSettings, store: any ForecastStore, now: Date) async throws -> ForecastOutlook {
    do {
        return try await ForecastReader(store: store, timeZone: settings.calendar.timeZone)
            .outlook(station: settings.station.name, override: settings.forecast.region, now: now)
    } catch {
        switch error {
        case .region(let problem): throw CommandFailure(.configuration, korean: problem.sentence(.korean), english: problem.description)
        case .storage(let failure): throw CommandFailure(failure)
        }
    }
}
