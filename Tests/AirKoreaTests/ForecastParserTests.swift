import AirKorea
import DustKit
import Foundation
import TestSupport
import Testing

private func forecasts(_ fixture: String) throws -> ForecastPage {
    try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(fixture))
}

@Suite("Forecast responses (getMinuDustFrcstDspth) become typed forecasts", .timeLimit(.minutes(10)))
struct ForecastParserTests {
    @Test("PM2.5, 17시 issue for 2026-11-23: every one of the 19 regions with its grade, all four words")
    func everyRegionAndGrade() throws {
        let page = try forecasts("synthesized/forecast-pm25-2026-11-22.xml")
        #expect(page.forecasts.count == 7)
        #expect(page.skippedItems == 0)
        #expect(page.paging.totalCount == 7)
        let issue17 = instant("2026-11-22T17:00:00+09:00")
        let forecast = try #require(
            page.forecasts.first { $0.issuedAt == issue17 && $0.forecastDate == LocalDate(year: 2026, month: 11, day: 23) })
        #expect(forecast.pollutant == .pm25)
        let expected: [ForecastRegion: DustGrade] = [
            .seoul: .veryBad, .jeju: .good, .jeonnam: .moderate, .jeonbuk: .moderate, .gwangju: .bad,
            .gyeongnam: .moderate, .gyeongbuk: .moderate, .ulsan: .moderate, .daegu: .moderate, .busan: .moderate,
            .chungnam: .bad, .chungbuk: .bad, .sejong: .bad, .daejeon: .bad, .yeongdong: .good, .yeongseo: .moderate,
            .gyeonggiSouth: .veryBad, .gyeonggiNorth: .bad, .incheon: .bad,
        ]
        #expect(forecast.grades.byRegion.count == 19)
        #expect(forecast.grades.unrecognized.isEmpty)
        for (region, grade) in expected {
            #expect(forecast.grades.byRegion[region] == .known(grade), "\(region.rawValue)")
        }
        #expect(forecast.cause?.hasPrefix("○ [초미세먼지] 대기 정체로") == true)
        #expect(forecast.overall?.contains("'나쁨'") == true)
    }

    @Test("PM10: the three issues of the day, newest first, today / tomorrow / the day after")
    func issuesAndDates() throws {
        let page = try forecasts("synthesized/forecast-pm10-2026-11-22.xml")
        #expect(page.forecasts.map(\.pollutant) == Array(repeating: .pm10, count: 7))
        #expect(
            page.forecasts.map(\.issuedAt) == [
                instant("2026-11-22T17:00:00+09:00"), instant("2026-11-22T17:00:00+09:00"), instant("2026-11-22T17:00:00+09:00"),
                instant("2026-11-22T11:00:00+09:00"), instant("2026-11-22T11:00:00+09:00"),
                instant("2026-11-22T05:00:00+09:00"), instant("2026-11-22T05:00:00+09:00"),
            ])
        #expect(
            page.forecasts.map(\.forecastDate.description) == [
                "2026-11-22", "2026-11-23", "2026-11-24", "2026-11-22", "2026-11-23", "2026-11-22", "2026-11-23",
            ])
        // 17시 for tomorrow: 서울, 충남, 충북, 경기남부, 인천 나쁨; 영동 보통.
        let tomorrow = page.forecasts[1].grades.byRegion
        #expect(tomorrow[.seoul] == .known(.bad))
        #expect(tomorrow[.incheon] == .known(.bad))
        #expect(tomorrow[.gyeonggiNorth] == .known(.moderate))
        #expect(tomorrow[.yeongdong] == .known(.moderate))
        #expect(tomorrow.values.filter { $0 == .known(.bad) }.count == 5)
    }

    @Test("A region left out of informGrade is simply absent")
    func missingRegion() throws {
        let page = try forecasts("synthesized/forecast-pm10-missing-region-2026-11-22.xml")
        let forecast = try #require(page.forecasts.first)
        #expect(forecast.grades.byRegion.count == 18)
        #expect(forecast.grades.byRegion[.sejong] == nil)
        #expect(forecast.grades.byRegion[.daejeon] == .known(.moderate))
        #expect(forecast.grades.unrecognized.isEmpty)
    }

    @Test("A forecast sentence holding more Latin letters than AirKorea's ever do (a key reversed, base64, cut by letters) is withheld")
    func latinSentencesWithheld() throws {
        let key = "8w0wjLMzgdYrcPWfRtNK+r4xkvh/aesb7wDQz9A7C8cgWu+eIUgkZVr/dDH31XJC1Q4mN4tEDRsFAPYlOgmdV0mz"
        let fullWidth = String(String.UnicodeScalarView(key.unicodeScalars.map { $0.isASCII ? Unicode.Scalar($0.value + 0xFEE0)! : $0 }))
        let fixture = String(decoding: try TestFixtures.data("synthesized/forecast-pm10-2026-11-22.xml"), as: UTF8.self)
        // Letters a reader takes for Latin whatever their form: mathematical bold, circled, Cyrillic look-alikes.
        let bold = String(String.UnicodeScalarView("keyfragment".unicodeScalars.map { Unicode.Scalar($0.value - 0x61 + 0x1D41A)! }))
        let circled = String(String.UnicodeScalarView("keyfragment".unicodeScalars.map { Unicode.Scalar($0.value - 0x61 + 0x24D0)! }))
        let cyrillic = "аеорсхуАВЕКМНОРСТХ"
        for hidden in [
            String(key.reversed()), Data(key.utf8).base64EncodedString(), "8w0wjLMzgdY x rcPWfRtNK", fullWidth, bold, circled, cyrillic,
        ] {
            let planted = fixture.replacing(#/<informCause>[^<]*</informCause>/#) { _ in "<informCause>○ 원인: \(hidden)</informCause>" }
            let page = try AirKoreaResponseParser().parseForecasts(Data(planted.utf8))
            #expect(!page.forecasts.isEmpty && page.forecasts.allSatisfy { $0.cause == KeyEchoGuard.withheldText }, "\(hidden.prefix(12))")
        }
        // AirKorea's own: Korean, a unit's few letters.
        let unit = fixture.replacing(#/<informCause>[^<]*</informCause>/#) { _ in "<informCause>○ [미세먼지] PM2.5 농도가 높음</informCause>" }
        #expect(try AirKoreaResponseParser().parseForecasts(Data(unit.utf8)).forecasts.first?.cause == "○ [미세먼지] PM2.5 농도가 높음")
    }

    @Test("An unknown grade word is kept as unknown, the other regions still read")
    func unknownGradeWord() throws {
        let page = try forecasts("synthesized/forecast-pm25-unknown-grade-2026-11-22.xml")
        let forecast = try #require(page.forecasts.first)
        #expect(forecast.grades.byRegion[.gyeonggiNorth] == .unknown("높음"))
        #expect(forecast.grades.byRegion[.gyeonggiNorth]?.grade == nil)
        #expect(forecast.grades.byRegion[.seoul] == .known(.veryBad))
        #expect(forecast.grades.byRegion.count == 19)
    }

    @Test("Old-format dataTime: 23시 발표, a one-digit hour without 발표, no 시; an unreadable one is skipped")
    func oldDataTime() throws {
        let page = try forecasts("synthesized/forecast-pm10-old-datatime-2020-01-01.xml")
        #expect(
            page.forecasts.map(\.issuedAt) == [
                instant("2020-01-01T23:00:00+09:00"), instant("2020-01-01T05:00:00+09:00"), instant("2020-01-01T11:00:00+09:00"),
            ])
        #expect(page.forecasts.first?.forecastDate == LocalDate(year: 2020, month: 1, day: 2))
        #expect(page.skippedItems == 1)
    }

    @Test(
        "Error envelopes map to the same AirKoreaError as measurements",
        arguments: [
            ("synthesized/error-gateway-05-servicetimeout.xml", ResultCode.serviceTimeout),
            ("synthesized/error-gateway-22-name-in-errmsg-no-code.xml", .dailyQuotaExceeded),
            ("real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml", .dailyQuotaExceeded),
        ])
    func errors(fixture: String, code: ResultCode) throws {
        do {
            _ = try forecasts(fixture)
            Issue.record("parsed an error envelope")
        } catch let error as AirKoreaError {
            guard case .service(let actual, _, _) = error else {
                Issue.record("not a service error: \(error)")
                return
            }
            #expect(actual == code)
        }
    }

    @Test("A DOCTYPE with an external entity is refused before anything is read")
    func externalEntity() throws {
        #expect(throws: AirKoreaError.doctypeNotAllowed) {
            _ = try AirKoreaResponseParser().parseForecasts(try TestFixtures.data("hostile/xxe-local-file.xml"))
        }
    }

    @Test("The request: same service, returnType=xml, searchDate and InformCode; the key redacted")
    func request() throws {
        let key = try #require(ServiceKey("abc+def/ghi=="))
        let endpoint = AirKoreaEndpoint(serviceKey: key)
        let request = AirKoreaRequest.forecast(searchDate: LocalDate(year: 2026, month: 11, day: 22), pollutant: .pm25)
        #expect(
            endpoint.url(for: request)
                == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMinuDustFrcstDspth?serviceKey=abc%2Bdef%2Fghi%3D%3D&returnType=xml&numOfRows=100&pageNo=1&searchDate=2026-11-22&InformCode=PM25"
        )
        #expect(
            endpoint.redactedURL(for: request)
                == "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc/getMinuDustFrcstDspth?serviceKey=***&returnType=xml&numOfRows=100&pageNo=1&searchDate=2026-11-22&InformCode=PM25"
        )
        #expect(request.nextStep(after: Paging(numOfRows: 100, pageNo: 1, totalCount: 7, itemCount: 7)) == .complete)
    }
}

