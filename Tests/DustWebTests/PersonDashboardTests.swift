import DustKit
import DustReports
import DustServices
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import DustWeb

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The dashboard per person and the household's week (docs/REFERENCE.md §18), for the household
/// of PersonAPITests (dad born 1986-05, 민지 born 2018-03, both at 종로구).
@Suite("dustd on the web: the dashboard's person switcher, the household's week, intake per person", .timeLimit(.minutes(10)))
struct PersonDashboardTests {
    /// The last half hour of 2026-11-20 in Seoul: the demo's day is today, with its 24 hours measured but one.
    static let lateOnNovember20 = instant(kst: "2026-11-20T23:30:00")
    static let minji = "%EB%AF%BC%EC%A7%80"

    func household(
        _ rig: WebRig, people: [Person] = PersonAPITests.people, clock: any WallClock = FixedClock(DemoReplay.now)
    )
        throws -> (WebData, configuration: String)
    {
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path, people: people)
        let configuration = rig.directory.path("household.yaml")
        try """
        station:
          name: 종로구
        people:
          - name: dad
            born: "1986-05"
          - name: 민지
            born: "2018-03"

        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let data = WebData(store: { store }, settings: { settings }, clock: clock, processIsDustd: { _ in false })
        return (data, configuration)
    }

    func page(_ application: some ApplicationProtocol, _ path: String) async throws -> (HTTPResponse.Status, String) {
        try await application.test(.router) { client in
            try await client.execute(uri: path, method: .get) { ($0.status, text($0)) }
        }
    }

    /// The `intake` numbers of the first totals after `marker` in a `dustctl … --json` document, as
    /// printed (parsing them through JSONSerialization would lose their last digits).
    func intake(_ document: String, after marker: String) throws -> (pm10: String, pm25: String) {
        let start = try #require(document.range(of: marker))
        let members = try #require(document.range(of: "\"intake\":{\"pm10\":", range: start.upperBound..<document.endIndex))
        let pm10 = document[members.upperBound...].prefix { $0 != "," }
        let rest = document[members.upperBound...].dropFirst(pm10.count + ",\"pm25\":".count)
        return (String(pm10), String(rest.prefix { $0 != "}" }))
    }

    /// The day's `data-intake-pm10` of the day totals card.
    func dayIntake(_ page: String) throws -> String {
        let card = try #require(page.range(of: "data-scope=\"day\""))
        let attribute = try #require(page.range(of: "data-intake-pm10=\"", range: card.upperBound..<page.endIndex))
        return String(page[attribute.upperBound...].prefix { $0 != "\"" })
    }

    @Test("Two people: a switcher with a link per person (Hangul percent-encoded), the current one marked; links keep the person")
    func switcher() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, configuration) = try household(rig)
        let application = rig.application(data)

        let (status, first) = try await page(application, "/day/2026-11-20")
        #expect(status == .ok)
        #expect(
            first.contains(
                "</header>\n<nav class=\"pager people\" aria-label=\"가족\"><a href=\"/day/2026-11-20?lang=ko&amp;person=dad\" "
                    + "aria-current=\"page\">dad</a><a href=\"/day/2026-11-20?lang=ko&amp;person=\(Self.minji)\">민지</a></nav>\n"))

        let (childStatus, child) = try await page(application, "/day/2026-11-20?person=\(Self.minji)")
        #expect(childStatus == .ok)
        #expect(child.contains("<a href=\"/day/2026-11-20?lang=ko&amp;person=dad\">dad</a>"))
        #expect(child.contains("<a href=\"/day/2026-11-20?lang=ko&amp;person=\(Self.minji)\" aria-current=\"page\">민지</a>"))
        // The language switch, the pager and the week's bars stay on 민지's pages.
        #expect(child.contains("href=\"/day/2026-11-20?lang=en&amp;person=\(Self.minji)\""))
        #expect(child.contains("href=\"/day/2026-11-19?lang=ko&amp;person=\(Self.minji)\""))
        #expect(child.contains("href=\"/week/2026-W47?lang=ko&amp;person=\(Self.minji)\""))
        #expect(!child.contains("<script"))

        // Each page is its person's day: dustctl day --person's intake, different for the same air.
        for (name, shown) in [("dad", first), ("민지", child)] {
            let cli = try await rig.dustctl(["day", "2026-11-20", "--person", name, "--config", configuration])
            #expect(cli.status == 0, "\(cli.standardError)")
            #expect(try dayIntake(shown) == intake(cli.standardOutput, after: "\"date\":\"2026-11-20\"").pm10, "\(name)")
        }
        #expect(try dayIntake(first) != dayIntake(child))

        // The English page of today names the people the same way.
        let (_, english) = try await page(application, "/?lang=en&person=dad")
        #expect(
            english.contains(
                "<nav class=\"pager people\" aria-label=\"People\"><a href=\"/?lang=en&amp;person=dad\" aria-current=\"page\">"))
    }

    @Test("A name nobody has is 404 on every page, with the API's sentence")
    func unknownPerson() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, _) = try household(rig)
        for path in ["/?person=mom", "/day/2026-11-20?person=mom", "/week/2026-W47?person=mom", "/week/2026-W47?person=%EC%97%84%EB%A7%88"]
        {
            let (status, body) = try await page(rig.application(data), path)
            #expect(status == .notFound, "\(path)")
            let name = path.hasSuffix("mom") ? "mom" : "엄마"
            // A page in the page's language (Korean first), with the API's facts.
            #expect(body.contains("<p>&quot;\(name)&quot;(이)라는 구성원은 설정되어 있지 않습니다. 설정된 구성원: dad, 민지.</p>"), "\(path)")
            let (_, english) = try await page(rig.application(data), path + "&lang=en")
            #expect(
                english.contains("<p>No such person: no person &quot;\(name)&quot; is configured; configured people: dad, 민지.</p>"),
                "\(path)")
        }
        // The API's 404 stays the line of text programs read.
        let (_, api) = try await page(rig.application(data), "/api/v1/today?person=mom")
        #expect(api == "No such person: no person \"mom\" is configured; configured people: dad, 민지.\n")
        // Without people:, the one person is me and nobody else.
        let (status, _) = try await page(rig.application(try rig.source()), "/day/2026-11-20?person=dad")
        #expect(status == .notFound)
    }

    @Test("Names are escaped in the text and percent-encoded in the links, whatever they hold")
    func hostileName() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let hostile = "<b>\"x&y'</b>"
        let people = [Person(name: hostile, station: "종로구"), Person(name: "민지", station: "종로구")]
        let (data, _) = try household(rig, people: people)
        let (status, body) = try await page(rig.application(data), "/day/2026-11-20")
        #expect(status == .ok)
        #expect(
            body.contains(
                "<a href=\"/day/2026-11-20?lang=ko&amp;person=%3Cb%3E%22x%26y%27%3C%2Fb%3E\" aria-current=\"page\">"
                    + "&lt;b&gt;&quot;x&amp;y&#39;&lt;/b&gt;</a>"))
        #expect(!body.contains("<b>"))
        #expect(XMLParser(data: Data(body.utf8)).parse())
    }

    @Test("The week page sets the household side by side: each cell is dustctl week --person's number")
    func householdWeek() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, configuration) = try household(rig)
        let (status, body) = try await page(rig.application(data), "/week/2026-W47?person=\(Self.minji)")
        #expect(status == .ok)
        #expect(body.contains("<section class=\"card household\"><h2>가족의 흡입량"))
        #expect(body.contains("<th colspan=\"2\" scope=\"colgroup\">dad</th><th colspan=\"2\" scope=\"colgroup\">민지</th>"))
        #expect(XMLParser(data: Data(body.utf8)).parse())
        let table = try #require(body.range(of: "card household")).upperBound
        var pm10: [String: [String]] = [:]
        for name in ["dad", "민지"] {
            let cli = try await rig.dustctl(["week", "--iso", "2026-W47", "--person", name, "--config", configuration])
            #expect(cli.status == 0, "\(cli.standardError)")
            for date in (16...22).map({ "2026-11-\($0)" }) {
                let start = try #require(body.range(of: "data-day=\"\(date)\">", range: table..<body.endIndex))
                let end = try #require(body.range(of: "</tr>", range: start.upperBound..<body.endIndex))
                let row = body[start.upperBound..<end.lowerBound]
                let numbers = try intake(cli.standardOutput, after: "\"date\":\"\(date)\"")
                for (pollutant, value) in [("pm10", numbers.pm10), ("pm25", numbers.pm25)] {
                    #expect(
                        row.contains("data-person=\"\(name)\" data-pollutant=\"\(pollutant)\" data-intake=\"\(value)\""), "\(name) \(date)")
                }
                pm10[name, default: []].append(numbers.pm10)
            }
            let foot = try #require(body.range(of: "<tfoot>", range: table..<body.endIndex))
            let week = try intake(cli.standardOutput, after: "\"total\":")
            #expect(body[foot.upperBound...].contains("data-person=\"\(name)\" data-pollutant=\"pm25\" data-intake=\"\(week.pm25)\""))
            // 민지's page: the week card above the table is hers.
            if name == "민지" { #expect(body.contains("data-intake-pm10=\"\(week.pm10)\"")) }
        }
        // The demo measured 16–20 November; the weekend has no readings (null in both).
        #expect(pm10["dad"]?.prefix(5).contains("null") == false)
        #expect(pm10["dad"] != pm10["민지"])
    }

    @Test(
        "Long Korean names: the legend wraps into rows inside the chart, none over another; a name wider than the chart is shortened, whole in its title"
    )
    func householdLegendFits() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let names = ["김민준아빠님의아주긴이름입니다정말로요", "박서연엄마", "할머니김순자할머니김순자할머니김순자할머니김순자할머니김순자길다", "막내김도윤"]
        let (data, _) = try household(rig, people: names.map { Person(name: $0, station: "종로구") })
        let (status, body) = try await page(rig.application(data), "/week/2026-W47")
        #expect(status == .ok)
        let start = try #require(body.range(of: "<svg class=\"chart household-chart\""))
        let end = try #require(body.range(of: "</svg>", range: start.upperBound..<body.endIndex))
        let chart = String(body[start.lowerBound..<end.upperBound])
        #expect(XMLParser(data: Data(chart.utf8)).parse())
        // Each legend entry: its swatch's x and y, then its label.
        let pattern =
            #/<rect class="person p\d" x="([\d.]+)" y="([\d.]+)" width="8" height="8" rx="2"/><text class="label" x="[\d.]+" y="[\d.]+"><title>([^<]+)</title>([^<]+)</text>/#
        let entries = chart.matches(of: pattern).map { (x: Double($0.1)!, y: Double($0.2)!, name: String($0.3), shown: String($0.4)) }
        #expect(entries.map(\.name) == names)
        #expect(Set(entries.map(\.y)).count >= 3, "the legend takes rows: \(entries.map(\.y))")
        for (index, entry) in entries.enumerated() {
            let right = entry.x + 11 + DashboardRenderer.labelWidth(entry.shown)
            #expect(right <= 316, "\(entry.shown) ends at \(right)")
            if index > 0, entries[index - 1].y == entry.y {
                #expect(entries[index - 1].x + 11 + DashboardRenderer.labelWidth(entries[index - 1].shown) < entry.x)
            }
        }
        #expect(entries[2].shown.hasSuffix("…") && entries[2].shown.count < names[2].count)
        #expect(entries[1].shown == "박서연엄마")
        // The plot moves down by the rows the legend took: the bars start below the legend's last row.
        let lastRow = entries.map(\.y).max()!
        let bars = chart.matches(of: #/data-bar-of="[^"]+" data-intake/#).count
        #expect(bars > 0)
        for match in chart.matches(of: #/<rect class="person p\d" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="[\d.]+" rx="1.5"/#) {
            #expect(Double(match.1)! > lastRow + 8)
        }
    }

    @Test("The household's week as a chart: per day a PM2.5 bar per person, each the table's number; a legend names them")
    func householdChart() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, configuration) = try household(rig)
        let (status, body) = try await page(rig.application(data), "/week/2026-W47")
        #expect(status == .ok)
        let start = try #require(body.range(of: "<svg class=\"chart household-chart\""))
        let end = try #require(body.range(of: "</svg>", range: start.upperBound..<body.endIndex))
        let chart = String(body[start.lowerBound..<end.upperBound])
        #expect(chart.contains("role=\"img\"><title>가족의 하루별 초미세먼지 흡입량</title>"))
        #expect(chart.contains(">dad</text>") && chart.contains(">민지</text>"))
        #expect(XMLParser(data: Data(chart.utf8)).parse())
        for (index, name) in ["dad", "민지"].enumerated() {
            let cli = try await rig.dustctl(["week", "--iso", "2026-W47", "--person", name, "--config", configuration])
            #expect(cli.status == 0, "\(cli.standardError)")
            // The days measured (16–20 November) have a bar in the person's colour with dustctl's number.
            for date in (16...20).map({ "2026-11-\($0)" }) {
                let pm25 = try intake(cli.standardOutput, after: "\"date\":\"\(date)\"").pm25
                let day = try #require(chart.range(of: "data-household-date=\"\(date)\">"))
                let closing = try #require(chart.range(of: "</g>", range: day.upperBound..<chart.endIndex))
                let group = chart[day.upperBound..<closing.lowerBound]
                #expect(group.contains("class=\"person p\(index)\""))
                #expect(group.contains("data-bar-of=\"\(name)\" data-intake=\"\(pm25)\"/>"), "\(name) \(date)")
            }
        }
        // The weekend has no readings: no bar, its day still labelled.
        let saturday = try #require(chart.range(of: "data-household-date=\"2026-11-21\">"))
        let closing = try #require(chart.range(of: "</g>", range: saturday.upperBound..<chart.endIndex))
        #expect(!chart[saturday.upperBound..<closing.lowerBound].contains("<rect class=\"person"))
        // One person has no household, so no chart.
        let (single, _) = try household(rig, people: [Person(name: "me", station: "종로구")])
        let (_, alone) = try await page(rig.application(single), "/week/2026-W47")
        #expect(!alone.contains("household-chart"))
    }

    @Test("One person: no switcher, no household, no person= in a link; the page is the same with people: of one or ?person=me")
    func onePersonUnchanged() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let plain = try rig.source()
        let (single, _) = try household(rig, people: [Person(name: "me", station: "종로구")])
        for path in ["/", "/day/2026-11-20", "/day/2026-11-20?lang=en", "/week/2026-W47", "/week/2026-W47?lang=en"] {
            let (status, before) = try await page(rig.application(plain), path)
            #expect(status == .ok)
            #expect(!before.contains("person="))
            #expect(!before.contains("pager people"))
            #expect(!before.contains("class=\"card household\""))
            let (_, onePerson) = try await page(rig.application(single), path)
            #expect(onePerson == before, "\(path)")
            let separator = path.contains("?") ? "&" : "?"
            let (_, named) = try await page(rig.application(plain), path + separator + "person=me")
            #expect(named == before, "\(path)")
        }
    }

    @Test("/metrics: today's intake per person, labelled person, each equal to the API's today for that person")
    func intakePerPerson() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, _) = try household(rig, clock: FixedClock(Self.lateOnNovember20))
        try await rig.application(data).test(.router) { client in
            let metrics = try await client.execute(uri: "/metrics", method: .get) { text($0) }
            let samples = metrics.split(separator: "\n").filter { $0.hasPrefix("finedust_intake_today_grams{") }.map(String.init)
            #expect(samples.count == 4)
            for (name, query) in [("dad", "dad"), ("민지", Self.minji)] {
                let today = try await client.execute(uri: "/api/v1/today?person=\(query)", method: .get) { text($0) }
                let numbers = try intake(today, after: "\"date\":")
                for (pollutant, value) in [("pm10", numbers.pm10), ("pm25", numbers.pm25)] {
                    let intake = try #require(Double(value))
                    #expect(intake > 0)
                    let prefix = "finedust_intake_today_grams{station=\"종로구\",pollutant=\"\(pollutant)\",person=\"\(name)\"} "
                    let sample = try #require(samples.first { $0.hasPrefix(prefix) }, "\(prefix)")
                    #expect(Double(sample.dropFirst(prefix.count)) == intake / 1_000_000)
                }
            }
            // The hours measured are the primary station's, once, without a person.
            #expect(metrics.contains("finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm10\"} 23.0"))
        }
    }
}
