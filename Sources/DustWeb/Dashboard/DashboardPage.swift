import DustKit
import DustReports
import DustServices
import Foundation

/// The dashboard page (docs/REFERENCE.md §13): one self-contained HTML document with inline SVG and one `<style>`
/// element; no scripts, no external assets, no `style` attributes.
public enum DashboardPage {
    /// The whole page for a model, in the model's language; `refresh` is what the address's
    /// `?refresh=` asked for (`AutoRefresh(query:)`).
    public static func render(_ model: DashboardModel, refresh: AutoRefresh = .on) -> String {
        DashboardRenderer(model, refresh: refresh).document().markup
    }

    /// The exact text of the page's only `<style>` element, for the Content-Security-Policy hash
    /// (`style-src 'sha256-…'`).
    public static func styleSheet() -> String {
        DashboardStyle.sheet
    }
}

/// Whether a page showing today asks again every ten minutes (docs/REFERENCE.md §13). A reader who
/// needs more time (a screen reader's place in a table, a keyboard's focus, a form half read) turns
/// it off with the page's own link, `?refresh=off`, which every link of the page then keeps, as it
/// keeps the language: the choice lives in the address, so the page stays one document without a
/// script or a cookie (WCAG 2.2.1).
public enum AutoRefresh: Sendable, Hashable {
    case on
    case off

    /// `?refresh=off` turns it off; any other value, or none, is ignored: the page asks again.
    public init(query: String?) {
        self = query == "off" ? .off : .on
    }
}

/// Builds the page's parts from a model; formatting only, no decisions about data.
struct DashboardRenderer {
    let model: DashboardModel
    let text: DashboardText
    /// The calendar date of `now` in the page's zone.
    let today: LocalDate
    /// Whether the reader turned the ten-minute refresh off; carried by every link.
    let refresh: AutoRefresh

    init(_ model: DashboardModel, refresh: AutoRefresh = .on) {
        self.model = model
        self.refresh = refresh
        text = DashboardText(language: model.language)
        today = model.calendar.date(containing: model.now)
    }

    var calendar: DayCalendar { model.calendar }
    var now: Date { model.now }
    var station: String { model.station }
    var intakeUnit: IntakeUnit { model.intakeUnit }

    /// An address on this site, keeping the page's language, in a household of several its person
    /// (`person` names another, for the switcher) and a refresh turned off (`refresh` sets it, for
    /// the link that turns it on or off).
    func link(_ path: String, language: PageLanguage? = nil, person: String? = nil, refresh: AutoRefresh? = nil) -> String {
        var address = "\(path)?lang=\((language ?? model.language).rawValue)"
        if model.people.count > 1, let name = person ?? model.person { address += "&person=" + DashboardFormat.queryValue(name) }
        if (refresh ?? self.refresh) == .off { address += "&refresh=off" }
        return address
    }

    /// The page of a day, or nil for a day outside `SupportedPeriod`, whose address answers 404:
    /// the pager and the week's rows near 2000-01-01 and 2099-12-31 must not offer one.
    func dayLink(_ date: LocalDate) -> String? {
        SupportedPeriod.contains(date) ? link("/day/\(date)") : nil
    }

    /// The page of an ISO week, or nil for a week with a day outside `SupportedPeriod` (1999-W52, 2099-W53).
    func weekLink(_ week: ISOWeek) -> String? {
        SupportedPeriod.contains(week) ? link("/week/\(week)") : nil
    }

    /// The page's own path.
    private var path: String {
        switch model.page {
        case .today: "/"
        case .day(let date): "/day/\(date)"
        case .week(let week): "/week/\(week)"
        }
    }

    // MARK: - Document

    /// A page showing today asks again every ten minutes: a phone left open, or an app from the home
    /// screen resumed the next morning, shows the hours stored since, not last night's (an unchanged
    /// page costs a 304). Past days and weeks change only with a correction, and do not ask.
    private var showsToday: Bool {
        switch model.page {
        case .today: true
        case .day(let date): date == today
        case .week(let week): week == ISOWeek(containing: today)
        }
    }

    func document() -> HTML {
        let other: PageLanguage = model.language == .korean ? .english : .korean
        let refresh: HTML = showsToday && self.refresh == .on ? "\n<meta http-equiv=\"refresh\" content=\"600\"/>" : .empty
        return """
            <!DOCTYPE html>
            <html lang="\(model.language.rawValue)">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta name="color-scheme" content="light dark"/>
            <meta name="referrer" content="no-referrer"/>
            <meta name="theme-color" content="#1d5fd1"/>\(refresh)
            <link rel="manifest" href="/manifest.webmanifest"/>
            <link rel="icon" href="/icon.svg" type="image/svg+xml"/>
            <title>\(title)</title>
            <style>\(HTML(trustedMarkup: DashboardStyle.sheet))</style>
            </head>
            <body>
            <div class="page">
            <header class="top"><a class="brand" href="\(link("/"))">\(text.brand)</a>\
            <a class="lang" href="\(link(path, language: other))" hreflang="\(other.rawValue)" lang="\(other.rawValue)" \
            title="\(text.switchLanguage)">\(text.otherLanguageName)</a></header>\(personSwitcher())
            \(advisoryBanner())\(notices())
            <div class="heading"><h1>\(whose())\(station)</h1><p class="subtitle">\(subtitle)\(refreshSwitch())</p></div>
            \(pager())
            <main>
            \(mainContent())
            </main>
            \(footer())
            </div>
            </body>
            </html>

            """
    }

