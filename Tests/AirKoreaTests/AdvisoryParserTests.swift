import AirKorea
import DustKit
import Foundation
import TestSupport
import Testing

private func advisories(_ fixture: String, _ pollutant: AdvisoryPollutant) throws -> AdvisoryPage {
    try AirKoreaResponseParser().parseAdvisories(try TestFixtures.data(fixture), pollutant: pollutant)
}

@Suite("Advisory responses (getUlfptcaAlarmInfo, getOzAdvsryOccrrncInfo) become typed advisories", .timeLimit(.minutes(10)))
struct AdvisoryParserTests {
    @Test("PM10: every field of the active 경보, the cleared 주의보 and the 경기 one")
    func pm10() throws {
        let page = try advisories("synthesized/advisories-pm10-2026.xml", .pm10)
        #expect(page.skippedItems == 0)
        #expect(page.paging.totalCount == 3)
        #expect(
            page.advisories == [
                Advisory(
                    pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning,
                    issuedAt: instant(kst: "2026-11-20T13:00:00"), clearedAt: nil, issueValue: 312),
                Advisory(
                    pollutant: .pm10, key: "86", district: "서울", area: "도심권", level: .watch,
                    issuedAt: instant(kst: "2026-11-20T09:00:00"), clearedAt: instant(kst: "2026-11-20T13:00:00"),
                    issueValue: 168, clearValue: 312),
                Advisory(
                    pollutant: .pm10, key: "79", district: "경기", area: "남부권", level: .watch,
                    issuedAt: instant(kst: "2026-11-19T15:00:00"), clearedAt: instant(kst: "2026-11-19T22:00:00"),
                    issueValue: 158, clearValue: 95),
            ])
        let active = page.advisories.filter { $0.isActive(at: instant(kst: "2026-11-21T00:20:00")) }
        #expect(active.map(\.key) == ["87"])
    }

    @Test("PM2.5: the itemCode PM25 is the pollutant asked for")
    func pm25() throws {
        let page = try advisories("synthesized/advisories-pm25-2026.xml", .pm25)
        #expect(page.advisories.map(\.key) == ["41"])
        #expect(page.advisories.first?.clearedAt == instant(kst: "2026-11-20T20:00:00"))
        #expect(page.advisories.first?.issueValue == 78)
    }

    @Test("An item of another pollutant is skipped and counted")
    func otherPollutant() throws {
        let page = try advisories("synthesized/advisories-pm25-2026.xml", .pm10)
        #expect(page.advisories.isEmpty)
        #expect(page.skippedItems == 1)
    }

    @Test("An issue date that is no date skips its item (counted), the page is kept; values that are no number are unknown, not 0")
    func unparsableDateAndValues() throws {
        let page = try advisories("synthesized/advisories-pm10-unparsable-date-2026.xml", .pm10)
        #expect(page.skippedItems == 1)
        let advisory = try #require(page.advisories.first)
        #expect(page.advisories.count == 1)
        #expect(advisory.key == "89")
        #expect(advisory.issueValue == nil)
        #expect(advisory.clearValue == nil)
        #expect(advisory.clearedAt == instant(kst: "2026-11-20T18:00:00"))
    }

    @Test("Ozone: no sn (a key from district, 권역 and issue time), times carrying their date, 24:00, maxVal, an unknown level kept")
    func ozone() throws {
        let page = try advisories("synthesized/advisories-o3-2026.xml", .o3)
        #expect(page.skippedItems == 0)
        #expect(page.advisories.count == 2)
        let seoul = page.advisories[0]
        #expect(seoul.pollutant == .o3)
        #expect(seoul.key == Advisory.hashedKey(of: "O3 서울 동남권 2026-06-12T15:00:00+09:00"))
        #expect(seoul.level == .watch)
        #expect(seoul.issuedAt == instant(kst: "2026-06-12T15:00:00"))
        #expect(seoul.clearedAt == instant(kst: "2026-06-12T18:00:00"))
        #expect(seoul.issueValue == 0.128)
        #expect(seoul.clearValue == 0.092)
        #expect(seoul.maxValue == 0.134)
        let gyeonggi = page.advisories[1]
        #expect(gyeonggi.level == .unknown("특별경보"))
        #expect(gyeonggi.level.rank == nil)
        #expect(gyeonggi.clearedAt == instant(kst: "2026-06-12T00:00:00"))
    }

    @Test("An unapproved service (gateway reason 20) is a typed access-denied error")
    func unapproved() throws {
        #expect(
            throws: AirKoreaError.service(.accessDenied, reportedCode: "20", serverMessage: "SERVICE_ACCESS_DENIED_ERROR / SERVICE ERROR")
        ) {
            _ = try advisories("synthesized/error-gateway-20-advisory-service-access-denied.xml", .pm10)
        }
    }

    @Test("Texts pass the key-echo guard and the terminal check like every network text")
    func hostileText() throws {
        let key = try #require(ServiceKey("abcDEF123456ghiJKL789=="))
        var text = String(decoding: try TestFixtures.data("synthesized/advisories-pm10-2026.xml"), as: UTF8.self)
        text = text.replacingOccurrences(of: "<moveName>남부권</moveName>", with: "<moveName>abc&#x44;EF123456ghiJKL789</moveName>")
        text = text.replacingOccurrences(of: "<districtName>경기</districtName>", with: "<districtName>경기\u{9B}2J</districtName>")
        let page = try AirKoreaResponseParser(echoGuard: key.echoGuard).parseAdvisories(Data(text.utf8), pollutant: .pm10)
        // 경기 with a control character is no 시도 of the 17: the advisory concerns no one and is dropped;
        // the echoing 권역 is no Korean name: an unknown value. Neither text is kept anywhere.
        #expect(page.advisories.allSatisfy { $0.key != "79" })
        #expect(page.unknownValues >= 2)
        #expect(page.advisories.allSatisfy { !$0.district.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0xFFFD } })
        #expect(page.advisories.allSatisfy { $0.area != KeyEchoGuard.withheldText })
    }

    @Test("The requests: their services, year and itemCode (none for ozone); the key redacted")
    func requests() throws {
        let endpoint = AirKoreaEndpoint(serviceKey: try #require(ServiceKey("abc+def/ghi==")))
        #expect(
            endpoint.redactedURL(for: .advisories(year: 2026, pollutant: .pm25))
                == "https://apis.data.go.kr/B552584/UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo?serviceKey=***&returnType=xml&numOfRows=100&pageNo=1&year=2026&itemCode=PM25"
        )
        #expect(
            endpoint.url(for: .advisories(year: 2026, pollutant: .o3))
                == "https://apis.data.go.kr/B552584/OzYlwsndOccrrncInforInqireSvc/getOzAdvsryOccrrncInfo?serviceKey=abc%2Bdef%2Fghi%3D%3D&returnType=xml&numOfRows=100&pageNo=1&year=2026"
        )
        let request = AirKoreaRequest.advisories(year: 2026, pollutant: .pm10)
        #expect(request.nextStep(after: Paging(numOfRows: 100, pageNo: 1, totalCount: 130, itemCount: 100)) == .next(request.page(2)))
    }
}

