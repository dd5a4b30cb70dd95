import AirKorea
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("The weekly outlook (getMinuDustWeekFrcstDspth) becomes a typed WeeklyOutlook", .timeLimit(.minutes(10)))
struct WeeklyOutlookParserTests {
    @Test("The real shape: four days, 19 regions each (강원영서/강원영동 as 영서/영동), 신뢰도 apart, gwthcnd")
    func realShape() throws {
        let page = try AirKoreaResponseParser().parseWeeklyOutlooks(try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"))
        #expect(page.skippedItems == 0)
        #expect(page.paging.totalCount == 1)
        let outlook = try #require(page.outlooks.first)
        #expect(outlook.publishedOn == LocalDate(year: 2026, month: 11, day: 22))
        #expect(outlook.days.map(\.date.description) == ["2026-11-25", "2026-11-26", "2026-11-27", "2026-11-28"])
        #expect(outlook.days.allSatisfy { $0.byRegion.count == 19 && $0.unmatchedRegions.isEmpty })
        #expect(outlook.days.map { $0.confidence?.level } == [.high, .high, .low, .low])
        let first = outlook.days[0]
        #expect(first.byRegion[.seoul] == .known(.high))
        #expect(first.byRegion[.gyeonggiNorth] == .known(.high))
        #expect(first.byRegion[.yeongseo] == .known(.low))
        #expect(first.byRegion[.jeju] == .known(.low))
        #expect(outlook.days[1].byRegion[.gyeonggiNorth] == .known(.low))
        #expect(outlook.highDays(for: .seoul) == 2)
        #expect(outlook.highDays(for: .gyeonggiNorth) == 1)
        #expect(outlook.highDays(for: .busan) == 0)
        #expect(outlook.conditions?.hasPrefix("○ 3일 후에는 대기 정체로") == true)
    }

    @Test("The text as published: `서울 : 낮음, 인천 : 낮음, 경기북부 : 높음, …, 신뢰도 : 높음`")
    func publishedText() {
        let day = WeeklyOutlookDay(
            date: LocalDate(year: 2026, month: 11, day: 25), content: "서울 : 낮음, 인천 : 낮음, 경기북부 : 높음, 강원영동 : 높음, 신뢰도 : 높음")
        #expect(day.byRegion == [.seoul: .known(.low), .incheon: .known(.low), .gyeonggiNorth: .known(.high), .yeongdong: .known(.high)])
        #expect(day.confidence == .known(.high))
        #expect(day.unmatchedRegions.isEmpty)
    }

    @Test(
        "Spacing variants read alike: no spaces, extra spaces, a trailing comma, a space inside a name",
        arguments: [
            "서울:낮음,경기북부:높음,신뢰도:낮음", "  서울  :   낮음 ,   경기북부 :높음 ,신뢰도 :  낮음  ", "서울 : 낮음, 경기북부 : 높음, 신뢰도 : 낮음,",
            "서울 : 낮음,, 경기 북부 : 높 음, 신뢰도 : 낮음, ",
        ])
    func spacing(_ text: String) {
        let day = WeeklyOutlookDay(date: LocalDate(year: 2026, month: 11, day: 25), content: text)
        #expect(day.byRegion == [.seoul: .known(.low), .gyeonggiNorth: .known(.high)])
        #expect(day.confidence == .known(.low))
        #expect(day.unmatchedRegions.isEmpty)
    }

    @Test("An unknown word is kept as published with no grade; an unknown region is kept and never matched; no colon says nothing")
    func unknowns() {
        let day = WeeklyOutlookDay(
            date: LocalDate(year: 2026, month: 11, day: 25), content: "서울 : 보통, 강원 : 높음, 제주 낮음, 부산 : 높음\u{1B}[31m")
        #expect(day.byRegion[.seoul] == .unknown("보통"))
        #expect(day.byRegion[.seoul]?.level == nil)
        #expect(day.unmatchedRegions == ["강원": .known(.high)])
        #expect(day.byRegion[.jeju] == nil)
        #expect(day.confidence == nil)
        // Network text is terminal-safe: the escape character does not survive.
        #expect(day.byRegion[.busan]?.word.contains("\u{1B}") == false)
        #expect(day.byRegion[.busan]?.level == nil)
    }

    @Test("An item without a readable presnatnDt is skipped and counted; a day without a readable date is left out")
    func unreadableDates() throws {
        let body = """
            <response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>
            <item><presnatnDt>2026-11-2</presnatnDt><frcstOneDt>2026-11-25</frcstOneDt><frcstOneCn>서울 : 높음</frcstOneCn></item>
            <item><presnatnDt>2026-11-22</presnatnDt><frcstOneDt>11월 25일</frcstOneDt><frcstOneCn>서울 : 높음</frcstOneCn>
            <frcstTwoDt>2026-11-26</frcstTwoDt><frcstTwoCn>서울 : 낮음, 신뢰도 : 낮음</frcstTwoCn></item>
            <item><presnatnDt>2026-11-21</presnatnDt></item>
            </items><numOfRows>10</numOfRows><pageNo>1</pageNo><totalCount>3</totalCount></body></response>
            """
        let page = try AirKoreaResponseParser().parseWeeklyOutlooks(Data(body.utf8))
        #expect(page.skippedItems == 2)
        let outlook = try #require(page.outlooks.first)
        #expect(outlook.days.map(\.date) == [LocalDate(year: 2026, month: 11, day: 26)])
        #expect(outlook.days[0].byRegion == [.seoul: .known(.low)])
    }

    @Test("The request: getMinuDustWeekFrcstDspth with searchDate, counted as a forecast call")
    func request() throws {
        let key = try #require(ServiceKey("Fj1mybGUS4U3hdKn0iTemnwtnJGc66cYlMtQ"))
        let endpoint = AirKoreaEndpoint(baseURL: "https://apis.data.go.kr/B552584", serviceKey: key)
        let url = endpoint.redactedURL(for: .weeklyOutlook(searchDate: LocalDate(year: 2026, month: 11, day: 22)))
        #expect(
            url == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMinuDustWeekFrcstDspth"
                + "?serviceKey=***&returnType=xml&numOfRows=10&pageNo=1&searchDate=2026-11-22")
    }
}