    /// In a household of more than one, whose page it is comes first: each person's tab, bookmark
    /// and history entry says whose it is (WCAG 2.4.2), as the heading does.
    private var title: String {
        let whose = model.named.map { "\($0) · " } ?? ""
        switch model.page {
        case .today, .day:
            let date = model.day?.date ?? today
            return "\(whose)\(station) · \(date) · FineDust"
        case .week(let week):
            return "\(whose)\(station) · \(week) · FineDust"
        }
    }

    /// Beside the date of a page that asks again every ten minutes, the link that stops it (or, once
    /// stopped, starts it again): a reader who needs longer than ten minutes must be able to keep
    /// their place (WCAG 2.2.1). A page that does not ask again offers nothing.
    private func refreshSwitch() -> HTML {
        guard showsToday else { return .empty }
        let (href, label) =
            refresh == .on ? (link(path, refresh: .off), text.stopRefreshing) : (link(path, refresh: .on), text.startRefreshing)
        return " · <a class=\"refresh\" href=\"\(href)\">\(label)</a>"
    }

    private var subtitle: String {
        switch model.page {
        case .today, .day:
            let date = model.day?.date ?? today
            return date == today ? "\(text.todayLink) · \(text.longDate(date))" : text.longDate(date)
        case .week(let week):
            guard let first = model.week.days.first?.date, let last = model.week.days.last?.date else { return week.description }
            return text.weekTitle(week, from: first, to: last)
        }
    }

    // MARK: - Navigation

    private func pager() -> HTML {
        switch model.page {
        case .today, .day:
            let date = model.day?.date ?? today
            let previous = date.adding(days: -1)
            let next = date.adding(days: 1)
            let todayLink: HTML = date == today ? "<span>\(text.todayLink)</span>" : "<a href=\"\(link("/"))\">\(text.todayLink)</a>"
            let nextLink = pagerLink(
                next <= today ? dayLink(next) : nil, rel: "next", title: text.nextDay, label: "\(text.shortDate(next)) ›")
            let previousLink = pagerLink(dayLink(previous), rel: "prev", title: text.previousDay, label: "‹ \(text.shortDate(previous))")
            return """
                <nav class="pager" aria-label="\(text.navigation)">\
                \(previousLink)\(todayLink)\(nextLink)</nav>
                """
        case .week(let week):
            let previous = ISOWeek(containing: week.monday.adding(days: -7))
            let next = ISOWeek(containing: week.monday.adding(days: 7))
            let nextLink = pagerLink(
                next.monday <= today ? weekLink(next) : nil, rel: "next", title: text.nextWeek, label: "\(weekLabel(next)) ›")
            let previousLink = pagerLink(weekLink(previous), rel: "prev", title: text.previousWeek, label: "‹ \(weekLabel(previous))")
            return """
                <nav class="pager" aria-label="\(text.weekNavigation)">\
                \(previousLink)<a href="\(link("/"))">\(text.todayLink)</a>\(nextLink)</nav>
                """
        }
    }

    /// The person the page is about, above the station, in a household of more than one: who is
    /// shown is never left to the numbers (issue 37).
    private func whose() -> HTML {
        guard let name = model.named else { return .empty }
        return "<span class=\"who\">\(name)</span>"
    }

    /// With more than one person, a link per person to this page as theirs, the current one marked
    /// (docs/REFERENCE.md §18); nothing with one person.
    private func personSwitcher() -> HTML {
        guard model.people.count > 1 else { return .empty }
        let links = model.people.map { name -> HTML in
            let current: HTML = name == model.person ? " aria-current=\"page\"" : .empty
            return "<a href=\"\(link(path, person: name))\"\(current)>\(name)</a>"
        }
        return "\n<nav class=\"pager people\" aria-label=\"\(text.people)\">\(links)</nav>"
    }

    /// A pager's link, or its label alone where there is no page to go to (the future, or a date
    /// outside `SupportedPeriod`).
    private func pagerLink(_ href: String?, rel: String, title: String, label: String) -> HTML {
        guard let href else { return "<span>\(label)</span>" }
        return "<a href=\"\(href)\" rel=\"\(rel)\" title=\"\(title)\">\(label)</a>"
    }

    /// A week table's day name, linked to the day's page when it has one.
    private func dayAnchor(_ date: LocalDate) -> HTML {
        let name: HTML = "\(text.weekdayShort(date)) \(text.shortDate(date))"
        return dayLink(date).map { (href: String) -> HTML in "<a href=\"\(href)\">\(name)</a>" } ?? name
    }

    private func weekLabel(_ week: ISOWeek) -> String {
        model.language == .korean ? "\(week.week)주" : "W\(week.week)"
    }

    // MARK: - Advisories, said before anything else (docs/REFERENCE.md §17)

