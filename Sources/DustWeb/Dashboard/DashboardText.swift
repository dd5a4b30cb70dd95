import DustKit
import DustServices
import Foundation

/// Every word on the dashboard, Korean and English side by side so neither can be forgotten.
///
/// Numbers arrive already formatted (see `DashboardFormat`); nothing here escapes, the page does.
struct DashboardText {
    let language: PageLanguage

    private func say(_ korean: String, _ english: String) -> String {
        language == .korean ? korean : english
    }

    // MARK: - Page

    var brand: String { say("FineDust 미세먼지", "FineDust") }
    var otherLanguageName: String { say("English", "한국어") }
    var switchLanguage: String { say("Show this page in English", "이 페이지를 한국어로 보기") }
    var navigation: String { say("날짜 이동", "Move between days") }
    var weekNavigation: String { say("주 이동", "Move between weeks") }
    var todayLink: String { say("오늘", "Today") }
    var previousDay: String { say("이전 날", "Previous day") }
    var nextDay: String { say("다음 날", "Next day") }
    var previousWeek: String { say("이전 주", "Previous week") }
    var nextWeek: String { say("다음 주", "Next week") }
    var problems: String { say("문제", "Problems") }
    /// The banner of the advisories in force (docs/REFERENCE.md §17), named in the page's language.
    var advisories: String { say("주의보/경보", "Air-quality advisories") }
    /// The link that stops a page showing today from asking again every ten minutes, and the one that starts it again.
    var stopRefreshing: String { say("자동 새로 고침 끄기", "Stop refreshing") }
    var startRefreshing: String { say("자동 새로 고침 켜기", "Refresh every 10 minutes") }

    func weekdayShort(_ date: LocalDate) -> String {
        let names =
            language == .korean
            ? ["월", "화", "수", "목", "금", "토", "일"]
            : ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        return names[date.isoWeekday - 1]
    }