@Suite("Advisory values in DustKit", .timeLimit(.minutes(10)))
struct AdvisoryValueTests {
    private let advisory = Advisory(
        pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: instant(kst: "2026-11-20T13:00:00"),
        clearedAt: instant(kst: "2026-11-20T19:00:00"))

    @Test("Active from its issue (inclusive) until its clear (exclusive); no clear is active")
    func active() {
        #expect(!advisory.isActive(at: instant(kst: "2026-11-20T12:59:59")))
        #expect(advisory.isActive(at: instant(kst: "2026-11-20T13:00:00")))
        #expect(advisory.isActive(at: instant(kst: "2026-11-20T18:59:59")))
        #expect(!advisory.isActive(at: instant(kst: "2026-11-20T19:00:00")))
        var open = advisory
        open.clearedAt = nil
        #expect(open.isActive(at: instant(kst: "2027-01-01T00:00:00")))
    }

    @Test("District and 권역: the district must match; a named 권역 matches itself and the whole district")
    func matching() {
        #expect(advisory.concerns(AdvisoryRegion(district: "서울")))
        #expect(advisory.concerns(AdvisoryRegion(district: " 서울 ", area: "도심권")))
        #expect(!advisory.concerns(AdvisoryRegion(district: "서울", area: "동북권")))
        #expect(!advisory.concerns(AdvisoryRegion(district: "경기")))
        var wholeDistrict = advisory
        wholeDistrict.area = "서울"
        #expect(wholeDistrict.concerns(AdvisoryRegion(district: "서울", area: "동북권")))
        wholeDistrict.area = nil
        #expect(wholeDistrict.concerns(AdvisoryRegion(district: "서울", area: "동북권")))
        #expect(AdvisoryRegion(district: "서울", area: " ").area == nil)
    }

    @Test(
        "Issue and clear times",
        arguments: [
            ("2026-11-20", "14:00", nil, "2026-11-20T14:00:00+09:00"),
            ("2026-11-20", "14", nil, "2026-11-20T14:00:00+09:00"),
            ("2026-11-20", "24:00", nil, "2026-11-21T00:00:00+09:00"),
            (nil, "2026-06-12 15:30", nil, "2026-06-12T15:30:00+09:00"),
            (nil, "15:00", "2026-06-12", "2026-06-12T15:00:00+09:00"),
            ("", "09:00", "2026-06-12", "2026-06-12T09:00:00+09:00"),
        ] as [(String?, String, String?, String)])
    func times(date: String?, time: String, dataDate: String?, expected: String) {
        #expect(AdvisoryTime.instant(date: date, time: time, dataDate: dataDate) == instant(expected))
    }

    @Test("Times that are not one", arguments: ["24:30", "25:00", "14:60", "+1:00", "오후 2시", "", "2026-11-3O 14:00", "14:00:00"])
    func notTimes(time: String) {
        #expect(AdvisoryTime.instant(date: "2026-11-20", time: time, dataDate: nil) == nil)
    }

    @Test("Levels: 주의보 1, 경보 2, 중대경보 3 (words or numbers); any other Korean word kept, without a rank")
    func levels() {
        #expect(AdvisoryLevel(word: "주의보").rank == 1)
        #expect(AdvisoryLevel(word: "경보") == .warning)
        #expect(AdvisoryLevel(word: "2").rank == 2)
        #expect(AdvisoryLevel(word: "중대경보").rank == 3)
        #expect(AdvisoryLevel(word: "해제") == .unknown("해제"))
        // No level at all: unknown, and a headline says "?" rather than leaving a gap.
        #expect(AdvisoryLevel(word: "").rank == nil && AdvisoryLevel(word: "").word == "?")
        #expect(AdvisoryLevel(word: "해제").name == "unknown")
        // A word in Latin letters could be a piece of the key: never echoed.
        #expect(AdvisoryLevel(word: "Fj1mybGUS4U").word == ServerVocabulary.unknownValue)
    }
}