    /// One line per advisory in force for the user's district, in the notices' style; nothing when there is none.
    private func advisoryBanner() -> HTML {
        guard !model.advisories.isEmpty else { return .empty }
        let lines = model.advisories.map { advisory -> HTML in
            let attributes: HTML =
                "data-advisory-pollutant=\"\(advisory.pollutant.rawValue)\" data-advisory-level=\"\(advisory.level.name)\""
            let headline =
                model.language == .korean
                ? AdvisoryWording.koreanHeadline(advisory, calendar: calendar) : AdvisoryWording.headline(advisory, calendar: calendar)
            return "<p class=\"notice\" \(attributes)>⚠ \(inPageLanguage(headline))</p>"
        }
        return "<section class=\"notices advisories\" role=\"alert\" aria-label=\"\(text.advisories)\">\(lines)</section>\n"
    }

    // MARK: - Problems, said first (docs/REFERENCE.md §15)

    private func notices() -> HTML {
        let health = model.health
        let status = health.status
        var items: [HTML] = []
        func when(_ instant: Date) -> String { DashboardFormat.moment(instant, now: now, calendar) }
        func notice(_ message: String, detail: String? = nil, warning: Bool = false) {
            let detailMarkup: HTML = detail.map { "<span class=\"detail\">\($0)</span>" } ?? .empty
            // A sentence that introduces its detail ends there when the detail is not shown (a person's page).
            let ended = detail == nil && message.hasSuffix(":") ? String(message.dropLast()) + "." : message
            items.append("<p class=\"notice\(warning ? " warn" : "")\">\(ended)\(detailMarkup)</p>")
        }

        if health.stale {
            notice(health.dataAge.map { text.stale(age: text.age($0)) } ?? text.noHoursStored)
        }
        if let behind = health.clockBehind { notice(text.clockBehind(by: text.age(behind))) }
        func shown(_ message: String) -> String? { model.showsOperatorDetail ? model.audience.hidingPaths(in: message) : nil }
        switch health.daemon {
        case .gone:
            // No PID on the web: it tells a visitor nothing they need.
            notice(text.gone(pid: nil, lastHeard: status.map { when($0.heartbeatAt) }))
        case .notResponding:
            notice(text.notResponding(lastHeard: status.map { when($0.heartbeatAt) }))
        case .stopped:
            let at = status?.stoppedAt.map(when)
            notice(status?.mode == .once ? text.ranOnce(at: at) : text.stopped(at: at), warning: true)
        case .neverRun:
            notice(text.neverRun, warning: true)
        case .running:
            if let state = health.currentState, let waiting = text.waiting(state, until: health.nextPoll.map(when)) {
                notice(waiting, warning: true)
            }
        }
        if let status, status.lastPollFailed, let failure = status.lastError {
            notice(
                text.pollFailed(at: when(failure.at), kind: failure.kind, code: failure.resultCode),
                detail: shown(text.language == .korean ? failure.koreanMessage : failure.message))
        }
        for sensor in model.indoorProblems {
            notice(
                text.indoorProblem(sensor: sensor.sensor, since: sensor.problemSince.map(when)),
                detail: sensor.problem.flatMap(shown), warning: true)
        }
        if let refused = status?.reloadRefused {
            notice(
                text.reloadRefused(at: when(refused.at), stillRunning: health.daemon == .running), detail: shown(refused.reason),
                warning: true)
        }
        guard !items.isEmpty else { return .empty }
        return "<section class=\"notices\" aria-label=\"\(text.problems)\">\(items)</section>"
    }

    // MARK: - Main

    private func mainContent() -> HTML {
        switch model.page {
        case .today, .day:
            guard let day = model.day else { return weekCard(model.week, rolling: true, linkToWeek: nil) }
            let isToday = day.date == today
            let measured = day.totals.hours.fineDust + day.totals.hours.ultraFineDust > 0
            var sections: [HTML] = []
            // Today's newest hour is current only while it is fresh (DaemonHealth.staleAfter): an hour of
            // this morning shown at night is the newest stored hour, dated, with no advice for now.
            let current = isToday && day.latest.map { now.timeIntervalSince($0.slot.end) <= DaemonHealth.staleAfter } == true
            if measured {
                // Today: the newest hour. A past day: the day itself, graded by its mean (its last hour
                // may be 좋음 on a day that averaged 보통).
                sections.append(isToday ? latestCard(day, current: current) : dayMeanCard(day))
                sections.append(totalsCard(day, isToday: isToday))
                sections.append(hourCard(day))
            } else {
                let old = model.health.stale && model.health.dataAge != nil  // hours stored, none of them fresh
                let empty = isToday ? (old ? text.noReadingsTodayStale : text.noReadingsToday) : text.noReadingsDay
                sections.append("<section class=\"card\"><p class=\"empty\">\(empty)</p></section>")
                // Between midnight and the day's first hour, today is never blank: the newest stored hour, dated.
                if isToday, let latest = model.latest {
                    let date = calendar.date(containing: latest.slot.start)
                    sections.append(
                        nowCard(
                            slot: latest.slot, concentration: latest.concentration, date: date, isToday: false,
                            heading: text.newestStoredHour,
                            aside: text.shortDate(date) + " " + DashboardFormat.slotRange(latest.slot, calendar)))
                }
            }
            if day.gasTotals.hasKnownValue { sections.append(gasCard(day, isToday: isToday)) }
            if isToday, let forecast = model.forecast { sections.append(forecastCard(forecast)) }
            sections.append(weekCard(model.week, rolling: true, linkToWeek: ISOWeek(containing: day.date)))
            return HTML(sections)
        case .week:
            return HTML([weekCard(model.week, rolling: false, linkToWeek: nil), weekTable(model.week), householdTable()])
        }
    }

