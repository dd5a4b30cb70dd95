import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Every route that takes a date or a week, driven with boundary and random ones: each answers
/// 200 for a supported date and 404 otherwise, and no page links to a day or week that would 404.
/// One GET of /week/0001-W01 used to trap in the pager's week before (year 0) and stop dustd.
@Suite("Dates and weeks on the web: 200 inside 2000-01-01 … 2099-12-31, 404 outside, never a trap", .timeLimit(.minutes(10)))
struct PeriodRouteTests {
    @Test("Every date and week route answers 200 or 404 (a malformed end= too, as REFERENCE §13 says) for boundary and random dates")
    func everyRoute() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let random = PeriodSamples.random(count: 60, seed: 19)
        let dates = PeriodSamples.boundaryDates + random.dates
        let weeks = PeriodSamples.boundaryWeeks + random.weeks
        let answered = try await rig.application(try rig.source()).test(.router) { client in
            var answered = 0
            for date in dates {
                let supported = (try? SupportedPeriod.date(date)) != nil
                for path in ["/day/\(date)?lang=en", "/day/\(date)", "/api/v1/day/\(date)"] where !date.isEmpty {
                    try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == (supported ? .ok : .notFound), "\(path)")
                        Self.expectLinksSupported(text(response), path: path)
                    }
                    answered += 1
                }
                // A rolling week's seven days all lie in the period: ending on 2000-01-01 to 06 it would begin in 1999.
                let endsWeek = (try? SupportedPeriod.weekEnd(date)) != nil
                #expect(!endsWeek || supported)
                try await client.execute(uri: "/api/v1/week?end=\(date)", method: .get) { response in
                    #expect(response.status == (endsWeek ? .ok : .notFound), "end=\(date)")
                }
                answered += 1
            }
            for week in weeks where !week.isEmpty {
                let supported = (try? SupportedPeriod.week(week)) != nil
                for path in ["/week/\(week)?lang=en", "/week/\(week)", "/api/v1/week/\(week)"] {
                    try await client.execute(uri: path, method: .get) { response in
                        #expect(response.status == (supported ? .ok : .notFound), "\(path)")
                        Self.expectLinksSupported(text(response), path: path)
                    }
                    answered += 1
                }
            }
            return answered
        }
        #expect(answered == 3 * (dates.count - 1) + dates.count + 3 * (weeks.count - 1))
    }

    @Test("An unsupported date or week is a 404 that names the range")
    func refusalNamesRange() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            // A page's 404 is a page, in the page's language, with a way back; the API's stays a line of text.
            try await client.execute(uri: "/week/0001-W01?lang=en", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let page = text(response)
                #expect(page.contains("<html lang=\"en\">") && page.contains("<title>No such page · FineDust</title>"))
                #expect(
                    page.contains(
                        "<p>No such page: 0001-W01 runs 0001-01-01 to 0001-01-07, outside the dates FineDust keeps; "
                            + "give a week whose seven days lie from 2000-01-01 to 2099-12-31 (2000-W01 to 2099-W52).</p>"))
                #expect(page.contains("<a href=\"/?lang=en\">Back to today</a>"))
            }
            try await client.execute(uri: "/week/0001-W01", method: .get, headers: [.acceptLanguage: "ko-KR"]) { response in
                let page = text(response)
                #expect(page.contains("<html lang=\"ko\">") && page.contains("<title>페이지가 없습니다 · FineDust</title>"))
                #expect(page.contains("<p>0001-W01은(는) 0001-01-01부터 0001-01-07까지로, FineDust가 보관하는 날짜 밖입니다. "))
                #expect(page.contains("<a href=\"/?lang=ko\">오늘의 대시보드로</a>"))
            }
            try await client.execute(uri: "/api/v1/week?end=9999-12-31", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(
                    text(response)
                        == "No such page: 9999-12-31 is outside the dates FineDust keeps; give a day from 2000-01-01 to 2099-12-31.\n")
            }
            try await client.execute(uri: "/api/v1/week?end=2000-01-01", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(
                    text(response)
                        == "No such page: the week ending 2000-01-01 would begin on 1999-12-26, outside the dates FineDust keeps; "
                        + "end it on 2000-01-07 or later.\n")
            }
            try await client.execute(uri: "/day/2026-02-30?lang=en", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(
                    text(response).contains(
                        "<p>No such page: 2026-02-30 is not a day: 2026-02 has 28 days; give a day from 2000-01-01 to 2099-12-31.</p>"))
            }
            try await client.execute(uri: "/day/2026-02-30", method: .get) { response in
                #expect(text(response).contains("<p>2026-02-30은(는) 없는 날입니다: 2026-02은(는) 28일까지 있습니다."))
            }
            // Malformed in the query as in the path: a 404 saying how to write it (it was a 400).
            try await client.execute(uri: "/api/v1/week?end=abc", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(text(response) == "No such page: write the day as YYYY-MM-DD, from 2000-01-01 to 2099-12-31.\n")
            }
            // The week after 2026's 53rd (households will type it): how many weeks 2027 has.
            try await client.execute(uri: "/week/2027-W53?lang=en", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(
                    text(response).contains(
                        "<p>No such page: 2027-W53 is not a week: 2027 has 52 ISO weeks, the last 2027-W52 (2027-12-27 to 2028-01-02); "
                            + "give a week whose seven days lie from 2000-01-01 to 2099-12-31.</p>"))
            }
        }
    }

    @Test("Today's rolling week on a clock of 2000-01-03 would begin in 1999: a 404 that says so, as ?end= gets")
    func todaysWeekBeforeThePeriod() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let clock = FixedClock(instant(kst: "2000-01-03T12:00:00"))
        try await rig.application(try rig.source(clock: clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/week", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(
                    text(response)
                        == "No such page: the week ending 2000-01-03 would begin on 1999-12-28, outside the dates FineDust keeps; "
                        + "end it on 2000-01-07 or later.\n")
            }
            try await client.execute(uri: "/api/v1/week?end=2000-01-07", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test("The pager stops at the supported period: no link before 2000-01-01 or 2000-W01, none after 2099-12-31 or 2099-W52")
    func pagerAtTheEnds() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // A clock in 2100, so that "next" is not withheld for being in the future.
        let in2100 = Date(timeIntervalSince1970: 4_102_444_800 + 30 * 86_400)
        try await rig.application(try rig.source(clock: FixedClock(in2100))).test(.router) { client in
            try await client.execute(uri: "/day/2000-01-01?lang=en", method: .get) { response in
                let page = text(response)
                #expect(response.status == .ok)
                #expect(!page.contains("/day/1999-12-31") && !page.contains("/week/1999-W52"))
                #expect(page.contains("href=\"/day/2000-01-02?lang=en\" rel=\"next\""))
                #expect(page.contains("<span>‹ "))
            }
            try await client.execute(uri: "/week/2000-W01?lang=en", method: .get) { response in
                let page = text(response)
                #expect(response.status == .ok)
                #expect(!page.contains("/week/1999-W52"))
                #expect(page.contains("href=\"/week/2000-W02?lang=en\" rel=\"next\""))
            }
            try await client.execute(uri: "/day/2099-12-31?lang=en", method: .get) { response in
                let page = text(response)
                #expect(response.status == .ok)
                #expect(!page.contains("/day/2100-01-01") && !page.contains("/week/2099-W53"))
                #expect(page.contains("href=\"/day/2099-12-30?lang=en\" rel=\"prev\""))
            }
            try await client.execute(uri: "/week/2099-W52?lang=en", method: .get) { response in
                let page = text(response)
                #expect(response.status == .ok)
                #expect(!page.contains("/week/2099-W53"))
                #expect(page.contains("href=\"/week/2099-W51?lang=en\" rel=\"prev\""))
            }
        }
    }

    /// Every `/day/…` and `/week/…` a page links to must answer 200.
    static func expectLinksSupported(_ page: String, path: String) {
        for match in page.matches(of: /\/day\/([0-9]{4}-[0-9]{2}-[0-9]{2})\?/) {
            #expect((try? SupportedPeriod.date(match.output.1)) != nil, "\(path) links to /day/\(match.output.1)")
        }
        for match in page.matches(of: /\/week\/([0-9]{4}-W[0-9]{2})\?/) {
            #expect((try? SupportedPeriod.week(match.output.1)) != nil, "\(path) links to /week/\(match.output.1)")
        }
    }
}