@Suite("Forecast values in DustKit", .timeLimit(.minutes(10)))
struct ForecastValueTests {
    @Test(
        "dataTime variants",
        arguments: [
            ("2026-11-22 17시 발표", "2026-11-22T17:00:00+09:00"),
            ("2020-01-01 23시 발표", "2020-01-01T23:00:00+09:00"),
            ("2020-01-01 23시", "2020-01-01T23:00:00+09:00"),
            ("2020-01-01 23", "2020-01-01T23:00:00+09:00"),
            ("2020-01-01 5시 발표", "2020-01-01T05:00:00+09:00"),
            ("2020-01-0105시 발표", "2020-01-01T05:00:00+09:00"),
            ("2020-01-01 24시 발표", "2020-01-02T00:00:00+09:00"),
        ])
    func dataTimes(text: String, expected: String) {
        #expect(ForecastIssueTime.instant(ofDataTime: text) == instant(expected))
    }

    @Test(
        "dataTime that is not an hour is nil",
        arguments: ["2020-01-01 오후", "2020-01-01 25시 발표", "2020-01-01 17:00", "2020-02-30 05시 발표", "", "17시 발표"])
    func badDataTimes(text: String) {
        #expect(ForecastIssueTime.instant(ofDataTime: text) == nil)
    }

    @Test("informGrade with odd spacing, a long region name, an entry without a colon")
    func gradeStringEdges() {
        let grades = ForecastGrades(informGrade: "서울:나쁨, 강원영동 : 매우 나쁨,,제주 : 좋음,그밖의권역,인천 : ")
        #expect(grades.byRegion[.seoul] == .known(.bad))
        #expect(grades.byRegion[.yeongdong] == .known(.veryBad))
        #expect(grades.byRegion[.jeju] == .known(.good))
        #expect(grades.byRegion[.incheon] == .unknown(""))
        #expect(grades.unrecognized == ["그밖의권역"])
        #expect(ForecastIssueTime.label(instant("2026-11-22T17:00:00+09:00")) == "2026-11-22 17시")
    }
}