    /// The newest measured hour: a big badge of the worse grade, then each pollutant; with advice only
    /// while the hour is `current`, else headed as the newest stored hour.
    private func latestCard(_ day: DayReport, current: Bool) -> HTML {
        guard let latest = day.latest else { return .empty }
        // A value a fallback gave is named beside the hour, as in the hour's row.
        let borrowed = fallbackSources(latest, primary: day.station).map { text.fromStation($0.station, only: $0.only) }
        return nowCard(
            slot: latest.slot, concentration: latest.concentration, date: day.date, isToday: current,
            heading: current ? text.latestHour : text.newestStoredHour,
            aside: ([(current ? "" : text.shortDate(day.date) + " ") + DashboardFormat.slotRange(latest.slot, calendar)] + borrowed)
                .joined(separator: " · "))
    }

    /// A past day's big card: its mean per pollutant and the grade of the mean.
    private func dayMeanCard(_ day: DayReport) -> HTML {
        guard let last = day.latest else { return .empty }
        return nowCard(
            slot: last.slot, concentration: day.totals.mean, date: day.date, isToday: false, heading: text.dayMean,
            aside: text.shortDate(day.date))
    }

    /// One hour's card: a big badge of the worse grade (with advice on today's), then each pollutant.
    private func nowCard(
        slot: Slot, concentration: DustPair<Double?>, date: LocalDate, isToday: Bool, heading: String, aside: String
    ) -> HTML {
        let grades = DustPair(byPollutant: { pollutant in
            concentration[pollutant].map { DustGrade(concentration: $0, of: pollutant, on: date) }
        })
        let worst = [grades.fineDust, grades.ultraFineDust].compactMap { $0 }.max()
        let badge: HTML =
            worst.map { grade -> HTML in
                let advice: HTML = isToday ? "<span class=\"advice\">\(text.advice(grade))</span>" : .empty
                return "<div class=\"badge g\(grade.rawValue)\"><span class=\"word\">\(text.gradeName(grade))</span>\(advice)</div>"
            } ?? .empty
        let tiles = Pollutant.allCases.map { pollutant -> HTML in
            let value = concentration[pollutant]
            return """
                <div class="tile">\(pollutantHeading(pollutant))\
                <p class="value">\(DashboardFormat.concentration(value))<span class="unit">\(text.concentrationUnit)</span></p>\
                \(gradeChip(grades[pollutant]))</div>
                """
        }
        return """
            <section class="card now" data-latest="\(calendar.iso8601(slot.start))">\
            <h2>\(heading) <span class="aside">\(aside)</span></h2>\
            \(badge)<div class="pair">\(tiles)</div></section>
            """
    }

    /// Today's and tomorrow's forecast grades for the region (docs/REFERENCE.md §14), one chip per pollutant,
    /// then the weekly outlook's four days (§17).
    private func forecastCard(_ outlook: ForecastOutlook) -> HTML {
        let heading: HTML =
            "<h2>\(text.forecast) <span class=\"aside\">\(text.regionName(outlook.region))\(outlook.issuedAt.map { " · " + text.issued($0) } ?? "")</span></h2>"
        guard !outlook.isEmpty else {
            return
                "<section class=\"card forecast\">\(heading)<p class=\"empty\">\(text.forecastPending)</p>\(weeklyOutlook(outlook))</section>"
        }
        func chip(_ forecast: RegionalForecast?) -> HTML {
            guard let forecast else { return "<span class=\"chip\">\(text.noForecast)</span>" }
            guard let grade = forecast.grade.grade else {
                return "<span class=\"chip\">\(text.unknownForecastWord(forecast.grade.word))</span>"
            }
            return "<span class=\"chip g\(grade.rawValue)\">\(text.gradeName(grade))</span>"
        }
        let days: [(String, LocalDate, DustPair<RegionalForecast?>)] = [
            (text.forecastToday, outlook.today, outlook.todayGrades),
            (text.forecastTomorrow, outlook.today.adding(days: 1), outlook.tomorrowGrades),
        ]
        let tiles = days.map { label, date, grades -> HTML in
            """
            <div class="tile" data-forecast-date="\(date.description)" \
            data-forecast-pm10="\(grades.fineDust?.grade.grade.map { DashboardFormat.json($0.rawValue) } ?? "null")" \
            data-forecast-pm25="\(grades.ultraFineDust?.grade.grade.map { DashboardFormat.json($0.rawValue) } ?? "null")">\
            <h3>\(label) <span class="aside">\(text.shortDate(date))</span></h3>\
            \(facts([(text.pollutantName(.pm10), chip(grades.fineDust)), (text.pollutantName(.pm25), chip(grades.ultraFineDust))]))</div>
            """
        }
        let overall = outlook.tomorrowGrades.ultraFineDust?.overall ?? outlook.tomorrowGrades.fineDust?.overall
        let note: HTML = overall.map { "<p class=\"note\">\($0)</p>" } ?? .empty
        return
            "<section class=\"card forecast\" data-region=\"\(outlook.region.rawValue)\">\(heading)<div class=\"pair\">\(tiles)</div>\(note)\(weeklyOutlook(outlook))</section>"
    }

