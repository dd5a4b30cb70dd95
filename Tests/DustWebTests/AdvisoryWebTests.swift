import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestSupport
import Testing

@Suite("Advisories on the web: /api/v1/advisories is dustctl advisories --json, the banner, /metrics", .timeLimit(.minutes(10)))
struct AdvisoryWebTests {
    @Test("/api/v1/advisories is byte for byte what dustctl advisories --json prints")
    func apiEqualsCLI() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let printed = try await rig.dustctl(["advisories"])
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(printed.standardOutput.hasPrefix(#"{"region":{"district":"서울","area":null},"#))
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/advisories", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(text(response) == printed.standardOutput)
            }
        }
    }

    @Test("At the demo's now: a banner at the top naming the 경보, escaped; /metrics counts it for the district")
    func bannerAndMetrics() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.storeWarningInForce()
        // A hostile 권역 of another district, also in force: not ours, and never markup.
        try await rig.store.saveAdvisories([
            Advisory(
                pollutant: .pm25, key: "7", district: "경기", area: "<b>남부권</b>", level: .watch,
                issuedAt: instant(kst: "2026-11-20T20:00:00"))
        ])
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/?lang=en", method: .get) { response in
                let page = text(response)
                let banner = try #require(page.range(of: "<section class=\"notices advisories\" role=\"alert\""))
                let heading = try #require(page.range(of: "<div class=\"heading\">"))
                #expect(banner.lowerBound < heading.lowerBound)
                #expect(
                    page.contains(
                        "<p class=\"notice\" data-advisory-pollutant=\"PM10\" data-advisory-level=\"warning\">⚠ <span lang=\"ko\">미세먼지 경보</span> (PM10 warning) · <span lang=\"ko\">서울 도심권</span> · since 2026-11-20 13:00 · 312 µg/m³</p>"
                    ))
                #expect(!page.contains("남부권"))
            }
            // The Korean page says it all in Korean (issue 37).
            try await client.execute(uri: "/?lang=ko", method: .get) { response in
                #expect(
                    text(response).contains(
                        "<p class=\"notice\" data-advisory-pollutant=\"PM10\" data-advisory-level=\"warning\">⚠ 미세먼지 경보 · 서울 도심권 · 2026-11-20 13:00부터 · 312 µg/m³</p>"
                    ))
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let metrics = text(response)
                #expect(metrics.contains("finedust_advisory_active{pollutant=\"PM10\",level=\"warning\"} 1"))
                #expect(metrics.contains("finedust_advisory_active{pollutant=\"PM10\",level=\"watch\"} 0"))
                #expect(metrics.contains("finedust_advisory_active{pollutant=\"PM25\",level=\"watch\"} 0"))
                #expect(metrics.contains("finedust_advisory_active{pollutant=\"O3\",level=\"emergency\"} 0"))
                #expect(metrics.contains("finedust_advisory_in_force{pollutant=\"pm10\",level=\"warning\"} 1"))
                #expect(metrics.contains("finedust_advisory_in_force{pollutant=\"pm25\",level=\"watch\"} 0"))
            }
            let listing = try await rig.source().advisoryListing()
            #expect(listing.active.map(\.district) == ["서울", "경기"])
            #expect(
                ReportJSON.advisories(listing, calendar: DayCalendar(timeZone: KoreaStandardTime.timeZone), now: DemoReplay.now)
                    .serialized.contains(#""area":"<b>남부권</b>""#))
        }
    }

    @Test("One line: ozone in ppm with its digits, an unknown level said as such, a clear time, no control character")
    func headline() {
        let ozone = Advisory(
            pollutant: .o3, key: "k", district: "경기", area: "중부\u{1B}[2J권", level: .unknown("특별경보"),
            issuedAt: instant(kst: "2026-06-11T14:00:00"), clearedAt: instant(kst: "2026-06-12T00:00:00"), issueValue: 0.131)
        #expect(
            AdvisoryWording.headline(ozone, calendar: DayCalendar(timeZone: KoreaStandardTime.timeZone))
                == "오존 특별경보 (O3 level unknown) · 경기 중부\u{FFFD}[2J권 · since 2026-06-11 14:00 · until 2026-06-12 00:00 · 0.131 ppm")
        // The Korean line keeps AirKorea's word too; a word not Korean (or none) is the level unknown, in Korean.
        let calendar = DayCalendar(timeZone: KoreaStandardTime.timeZone)
        #expect(
            AdvisoryWording.koreanHeadline(ozone, calendar: calendar)
                == "오존 특별경보(단계 미상) · 경기 중부\u{FFFD}[2J권 · 2026-06-11 14:00부터 · 2026-06-12 00:00까지 · 0.131 ppm")
        for word in ["", "ALERT"] {
            var unnamed = ozone
            unnamed.level = AdvisoryLevel(word: word)
            #expect(AdvisoryWording.koreanHeadline(unnamed, calendar: calendar).hasPrefix("오존 단계 미상 · "))
        }
    }

    @Test("Once it is cleared, no banner: the page has no advisory section at all")
    func noBanner() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.store.saveAdvisories([
            Advisory(
                pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: instant(kst: "2026-11-20T13:00:00"),
                clearedAt: instant(kst: "2026-11-20T23:00:00"), issueValue: 312)
        ])
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/?lang=en", method: .get) { response in
                #expect(!text(response).contains("advisor"))
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(text(response).contains("finedust_advisory_active{pollutant=\"PM10\",level=\"warning\"} 0"))
            }
        }
    }
}
