import AirKorea
import DustKit
import DustServices
import DustStore
import DustWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// The fixture's weekly outlook re-dated so it was published yesterday (KST) and its days lie ahead of
/// today (of `now`); 서울 is 높음 on its first two days. Returns the publication day.
func storeWeeklyOutlookForNow(_ store: SQLiteStore, now: PinnedNow) async throws -> LocalDate {
    let today = DayCalendar(timeZone: KoreaStandardTime.timeZone).date(containing: now.date)
    let page = try AirKoreaResponseParser().parseWeeklyOutlooks(try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"))
    var outlook = try #require(page.outlooks.first)
    let shift = today.adding(days: -1).daysSinceEpoch - outlook.publishedOn.daysSinceEpoch
    outlook.publishedOn = outlook.publishedOn.adding(days: shift)
    outlook.days = outlook.days.map { day in
        var moved = day
        moved.date = day.date.adding(days: shift)
        return moved
    }
    try await store.saveWeeklyOutlook(outlook)
    return outlook.publishedOn
}

@Suite("The weekly outlook on the web: /api/v1/forecast's outlook, the forecast panel", .timeLimit(.minutes(10)))
struct WeeklyOutlookWebTests {
    @Test("/api/v1/forecast ends with the outlook, byte for byte what dustctl forecast --json prints")
    func apiEqualsCLI() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        _ = try await storeForecastForNow(rig.store, now: rig.now)
        let published = try await storeWeeklyOutlookForNow(rig.store, now: rig.now)
        let first = published.adding(days: 3)
        let forecast = try await rig.dustctl(["forecast"])
        #expect(forecast.status == 0, "\(forecast.standardError)")
        #expect(
            forecast.standardOutput.contains(
                ",\"outlook\":{\"publishedOn\":\"\(published)\",\"highDays\":2,\"days\":[{\"date\":\"\(first)\",\"grade\":\"high\","
                    + "\"word\":\"높음\",\"confidence\":{\"grade\":\"high\",\"word\":\"높음\"}},"))
        #expect(
            forecast.standardOutput.hasSuffix(
                "\"conditions\":\"○ 3일 후에는 대기 정체로 국내 생성 미세먼지가 축적되어 수도권·충남은 농도가 높을 것으로 예상되고, 4일 후부터는 북서풍이 불어 대기 확산이 원활할 것으로 예상됩니다.\"}}\n"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(forecast.standardOutput.utf8)) as? [String: Any])
        let days = try #require((document["outlook"] as? [String: Any])?["days"] as? [[String: Any]])
        #expect(days.map { $0["grade"] as? String } == ["high", "high", "low", "low"])
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/forecast", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response) == forecast.standardOutput)
            }
        }
    }

    @Test("No outlook for the days ahead: the key outlook is null, last; the panel says the newest stored has only past days")
    func noOutlook() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // A month after the demo: its outlook's days are all past.
        let later = FixedClock(DemoReplay.now.addingTimeInterval(30 * 86_400))
        try await rig.application(try rig.source(clock: later)).test(.router) { client in
            try await client.execute(uri: "/api/v1/forecast", method: .get) { response in
                #expect(text(response).hasSuffix(",\"outlook\":null}\n"))
            }
            try await client.execute(uri: "/?lang=en", method: .get) { response in
                let page = text(response)
                #expect(page.contains("No current weekly outlook: every day of the newest stored (published "))
                #expect(
                    page.contains(") has passed; dustd fetches it once a day after 17:30 KST.")
                        && !page.contains("No weekly outlook is stored yet"))
            }
        }
    }

    @Test("The forecast panel shows the four days for the region with their confidence")
    func panel() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        _ = try await storeForecastForNow(rig.store, now: rig.now)
        let published = try await storeWeeklyOutlookForNow(rig.store, now: rig.now)
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/?lang=en", method: .get) { response in
                let page = text(response)
                #expect(page.contains("<div class=\"outlook\" data-outlook-published=\"\(published)\" data-outlook-high-days=\"2\">"))
                #expect(page.contains("<h3>Weekly PM2.5 outlook"))
                #expect(page.components(separatedBy: "<span class=\"chip g3\">high</span>").count == 3)
                #expect(page.components(separatedBy: "<span class=\"chip g1\">low</span>").count == 3)
                #expect(page.contains("<span class=\"aside\">confidence high</span>"))
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(text(response).contains("주간 초미세먼지 예보"))
                #expect(text(response).contains("<span class=\"aside\">신뢰도 높음</span>"))
            }
        }
    }
}