    /// The weekly PM2.5 outlook's days for the region (docs/REFERENCE.md §17): 높음 in the colour of 나쁨,
    /// 낮음 in that of 좋음, with the confidence; a line saying none is stored, or none of days to come, when there is none.
    private func weeklyOutlook(_ outlook: ForecastOutlook) -> HTML {
        guard let weekly = outlook.weekly else {
            return "<p class=\"caption outlook\">\(text.outlookPending(expiredPublishedOn: outlook.expiredWeeklyPublishedOn))</p>"
        }
        let rows = weekly.days.map { day -> (name: String, value: HTML) in
            let grade = day.byRegion[outlook.region]
            let chip: HTML
            switch grade?.level {
            case .high: chip = "<span class=\"chip g3\">\(text.outlookLevel(.high))</span>"
            case .low: chip = "<span class=\"chip g1\">\(text.outlookLevel(.low))</span>"
            case nil: chip = "<span class=\"chip\">\(grade.map { text.unknownForecastWord($0.word) } ?? text.noForecast)</span>"
            }
            let confidence: HTML = day.confidence.map { " <span class=\"aside\">\(text.outlookConfidence($0))</span>" } ?? .empty
            return (text.shortDate(day.date), "\(chip)\(confidence)")
        }
        return """
            <div class="outlook" data-outlook-published="\(weekly.publishedOn.description)" \
            data-outlook-high-days="\(weekly.highDays(for: outlook.region))">\
            <h3>\(text.outlook) <span class="aside">\(text.outlookPublished(weekly.publishedOn))</span></h3>\(facts(rows))</div>
            """
    }

    /// The day's means and grades, highest hour, hours measured of elapsed, intake and WHO comparison.
    private func totalsCard(_ day: DayReport, isToday: Bool) -> HTML {
        let totals = day.totals
        let unit = "\u{A0}" + text.concentrationUnit
        let tiles = Pollutant.allCases.map { pollutant -> HTML in
            var rows: [(name: String, value: HTML)] = [
                (text.maximum, "\(DashboardFormat.concentration(totals.max[pollutant]))\(totals.max[pollutant] == nil ? "" : unit)"),
                (text.hoursMeasured, "\(text.hoursOf(totals.hours[pollutant], day.elapsedSlots))"),
                (text.intake, "\(intakeAmount(totals.intake[pollutant]))"),
            ]
            if let ratio = whoIntakeRatio(day, pollutant) {
                rows.append((text.intakeAgainstWHO, "\(text.times(DashboardFormat.oneDecimal(ratio)))"))
            }
            return """
                <div class="tile">\(pollutantHeading(pollutant))\
                <p class="caption">\(text.mean)</p>\
                <p class="value">\(DashboardFormat.mean(totals.mean[pollutant]))<span class="unit">\(text.concentrationUnit)</span></p>\
                \(gradeChip(totals.grade[pollutant]))\
                \(facts(rows))\
                \(whoComparison(totals, pollutant))</div>
                """
        }
        return """
            <section class="card totals" data-scope="day" data-day="\(day.date.description)" data-slots="\(day.slotCount)" \
            data-elapsed="\(day.elapsedSlots)" \(dataAttributes(totals, includeWHO: true))>\
            <h2>\(isToday ? text.todaySoFar : text.wholeDay)</h2><div class="pair">\(tiles)</div>\
            <p class="note">\(text.whoNote)</p></section>
            """
    }

    /// The day's intake over the dose the same breathing would have drawn from air at the WHO
    /// 24-hour guideline (each hour's intake scaled to the guideline), so a number in µg has a point of
    /// reference: 1.6 means 1.6 times a WHO day's. Nil for points, or without an hour with a value.
    private func whoIntakeRatio(_ day: DayReport, _ pollutant: Pollutant) -> Double? {
        guard intakeUnit == .micrograms else { return nil }
        var intake = 0.0
        var perMicrogram = 0.0
        for hour in day.hourly {
            guard let concentration = hour.concentration[pollutant], concentration > 0, let dose = hour.intake[pollutant] else { continue }
            intake += dose
            perMicrogram += dose / concentration
        }
        guard perMicrogram > 0 else { return nil }
        return intake / (pollutant.whoDailyGuideline * perMicrogram)
    }

