import DustKit
import DustReports
import DustServices
import Foundation

/// The language of a page: Korean first (the people FineDust is for), English on request.
public enum PageLanguage: String, Sendable, Hashable, CaseIterable {
    case korean = "ko"
    case english = "en"

    /// The language asked for by `?lang=` (wins) or `Accept-Language` (the first of ko/en it lists,
    /// honouring q-values); Korean when neither says.
    public static func negotiate(query: String?, acceptLanguage: String?) -> PageLanguage {
        if let query, let chosen = PageLanguage(rawValue: LanguageTag.primary(query)) { return chosen }
        guard let acceptLanguage else { return .korean }
        var best: (PageLanguage, Double)?
        for part in acceptLanguage.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = fields.first, let language = PageLanguage(rawValue: LanguageTag.primary(tag)) else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > (best?.1 ?? 0) { best = (language, quality) }
        }
        return best?.0 ?? .korean
    }
}

/// Everything one dashboard page shows, computed before rendering: the renderer only formats.
public struct DashboardModel: Sendable {
    /// Which page: today (`/`), a past or present day (`/day/DATE`), or an ISO week (`/week/YYYY-Www`).
    public enum Page: Sendable {
        case today
        case day(LocalDate)
        case week(ISOWeek)
    }

    public var page: Page
    public var language: PageLanguage
    /// The station that drives intake.
    public var station: String
    /// The day shown (today, or the day asked for); nil on a week page.
    public var day: DayReport?
    /// The 7 bars: the rolling week ending on the day shown, or the ISO week asked for.
    public var week: WeekReport
    /// What the intake numbers mean: µg (ventilation) or the original app's points (boostcamp).
    public var intakeUnit: IntakeUnit
    /// The time zone the page's hours are in (`timezone`; DST days have 23 or 25 hours).
    public var calendar: DayCalendar
    /// What dustd is doing and how old the data is: stale data and problems are said at the top.
    public var health: DaemonHealth
    /// Now, for "so far" and ages.
    public var now: Date
    /// Today's and tomorrow's forecast for the region, shown on the today page; nil when the
    /// region is not known.
    public var forecast: ForecastOutlook?
    /// The paths the page never shows (messages are network and storage text that may name them).
    public var audience: WebAudience
    /// The advisories in force for the user's district (docs/REFERENCE.md §17), the most serious first: a banner at the top.
    public var advisories: [Advisory]
    /// Everyone's names in the configured order when the household has more than one person
    /// (docs/REFERENCE.md §18): the switcher at the top, and `person=` in every link. Empty with one
    /// person, whose page is what it was before people existed.
    public var people: [String]
    /// The person the page is about (their day, week and home station); one of `people`.
    public var person: String?
    /// The week page's household side by side: each person's week, in the order of `people`; empty with one person.
    public var household: [PersonWeek]
    /// The newest stored hour of the home station whatever its day: today's page shows it until the
    /// day's first hour is stored.
    public var latest: HourlyReading?
    /// The person named above the station: whose page this is, in a household of more than one
    /// (also to a person's own token, which sees no switcher); nil with one person.
    public var named: String?
    /// The indoor monitors of the person shown that have a problem now: said among the notices.
    public var indoorProblems: [IndoorSensorState]
    /// Whether the viewer signed in with the session cookie: the footer then offers to sign out.
    public var signedIn: Bool
    /// Whether the viewer is the operator (the admin token, `Principal.everyone`), who sees why a poll
    /// failed or a reload was refused: the sentence may quote anyone's settings (a person's heart rate,
    /// home, station, year of birth), so a person's own page says only that it happened.
    public var showsOperatorDetail: Bool

    /// One person's week for the household's table.
    public struct PersonWeek: Sendable {
        public var person: String
        public var week: WeekReport

        public init(person: String, week: WeekReport) {
            self.person = person
            self.week = week
        }
    }

    public init(
        page: Page, language: PageLanguage, station: String, day: DayReport?, week: WeekReport, intakeUnit: IntakeUnit,
        calendar: DayCalendar, health: DaemonHealth, now: Date, forecast: ForecastOutlook? = nil,
        audience: WebAudience = WebAudience(knownPaths: []), advisories: [Advisory] = [], people: [String] = [], person: String? = nil,
        household: [PersonWeek] = [], signedIn: Bool = false, latest: HourlyReading? = nil,
        indoorProblems: [IndoorSensorState] = [], named: String? = nil, showsOperatorDetail: Bool = false
    ) {
        self.indoorProblems = indoorProblems
        self.showsOperatorDetail = showsOperatorDetail
        self.named = named ?? person
        self.latest = latest
        self.signedIn = signedIn
        self.people = people
        self.person = person
        self.household = household
        self.advisories = advisories
        self.forecast = forecast
        self.audience = audience
        self.page = page
        self.language = language
        self.station = station
        self.day = day
        self.week = week
        self.intakeUnit = intakeUnit
        self.calendar = calendar
        self.health = health
        self.now = now
    }
}