    /// 2026년 11월 20일 금요일 / Friday, 20 November 2026.
    func longDate(_ date: LocalDate) -> String {
        if language == .korean {
            return "\(date.year)년 \(date.month)월 \(date.day)일 \(weekdayShort(date))요일"
        }
        let weekday = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][date.isoWeekday - 1]
        return "\(weekday), \(date.day) \(monthName(date.month)) \(date.year)"
    }

    /// 11/20 / 20 Nov.
    func shortDate(_ date: LocalDate) -> String {
        language == .korean ? "\(date.month)/\(date.day)" : "\(date.day) \(monthName(date.month).prefix(3))"
    }

    /// The date under a bar of the week chart: `11/20`; in English `20 Nov` only for the first bar and
    /// the first of a month, else `20`, so seven labels fit on a phone.
    func barDate(_ date: LocalDate, first: Bool) -> String {
        guard language == .english, !first, date.day != 1 else { return shortDate(date) }
        return String(date.day)
    }

    /// 2026년 11월 셋째 주 · 11/16 – 11/22 / Week 47 of 2026 · 16 Nov – 22 Nov. In Korean a week is named
    /// as people say it: the month of its Thursday and which Thursday of that month it holds, after the
    /// year (2026-W01 and 2027-W01 are both 1월 첫째 주).
    func weekTitle(_ week: ISOWeek?, from start: LocalDate, to end: LocalDate) -> String {
        let range = "\(shortDate(start)) – \(shortDate(end))"
        guard let week else { return range }
        let thursday = week.monday.adding(days: 3)
        let ordinal = ["첫째", "둘째", "셋째", "넷째", "다섯째"][(thursday.day - 1) / 7]
        return say("\(thursday.year)년 \(thursday.month)월 \(ordinal) 주 · \(range)", "Week \(week.week) of \(week.year) · \(range)")
    }

    /// The configured zone as a reader says it: 한국 시간 for Asia/Seoul on a Korean page.
    func zoneName(_ identifier: String) -> String {
        identifier == "Asia/Seoul" ? say("한국 시간", "Korea time") : identifier
    }

    private func monthName(_ month: Int) -> String {
        [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ][month - 1]
    }

    // MARK: - Pollutants and grades

    func pollutantName(_ pollutant: Pollutant) -> String {
        language == .korean ? pollutant.koreanName : (pollutant == .pm10 ? "Fine dust" : "Ultrafine dust")
    }

    func gradeName(_ grade: DustGrade) -> String {
        language == .korean ? grade.koreanName : grade.englishName
    }

    /// What the grade of the hour just measured means for going out (AirKorea's advice, shortened).
    func advice(_ grade: DustGrade) -> String {
        switch grade {
        case .good: say("공기가 깨끗해요", "The air is clean")
        case .moderate: say("무난한 공기예요", "The air is acceptable")
        case .bad: say("밖에서는 마스크를 쓰세요", "Wear a mask outside")
        case .veryBad: say("바깥 활동을 줄이세요", "Stay indoors if you can")
        }
    }

    var unknown: String { say("측정값 없음", "no value") }

    // MARK: - Forecast

    var forecast: String { say("미세먼지 예보", "Dust forecast") }
    var forecastToday: String { say("오늘", "Today") }
    var forecastTomorrow: String { say("내일", "Tomorrow") }
    var noForecast: String { say("예보 없음", "no forecast") }
    var forecastPending: String {
        say(
            "저장된 예보가 아직 없습니다. dustd가 발표(05·11·17·23시 무렵) 뒤에 가져옵니다.",
            "No forecast is stored yet; dustd fetches each publication (about 05, 11, 17 and 23 KST).")
    }

    func regionName(_ region: ForecastRegion) -> String {
        language == .korean ? region.rawValue : region.englishName
    }

    /// 2026-11-22 17시 발표 / issued 2026-11-22 17:00 KST.
    func issued(_ instant: Date) -> String {
        let iso = KoreaStandardTime.iso8601(instant)
        return say("\(ForecastIssueTime.label(instant)) 발표", "issued \(iso.prefix(10)) \(iso.dropFirst(11).prefix(5)) KST")
    }

    // The weekly outlook (docs/REFERENCE.md §17).
    var outlook: String { say("주간 초미세먼지 예보", "Weekly PM2.5 outlook") }
    /// No outlook to show: none stored, or (`expiredPublishedOn`) the newest stored has only past days.
    func outlookPending(expiredPublishedOn published: LocalDate?) -> String {
        guard let published else {
            return say(
                "주간 예보가 아직 없습니다. dustd가 매일 17:30 이후에 가져옵니다.",
                "No weekly outlook is stored yet; dustd fetches it once a day after 17:30 KST.")
        }
        return say(
            "지금의 주간 예보가 없습니다: 가장 새 것(\(outlookPublished(published)))의 날짜가 모두 지났습니다. dustd가 매일 17:30 이후에 가져옵니다.",
            "No current weekly outlook: every day of the newest stored (\(outlookPublished(published))) has passed; dustd fetches it once a day after 17:30 KST."
        )
    }
    func outlookPublished(_ date: LocalDate) -> String { say("\(date.month)/\(date.day) 발표", "published \(shortDate(date))") }
    func outlookLevel(_ level: OutlookLevel) -> String { say(level.rawValue, level.englishName) }
    func outlookConfidence(_ grade: OutlookGrade) -> String {
        let word = grade.level.map(outlookLevel) ?? grade.word
        return say("신뢰도 \(word)", "confidence \(word)")
    }

    /// A grade word FineDust does not know, shown as published.
    func unknownForecastWord(_ word: String) -> String { say("\(word) (알 수 없는 등급)", "\(word) (unknown grade)") }
    var concentrationUnit: String { "µg/m³" }

    func intakeUnit(_ unit: IntakeUnit) -> String {
        switch unit {
        case .micrograms: "µg"
        case .points: say("점", "points")
        }
    }

    // MARK: - Latest hour and day totals

    var latestHour: String { say("최근 1시간", "Latest hour") }
    var newestStoredHour: String { say("가장 최근 측정", "Newest stored hour") }
    var dayMean: String { say("이날 평균", "The day's mean") }
    var intakeAgainstWHO: String { say("WHO 권고 농도의 하루 흡입량 대비", "vs. a WHO day") }
    func times(_ ratio: String) -> String { say("\(ratio)배", "\(ratio)×") }
    var todaySoFar: String { say("오늘 지금까지", "Today so far") }
    var wholeDay: String { say("하루 전체", "The whole day") }
    var mean: String { say("평균", "Mean") }
    /// AirKorea's flag on an hour: its four known words said in English on the English page (the
    /// Korean kept beside, as the station's own notice shows it); anything else as it came.
    func flagName(_ flag: String) -> String {
        guard language == .english else { return flag }
        switch flag {
        case "점검및교정": return "servicing and calibration (점검및교정)"
        case "장비점검": return "equipment check (장비점검)"
        case "자료이상": return "data anomaly (자료이상)"
        case "통신장애": return "communication failure (통신장애)"
        default: return flag
        }
    }
    var maximum: String { say("최고", "Highest") }
    var hoursMeasured: String { say("측정", "Measured") }
    var intake: String { say("흡입량", "Intake") }

    /// `23/24시간` / `23/24 h`: hours measured of hours elapsed.
    func hoursOf(_ measured: Int, _ elapsed: Int) -> String {
        say("\(measured)/\(elapsed)시간", "\(measured)/\(elapsed)\u{A0}h")
    }

    func hours(_ count: Int) -> String { say("\(count)시간", "\(count)\u{A0}h") }

    func whoExceeded(limit: String, ratio: String) -> String {
        say("WHO 권고 \(limit) 초과 (\(ratio)배)", "Above WHO \(limit) (\(ratio)×)")
    }

    func whoWithin(limit: String) -> String {
        say("WHO 권고 \(limit) 이내", "Within WHO \(limit)")
    }

    func dstNote(hours: Int) -> String {
        say("이날은 일광 절약 시간 변경으로 \(hours)시간입니다.", "This day has \(hours) hours (a daylight saving time change).")
    }

    var whoNote: String {
        say(
            "WHO 24시간 권고치(2021)는 하루 평균 농도 기준입니다: 미세먼지 45, 초미세먼지 15 µg/m³.",
            "The WHO 24-hour guideline (2021) applies to the day's mean: 45 µg/m³ for PM10, 15 µg/m³ for PM2.5.")
    }

    // MARK: - Charts and tables

    var hourByHour: String { say("시간별 농도", "Hour by hour") }
    func hourChartLabel(station: String, date: LocalDate) -> String {
        say("\(station) \(date)의 시간별 미세먼지·초미세먼지 농도", "PM10 and PM2.5 at \(station), hour by hour, \(date)")
    }
    var whoLine: String { say("WHO 24시간 권고치", "WHO 24-hour guideline") }

    // MARK: - Indoor air (docs/REFERENCE.md §21)

    var indoorVersusOutdoor: String { say("실내와 실외 초미세먼지", "Indoor and outdoor PM2.5") }
    func indoorChartLabel(date: LocalDate) -> String {
        say("\(date) 집 안 측정기와 실외의 시간별 초미세먼지 농도", "PM2.5 indoors (the home's monitor) and outdoors, hour by hour, \(date)")
    }
    var indoorLegend: String { say("실내 (측정기)", "indoors (monitor)") }
    var outdoorLegend: String { say("실외", "outdoors") }
    var indoorAway: String { say("집 밖 (일정 at: away)", "away (schedule at: away)") }
    func indoorSummary(ratio: String, infiltration: String, change: String) -> String {
        say(
            "실내/실외 비 \(ratio) (설정된 침투율 \(infiltration)) · 추정 대비 흡입량 \(change)",
            "indoor/outdoor \(ratio) (configured infiltration \(infiltration)) · intake against the estimate \(change)")
    }
    func indoorHourTitle(hours: String, indoor: String, outdoor: String) -> String {
        say("\(hours) · 실내 \(indoor) · 실외 \(outdoor) µg/m³", "\(hours) · indoors \(indoor) · outdoors \(outdoor) µg/m³")
    }
    var indoorNone: String {
        say(
            "30분 이상 측정된 시간이 아직 없어 실내는 추정치(침투율 × 실외)입니다.",
            "No hour at home was covered 30 minutes yet: indoors is the estimate (infiltration × outdoor).")
    }
    var notYet: String { say("아직 지나지 않은 시간", "hours still to come") }
    var hourlyValues: String { say("시간별 값 보기", "Hourly values") }
    var hour: String { say("시간", "Hour") }
    var note: String { say("비고", "Note") }
    /// `from 중구`, or `PM10 from 중구` when only that value was the other station's.
    func fromStation(_ station: String, only: Pollutant? = nil) -> String {
        let pollutant = only.map { "\($0.displayName) " } ?? ""
        return say("\(pollutant)\(station) 측정소 값", "\(pollutant)from \(station)")
    }
    func walked(_ metres: String) -> String { say("\(metres) m 걸음", "walked \(metres) m") }
    func tracked(percent: Int, station: String, kilometres: String) -> String {
        say("이동 경로 \(percent)% · \(station) \(kilometres) km", "tracked \(percent)%, near \(station) \(kilometres) km")
    }
    func trackedWithoutStation(percent: Int) -> String {
        say("이동 경로 \(percent)% · 가까운 측정소 없음: 집의 공기", "tracked \(percent)%, no station near: home's air")
    }

    var weekIntakeRolling: String { say("최근 7일 흡입량", "Intake, last 7 days") }
    var weekIntake: String { say("주간 흡입량", "Intake this week") }
    func weekChartLabel(station: String) -> String {
        say("\(station) 하루별 흡입량", "Intake per day at \(station)")
    }
    var weekTotals: String { say("7일 합계", "7-day totals") }
    var people: String { say("가족", "People") }
    var signOut: String { say("로그아웃", "Sign out") }
    var householdWeek: String { say("가족의 흡입량", "The household's intake") }
    var householdExplanation: String { say("하루별, 사람마다", "each day, per person") }
    var householdChartLabel: String { say("가족의 하루별 초미세먼지 흡입량", "The household's PM2.5 intake per day") }
    var showWeek: String { say("이 주 자세히 보기", "See this week") }
    var day: String { say("날짜", "Day") }
    var weekRow: String { say("합계", "Week") }
    var perDay: String { say("하루별", "Day by day") }
    var tableExplanation: String {
        say("평균 농도(µg/m³)와 등급, 흡입량, 측정 시간", "Mean (µg/m³) and grade, intake, hours measured")
    }
    var todayMark: String { say("오늘", "today") }

    // MARK: - No data

    var noReadingsToday: String {
        say(
            "아직 오늘 측정값이 없습니다. dustd는 매시간이 끝나고 20분쯤 뒤에 값을 저장합니다.",
            "No readings for today yet; dustd stores each hour about 20 minutes after it ends.")
    }
    /// Today has no hour and the newest stored is old (the notice above says how old): no promise of
    /// the next one.
    var noReadingsTodayStale: String { say("오늘 저장된 측정값이 없습니다.", "No readings stored for today.") }
    var noReadingsDay: String { say("이날 저장된 측정값이 없습니다.", "No readings stored for this day.") }
    var noReadingsWeek: String { say("이 기간에 저장된 측정값이 없습니다.", "No readings stored for these days.") }

    // MARK: - Problems (docs/REFERENCE.md §15)

    func stale(age: String) -> String {
        say(
            "데이터가 오래되었습니다: 가장 최근 측정 시간이 \(age) 전에 끝났습니다.",
            "Stale data: the newest hour ended \(age) ago.")
    }
    var noHoursStored: String {
        say("저장된 측정값이 아직 없습니다.", "No hours are stored yet.")
    }
    /// The newest stored hour ends after dustd's clock: "today" is then a day with nothing stored.
    func clockBehind(by age: String) -> String {
        say(
            "이 기기의 시계가 늦습니다: 가장 최근 측정 시간이 시계보다 \(age) 뒤에 끝납니다. 시계를 확인하세요(timedatectl).",
            "This machine's clock is behind: the newest stored hour ends \(age) after it. Check the clock (timedatectl).")
    }
    func gone(pid: Int32?, lastHeard: String?) -> String {
        let details = [pid.map { "PID \($0)" }, lastHeard.map { say("마지막 응답 \($0)", "last heard from at \($0)") }]
            .compactMap { $0 }.joined(separator: ", ")
        let detail = details.isEmpty ? "" : " (\(details))"
        return say(
            "dustd가 실행 중이 아닙니다: 정상 종료 없이 끝났습니다\(detail). journalctl -u dustd 명령으로 로그를 확인하세요.",
            "dustd is not running: it ended without stopping\(detail); check journalctl -u dustd.")
    }
    func notResponding(lastHeard: String?) -> String {
        let detail = lastHeard.map { say(" (마지막 응답 \($0))", " (last heard from at \($0))") } ?? ""
        return say(
            "dustd 프로세스는 살아 있지만 응답하지 않습니다\(detail). journalctl -u dustd 명령으로 로그를 확인하세요.",
            "dustd's process is alive but not responding\(detail); check journalctl -u dustd.")
    }
    func stopped(at time: String?) -> String {
        let when = time.map { say(" (\($0))", " at \($0)") } ?? ""
        return say(
            "dustd가 정상 종료되었습니다\(when). 새 측정값이 저장되지 않습니다.",
            "dustd stopped cleanly\(when); no new hours are being stored.")
    }
    func ranOnce(at time: String?) -> String {
        let when = time.map { say(" (\($0))", " at \($0)") } ?? ""
        return say(
            "dustd가 한 번만 실행되었습니다(--once)\(when). 새 측정값이 저장되지 않습니다.",
            "dustd ran once (--once)\(when); no new hours are being stored.")
    }
    var neverRun: String {
        say("dustd가 이 데이터베이스로 실행된 적이 없습니다.", "dustd has not run against this database.")
    }
    func pollFailed(at time: String, kind: PollFailure.Kind, code: String?) -> String {
        let english =
            switch kind {
            case .network: "network"
            case .airKorea: "AirKorea"
            case .storage: "storage"
            case .configuration: "configuration"
            }
        let kindName = say(kind.koreanName, english)
        let detail = kindName + (code.map { say(", 결과 코드 \($0)", ", result code \($0)") } ?? "")
        return say("마지막 수집이 실패했습니다 (\(time), \(detail)):", "The last poll failed at \(time) (\(detail)):")
    }
    /// An indoor monitor with a problem (docs/REFERENCE.md §21): the hours at home use the station's
    /// value, as if there were no monitor.
    func indoorProblem(sensor: String, since: String?) -> String {
        say(
            "실내 측정기 \(sensor)의 값이 \(since.map { "\($0)부터 " } ?? "")들어오지 않습니다. 그동안 집 안의 시간은 측정소 값으로 추정합니다.",
            "The indoor monitor \(sensor) has given no value\(since.map { " since \($0)" } ?? ""); meanwhile the hours at home are estimated from the station's value."
        )
    }
    /// `stillRunning`: only a running dustd still runs its previous configuration.
    func reloadRefused(at time: String, stillRunning: Bool) -> String {
        stillRunning
            ? say(
                "설정 다시 읽기가 거부되어 이전 설정으로 동작합니다 (\(time)):",
                "A configuration reload was refused at \(time); dustd kept its previous configuration:")
            : say("설정 다시 읽기가 거부되었습니다 (\(time)):", "A configuration reload was refused at \(time):")
    }
    /// What dustd waits for, and when it asks next: "until" read as the time the wait lasts, which it
    /// is not (dustd asks then; a passing fault may be gone sooner or last longer).
    func waiting(_ state: DaemonStatus.State, until time: String?) -> String? {
        let next = time.map { say(" 다음 시도는 \($0)입니다.", " It tries again at \($0).") } ?? ""
        switch state {
        case .quotaExhausted:
            return say("오늘 요청 한도를 다 써서 기다리는 중입니다.", "dustd is waiting for the daily quota to reset.") + next
        case .waitingForNextHour:
            return say(
                "키 또는 설정 문제로 다음 시간까지 기다리는 중입니다.", "dustd is waiting for the next hour because of a key or configuration problem.")
                + next
        case .backingOff:
            return say("일시적인 오류가 있었습니다.", "dustd met a passing fault.") + next
        case .starting, .polling, .idle, .stopping, .stopped:
            return nil
        }
    }

    /// `12분` / `12 min`, `5시간` / `5 h`, `3일` / `3 days`: the thresholds of `DaemonHealth.age`.
    func age(_ seconds: TimeInterval) -> String {
        let minutes = Int(max(seconds, 0) / 60)
        if minutes < 120 { return say("\(minutes)분", "\(minutes) min") }
        let hours = minutes / 60
        if hours < 72 { return say("\(hours)시간", "\(hours) h") }
        return say("\(hours / 24)일", "\(hours / 24) days")
    }

    // MARK: - Footer

    func daemonLine(_ health: DaemonHealth) -> String {
        let state: String =
            switch health.daemon {
            case .running: say("dustd 실행 중", "dustd is running")
            case .stopped: say("dustd 중지됨", "dustd is stopped")
            case .gone: say("dustd 비정상 종료", "dustd ended without stopping")
            case .notResponding: say("dustd 응답 없음", "dustd is not responding")
            case .neverRun: say("dustd 실행 기록 없음", "dustd has never run")
            }
        guard let age = health.dataAge else { return state }
        return state + say(" · 최근 측정 시간이 \(self.age(age)) 전에 끝남", " · newest hour ended \(self.age(age)) ago")
    }
    /// When the page was made, in local time: the age in the line above is counted from it.
    func pageMade(_ time: String) -> String { say("이 페이지: \(time) 기준", "This page as of \(time)") }
    func timeZone(_ identifier: String) -> String { say("시간대 \(zoneName(identifier))", "Time zone \(identifier)") }
    func intakeModel(_ unit: IntakeUnit) -> String {
        switch unit {
        case .micrograms:
            say(
                "흡입량은 시간대별 활동과 호흡량으로 추정한 값(µg)입니다.",
                "Intake is estimated from each hour's activity and breathing rate, in µg.")
        case .points:
            say(
                "흡입량은 원래 앱의 점수 방식(걸은 거리 기준)입니다.",
                "Intake uses the original app's points, from distance walked.")
        }
    }
    var source: String {
        say(
            "자료: 한국환경공단 에어코리아. 실시간 자료는 확정되지 않은 측정값입니다.",
            "Data: AirKorea (Korea Environment Corporation). Real-time values are unconfirmed measurements.")
    }
}