    private func whoComparison(_ totals: ExposureTotals, _ pollutant: Pollutant) -> HTML {
        guard let exceeded = totals.whoExceeded[pollutant], let mean = totals.mean[pollutant] else { return .empty }
        let limit = DashboardFormat.concentration(pollutant.whoDailyGuideline)
        if exceeded {
            let ratio = DashboardFormat.oneDecimal(mean / pollutant.whoDailyGuideline)
            return "<p class=\"note over\">\(text.whoExceeded(limit: limit, ratio: ratio))</p>"
        }
        return "<p class=\"note within\">\(text.whoWithin(limit: limit))</p>"
    }

    /// The 24-hour chart, its legend and the hourly values.
    private func hourCard(_ day: DayReport) -> HTML {
        let legend = DustGrade.allCases.map { grade -> HTML in
            "<li><span class=\"swatch g\(grade.rawValue)\" aria-hidden=\"true\"></span>\(text.gradeName(grade))</li>"
        }
        let future: HTML =
            calendar.slots(of: day.date).contains { $0.end > now }
            ? "<li><span class=\"swatch future\" aria-hidden=\"true\"></span>\(text.notYet)</li>" : .empty
        let dst: HTML = day.slotCount != 24 ? "<p class=\"note\">\(text.dstNote(hours: day.slotCount))</p>" : .empty
        return """
            <section class="card hours"><h2>\(text.hourByHour) <span class="aside">\(text.zoneName(calendar.timeZone.identifier))</span></h2>\
            \(hourChart(day))\
            <ul class="legend">\(legend)<li><span class="swatch who" aria-hidden="true"></span>\(text.whoLine)</li>\(future)</ul>\
            \(dst)\(hourTable(day))</section>\(indoorCard(day))
            """
    }

    /// Every elapsed hour of the day as a table, folded away: flags and fallback stations are said here.
    private func hourTable(_ day: DayReport) -> HTML {
        let byStart = Dictionary(day.hourly.map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
        let slots = calendar.slots(of: day.date).filter { $0.end <= now }
        let hourCounts = Dictionary(grouping: slots, by: { calendar.hour(of: $0) }).mapValues(\.count)
        let rows = slots.map { slot -> HTML in
            let exposure = byStart[slot]
            let repeated = hourCounts[calendar.hour(of: slot), default: 0] > 1
            let label: HTML = """
                \(DashboardFormat.clockTime(slot.start, calendar))\
                \(repeated ? "<span class=\"offset\">\(DashboardFormat.offset(slot, calendar))</span>" : HTML.empty)
                """
            var notes: [String] = []
            if let exposure {
                notes += Set([exposure.flag.fineDust, exposure.flag.ultraFineDust].compactMap { $0 }).sorted().map(text.flagName)
                notes += fallbackSources(exposure, primary: day.station).map { text.fromStation($0.station, only: $0.only) }
                if let distance = exposure.walkingDistance { notes.append(text.walked(DashboardFormat.whole(distance))) }
                // An hour that followed the person's track (docs/REFERENCE.md §19).
                if let place = exposure.place, place.kind == .track {
                    let percent = Int((place.trackedFraction * 100).rounded())
                    if let nearest = place.nearest {
                        notes.append(
                            text.tracked(percent: percent, station: nearest.station, kilometres: fixedDecimals(nearest.kilometres, 1)))
                    } else if place.fallback == .noStationWithinRadius {
                        // No station within the radius of the track (abroad): the home's air stood in for it.
                        notes.append(text.trackedWithoutStation(percent: percent))
                    }
                }
            }
            let cells =
                Pollutant.allCases.map { pollutant -> HTML in
                    let value = exposure?.concentration[pollutant]
                    let grade = value.map { DustGrade(concentration: $0, of: pollutant, on: day.date) }
                    // The grade in words, as the week's table says it: the dot's colour alone says nothing
                    // to a screen reader, to forced colours or to a reader who does not tell the colours apart.
                    let word: HTML = grade.map { " \(text.gradeName($0))" } ?? .empty
                    return "<td>\(gradeDot(grade))\(DashboardFormat.concentration(value))\(word)</td>"
                }
                + Pollutant.allCases.map { pollutant -> HTML in
                    "<td>\(DashboardFormat.intake(exposure?.intake[pollutant], intakeUnit))</td>"
                }
            return
                "<tr><th scope=\"row\">\(label)</th>\(cells)<td class=\"flags\">\(inPageLanguage(notes.joined(separator: ", ")))</td></tr>"
        }
        return """
            <details><summary>\(text.hourlyValues)</summary><div class="scroll"><table>\
            <thead><tr><th rowspan="2" scope="col">\(text.hour)</th><th colspan="2" scope="colgroup">\(text.concentrationUnit)</th>\
            <th colspan="2" scope="colgroup">\(text.intake) \(text.intakeUnit(intakeUnit))</th><th rowspan="2" scope="col">\(text.note)</th></tr>\
            <tr><th scope="col">PM10</th><th scope="col">PM2.5</th><th scope="col">PM10</th><th scope="col">PM2.5</th></tr></thead>\
            <tbody>\(rows)</tbody></table></div></details>
            """
    }

    /// The 7 bars and the week's totals.
    private func weekCard(_ week: WeekReport, rolling: Bool, linkToWeek: ISOWeek?) -> HTML {
        guard let first = week.days.first?.date, let last = week.days.last?.date else { return .empty }
        let heading: HTML =
            "<h2>\(rolling ? text.weekIntakeRolling : text.weekIntake) <span class=\"aside\">\(text.shortDate(first)) – \(text.shortDate(last))</span></h2>"
        let measured = week.totals.hours.fineDust + week.totals.hours.ultraFineDust > 0
        guard measured else {
            return "<section class=\"card week\">\(heading)<p class=\"empty\">\(text.noReadingsWeek)</p></section>"
        }
        let totals = week.totals
        let tiles = Pollutant.allCases.map { pollutant -> HTML in
            """
            <div class="tile">\(pollutantHeading(pollutant))\
            <p class="caption">\(text.intake)</p>\
            <p class="value compact">\(DashboardFormat.intake(totals.intake[pollutant], intakeUnit))<span class="unit">\(text.intakeUnit(intakeUnit))</span></p>\
            \(facts([(text.mean, "\(gradeDot(totals.grade[pollutant]))\(DashboardFormat.mean(totals.mean[pollutant]))\u{A0}\(text.concentrationUnit)"),
                     (text.hoursMeasured, "\(text.hours(totals.hours[pollutant]))")]))</div>
            """
        }
        let more: HTML =
            linkToWeek.flatMap(weekLink).map { (href: String) -> HTML in "<a class=\"more\" href=\"\(href)\">\(text.showWeek) ›</a>" }
            ?? .empty
        return """
            <section class="card week">\(heading)\(weekChart(week))\
            <h3>\(text.weekTotals)</h3><div class="pair" data-scope="week" data-start="\(first.description)" \
            data-end="\(last.description)" \(dataAttributes(totals, includeWHO: false))>\(tiles)</div>\(more)</section>
            """
    }

    /// The week page's table: a row per day and the totals.
    private func weekTable(_ week: WeekReport) -> HTML {
        guard week.totals.hours.fineDust + week.totals.hours.ultraFineDust > 0 else { return .empty }
        func cells(_ totals: ExposureTotals) -> HTML {
            HTML(
                Pollutant.allCases.map { pollutant -> HTML in
                    let grade: HTML = totals.grade[pollutant].map { " \(text.gradeName($0))" } ?? .empty
                    guard totals.hours[pollutant] > 0 else { return "<td>–</td>" }
                    return """
                        <td>\(gradeDot(totals.grade[pollutant]))\(DashboardFormat.mean(totals.mean[pollutant]))\(grade)\
                        <span class="sub">\(intakeAmount(totals.intake[pollutant])) · \(text.hours(totals.hours[pollutant]))</span></td>
                        """
                })
        }
        let rows = week.days.map { day -> HTML in
            let rowClass: HTML = day.date == today ? " class=\"today\"" : .empty
            return """
                <tr\(rowClass)><th scope="row">\(dayAnchor(day.date))</th>\(cells(day.totals))</tr>
                """
        }
        return """
            <section class="card"><h2>\(text.perDay) <span class="aside">\(text.tableExplanation)</span></h2>\
            <div class="scroll"><table class="days"><thead><tr><th scope="col">\(text.day)</th>\
            \(Pollutant.allCases.map { "<th scope=\"col\">\(text.pollutantName($0)) \($0.displayName)</th>" as HTML })</tr></thead>\
            <tbody>\(rows)</tbody><tfoot><tr><th scope="row">\(text.weekRow)</th>\(cells(week.totals))</tr></tfoot></table></div></section>
            """
    }

    /// The household's week side by side (docs/REFERENCE.md §18): a row per day, each person's
    /// intake of PM10 and PM2.5, the week's in the foot; each cell's `data-intake` is the number of
    /// `dustctl week --person NAME --json`. Only with more than one person.
    private func householdTable() -> HTML {
        guard model.household.count > 1, let days = model.household.first?.week.days else { return .empty }
        func cells(_ intake: (DashboardModel.PersonWeek) -> DustPair<Double?>) -> HTML {
            HTML(
                model.household.flatMap { entry in
                    Pollutant.allCases.map { pollutant -> HTML in
                        let value = intake(entry)[pollutant]
                        return """
                            <td data-person="\(entry.person)" data-pollutant="\(pollutant.rawValue)" \
                            data-intake="\(DashboardFormat.measuredJSON(value))">\(DashboardFormat.intake(value, intakeUnit))</td>
                            """
                    }
                })
        }
        let rows = days.indices.map { index -> HTML in
            let date = days[index].date
            let rowClass: HTML = date == today ? " class=\"today\"" : .empty
            return """
                <tr\(rowClass) data-day="\(date.description)"><th scope="row">\(dayAnchor(date))</th>\
                \(cells { $0.week.days[index].totals.intake })</tr>
                """
        }
        let names = model.household.map { "<th colspan=\"2\" scope=\"colgroup\">\($0.person)</th>" as HTML }
        let pollutants = model.household.flatMap { _ in Pollutant.allCases.map { "<th scope=\"col\">\($0.displayName)</th>" as HTML } }
        return """
            <section class="card household"><h2>\(text.householdWeek) <span class="aside">\(text.householdExplanation), \
            \(text.intakeUnit(intakeUnit))</span></h2>\(householdChart(model.household))\
            <div class="scroll"><table class="days"><thead><tr><th rowspan="2" scope="col">\(text.day)</th>\(names)</tr>\
            <tr>\(pollutants)</tr></thead><tbody>\(rows)</tbody>\
            <tfoot><tr><th scope="row">\(text.weekRow)</th>\(cells { $0.week.totals.intake })</tr></tfoot></table></div></section>
            """
    }

    // MARK: - Footer

    private func footer() -> HTML {
        let version: HTML = model.health.status.map { "<p>FineDust dustd \($0.version)</p>" } ?? .empty
        let signOut: HTML =
            model.signedIn ? "<form method=\"post\" action=\"/logout\"><button type=\"submit\">\(text.signOut)</button></form>" : .empty
        return """
            <footer><p>\(text.daemonLine(model.health))</p>\
            <p>\(text.pageMade(DashboardFormat.moment(now, now: now, calendar)))</p><p>\(text.timeZone(calendar.timeZone.identifier))</p>\
            <p>\(text.intakeModel(intakeUnit))</p><p>\(text.source)</p>\(version)\(signOut)</footer>
            """
    }

    // MARK: - Pieces

    /// A `<dl>` of name–value rows; a value that does not fit beside its name goes below it.
    func facts(_ rows: [(name: String, value: HTML)]) -> HTML {
        "<dl class=\"facts\">\(rows.map { "<div><dt>\($0.name)</dt><dd>\($0.value)</dd></div>" as HTML })</dl>"
    }

    private func pollutantHeading(_ pollutant: Pollutant) -> HTML {
        "<h3>\(text.pollutantName(pollutant)) <span class=\"aside\">\(pollutant.displayName)</span></h3>"
    }

    func gradeChip(_ grade: DustGrade?) -> HTML {
        guard let grade else { return "<span class=\"chip\">\(text.unknown)</span>" }
        return "<span class=\"chip g\(grade.rawValue)\">\(text.gradeName(grade))</span>"
    }

    /// `text` as markup, with each run of Hangul on an English page in `<span lang="ko">` (AirKorea's
    /// words an advisory or a flag keeps, a 권역's name): a screen reader then says it in Korean, not
    /// letter by letter or in an English voice (WCAG 3.1.2). A Korean page needs none.
    func inPageLanguage(_ text: String) -> HTML {
        guard model.language != .korean else { return "\(text)" }
        var pieces: [HTML] = []
        var run = ""
        var korean = false
        func flush() {
            guard !run.isEmpty else { return }
            let piece: HTML = korean ? "<span lang=\"ko\">\(run)</span>" : "\(run)"
            pieces.append(piece)
            run = ""
        }
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            // A space between two Hangul words belongs to the run; any other character ends it.
            let isHangul = character.unicodeScalars.contains(where: Self.isHangul)
            let joins =
                korean && character == " "
                && text[text.index(after: index)...].first { $0 != " " }.map { $0.unicodeScalars.contains(where: Self.isHangul) } == true
            if isHangul != korean && !joins {
                flush()
                korean = isHangul
            }
            run.append(character)
            index = text.index(after: index)
        }
        flush()
        return HTML(pieces)
    }

    /// Hangul syllables and letters (jamo, compatibility jamo, their extensions).
    private static func isHangul(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xD7B0...0xD7FF: true
        default: false
        }
    }

    private func gradeDot(_ grade: DustGrade?) -> HTML {
        guard let grade else { return .empty }
        return "<span class=\"dot g\(grade.rawValue)\" aria-hidden=\"true\"></span>"
    }

    private func intakeAmount(_ value: Double?) -> String {
        "\(DashboardFormat.intake(value, intakeUnit))\u{A0}\(text.intakeUnit(intakeUnit))"
    }

    /// A totals value's numbers as `dustctl … --json` prints them: `data-hours-pm10`, `data-mean-pm25`, …
    func dataAttributes(_ totals: ExposureTotals, includeWHO: Bool) -> HTML {
        var attributes: [HTML] = []
        for pollutant in Pollutant.allCases {
            let key = pollutant.rawValue
            attributes.append("data-hours-\(key)=\"\(DashboardFormat.json(totals.hours[pollutant]))\"")
            attributes.append(" data-mean-\(key)=\"\(DashboardFormat.measuredJSON(totals.mean[pollutant]))\"")
            attributes.append(" data-max-\(key)=\"\(DashboardFormat.json(totals.max[pollutant]))\"")
            attributes.append(" data-intake-\(key)=\"\(DashboardFormat.measuredJSON(totals.intake[pollutant]))\"")
            attributes.append(" data-grade-\(key)=\"\(totals.grade[pollutant].map { DashboardFormat.json($0.rawValue) } ?? "null")\"")
            if includeWHO {
                attributes.append(" data-who-exceeded-\(key)=\"\(DashboardFormat.json(totals.whoExceeded[pollutant]))\"")
            }
            if pollutant != Pollutant.allCases.last { attributes.append(" ") }
        }
        return HTML(attributes)
    }
}
