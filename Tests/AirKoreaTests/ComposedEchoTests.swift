import AirKorea
import DustKit
import Foundation
import TestSupport
import Testing

/// A key shaped like data.go.kr's (96 characters of base64).
private let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
private let letters = key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }

/// Eleven letters and digits of the key from `start`: each piece alone is no echo (12 make one).
private func piece(_ start: Int) -> String { String(letters.dropFirst(start).prefix(11)) }

private func response(items: String) -> Data {
    Data(
        ("<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
            + items + "</items><numOfRows>100</numOfRows><pageNo>1</pageNo><totalCount>1</totalCount></body></response>").utf8)
}

/// Every text a page's values hold, side by side in the order a report could print them.
private func everyText(_ values: [String?]) -> String { values.compactMap { $0 }.joined(separator: " ") }

@Suite(
    "Trust, round four: a key split over fields is never shown whole — vocabularies at the parser, the whole text at each door",
    .timeLimit(.minutes(10)))
struct ComposedEchoTests {
    let parser = AirKoreaResponseParser(echoGuard: ServiceKey(key)!.echoGuard)
    let echoGuard = ServiceKey(key)!.echoGuard

    @Test("Each piece alone is no echo, and two side by side are: the split the guard per field missed")
    func piecesAreTheAttack() {
        #expect(!echoGuard.echoes(piece(0)) && !echoGuard.echoes(piece(11)))
        #expect(echoGuard.echoes(piece(0) + " " + piece(11)))
    }

    @Test("Advisory district + 권역 of 11 key characters each: the district is no 시도 (dropped), the 권역 an unknown value")
    func advisoryDistrictAndArea() throws {
        func item(_ district: String, _ area: String, sn: String) -> String {
            "<item><sn>\(sn)</sn><dataDate>2026-11-20</dataDate><districtName>\(district)</districtName><moveName>\(area)</moveName>"
                + "<itemCode>PM10</itemCode><issueGbn>경보</issueGbn><issueDate>2026-11-20</issueDate><issueTime>13:00</issueTime>"
                + "<issueVal>312</issueVal><clearDate>-</clearDate><clearTime>-</clearTime><clearVal>-</clearVal></item>"
        }
        let page = try parser.parseAdvisories(
            response(
                items: item(piece(0), piece(11), sn: "1") + item("서울", piece(22), sn: "2") + item("경기", "남부권", sn: "3")
                    + item("서울", piece(33) + "권", sn: "4")), pollutant: .pm10)
        #expect(page.advisories.map(\.key) == ["2", "3", "4"])
        #expect(page.advisories.map(\.area) == [ServerVocabulary.unknownValue, "남부권", ServerVocabulary.unknownValue])
        #expect(page.unknownValues == 4)
        let shown = everyText(page.advisories.flatMap { [$0.district, $0.area, $0.level.word, $0.key] })
        #expect(!echoGuard.echoes(shown), "\(shown)")
    }

    @Test("pm10Flag + pm25Flag of 11 key characters each: outside the four flags, an unknown value; the values stay unknown")
    func flags() throws {
        let page = try parser.parseMeasurements(
            response(
                items: "<item><stationName>종로구</stationName><dataTime>2026-11-20 13:00</dataTime><pm10Value>45</pm10Value>"
                    + "<pm25Value>22</pm25Value><pm10Flag>\(piece(0))</pm10Flag><pm25Flag>\(piece(11))</pm25Flag>"
                    + "<o3Flag>통신장애</o3Flag></item>"))
        let reading = try #require(page.readings.first)
        #expect(reading.flag.fineDust == ServerVocabulary.unknownValue && reading.flag.ultraFineDust == ServerVocabulary.unknownValue)
        #expect(reading.concentration.fineDust == nil && reading.concentration.ultraFineDust == nil)
        #expect(reading.gases.flag.o3 == "통신장애")
        #expect(page.unknownValues == 2)
    }

    @Test("Station name, network and address with key characters: the station is dropped, the network and address unknown")
    func stations() throws {
        let page = try parser.parseStations(
            response(
                items: "<item><stationName>\(piece(0))</stationName><mangName>도시대기</mangName><addr>서울</addr></item>"
                    + "<item><stationName>종로구</stationName><mangName>\(piece(11))</mangName><addr>\(piece(22))</addr></item>"
                    + "<item><stationName>남양동1</stationName><mangName>도로변대기</mangName><addr>서울 종로구 종로35가길 19</addr></item>"
            ))
        #expect(page.stations.map(\.name) == ["종로구", "남양동1"])
        #expect(page.stations[0].network == ServerVocabulary.unknownValue && page.stations[0].address == ServerVocabulary.unknownValue)
        #expect(page.stations[1].address == "서울 종로구 종로35가길 19")
        #expect(page.unknownValues == 3)
        #expect(!echoGuard.echoes(everyText(page.stations.flatMap { [$0.name, $0.network, $0.address] })))
    }

    @Test("Result code + message: only the API's words are quoted; an unknown code or message is an unknown value")
    func resultCodeAndMessage() {
        let body = Data(
            "<response><header><resultCode>\(piece(0))</resultCode><resultMsg>\(piece(11))</resultMsg></header></response>".utf8)
        do {
            _ = try parser.parseMeasurements(body)
            Issue.record("accepted")
        } catch {
            #expect(!echoGuard.echoes(error.description), "\(error.description)")
            #expect(
                error.description.hasPrefix("AirKorea returned result code (unknown value) ((unknown value)): "), "\(error.description)")
        }
        let real = Data(
            "<response><header><resultCode>30</resultCode><resultMsg>SERVICE KEY IS NOT REGISTERED ERROR.</resultMsg></header></response>"
                .utf8)
        do {
            _ = try parser.parseMeasurements(real)
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("AirKorea returned result code 30 (SERVICE KEY IS NOT REGISTERED ERROR.): "))
        }
    }

    @Test(
        "A result code is kept only when it is AirKorea's: a key sent a piece a poll as the code (or the gateway's reason) never reaches the log, the database or status"
    )
    func resultCodeKeptInVocabulary() {
        func reported(_ body: String) -> (code: String?, message: String?) {
            do {
                _ = try parser.parseMeasurements(Data(body.utf8))
                Issue.record("accepted: \(body)")
                return (nil, nil)
            } catch {
                guard case .service(_, let code, let message) = error else {
                    Issue.record("not a service error: \(error)")
                    return (nil, nil)
                }
                return (code, message)
            }
        }
        // Eight polls, eight pieces: what the store keeps of each (`FetchError.resultCode`) is the word, so the column
        // never holds the key joined up.
        var stored: [String] = []
        for start in stride(from: 0, to: letters.count, by: 11) {
            let answer = reported("<response><header><resultCode>\(piece(start))</resultCode><resultMsg>x</resultMsg></header></response>")
            #expect(answer.code == ServerVocabulary.unknownValue)
            #expect(answer.message == ServerVocabulary.unknownValue)
            stored.append(
                FetchError.response(.service(.unknown, reportedCode: answer.code ?? "", serverMessage: ""), httpStatus: 200).resultCode
                    ?? "")
        }
        #expect(!echoGuard.echoes(stored.joined()), "\(stored.joined())")
        // The gateway's envelope: its reason code and the names beside it.
        let gateway = reported(
            "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>SERVICE_ACCESS_DENIED_ERROR</returnAuthMsg>"
                + "<returnReasonCode>\(piece(0))\u{2028}\u{061C}</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>")
        #expect(gateway.code == ServerVocabulary.unknownValue)
        #expect(gateway.message == "SERVICE_ACCESS_DENIED_ERROR / SERVICE ERROR")
        // A 4,000-character code is one word, not a 4,000-character status line.
        let long = reported("<response><header><resultCode>\(String(repeating: "7", count: 4000))</resultCode></header></response>")
        #expect(long.code == ServerVocabulary.unknownValue)
        // AirKorea's own codes and words are kept as sent.
        #expect(
            reported(
                "<response><header><resultCode>22</resultCode><resultMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</resultMsg></header></response>"
            ) == ("22", "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"))
        #expect(
            reported(
                "<OpenAPI_ServiceResponse><cmmMsgHeader><returnAuthMsg>SERVICETIMEOUT_ERROR</returnAuthMsg></cmmMsgHeader></OpenAPI_ServiceResponse>"
            ).code == "?")
        #expect(ResultCode.allCases.allSatisfy { ResultCode.inVocabulary($0.rawValue) == $0.rawValue })
    }

    @Test("A forecast's overall and cause holding two halves of the key are withheld together; a real forecast is kept")
    func forecastTexts() throws {
        func item(_ overall: String, _ cause: String) -> String {
            "<item><informCode>PM10</informCode><dataTime>2026-11-20 17시 발표</dataTime><informData>2026-11-21</informData>"
                + "<informGrade>서울 : 보통,제주 : 좋음</informGrade><informOverall>\(overall)</informOverall><informCause>\(cause)</informCause></item>"
        }
        let split = try parser.parseForecasts(response(items: item("○ 전 권역 보통 " + piece(0), piece(11) + " 대기 정체")))
        #expect(split.forecasts.first?.overall == KeyEchoGuard.withheldText)
        #expect(split.forecasts.first?.cause == KeyEchoGuard.withheldText)
        // Each half holds more Latin letters than AirKorea's sentences do: each is withheld on its own, counted,
        // and the grades, which carried nothing of the key, are kept.
        #expect(split.unknownValues == 2)
        #expect(split.forecasts.first?.grades.byRegion[.seoul] == .known(.moderate))
        // The reverse order too: a report may print the cause first.
        let reversed = try parser.parseForecasts(response(items: item(piece(11) + " 보통", "정체 " + piece(0))))
        #expect(reversed.forecasts.first?.cause == KeyEchoGuard.withheldText)
        let real = try parser.parseForecasts(response(items: item("○ [미세먼지] 전 권역이 '좋음'∼'보통'으로 예상됩니다.", "○ [미세먼지] 대기 정체")))
        #expect(real.forecasts.first?.overall == "○ [미세먼지] 전 권역이 '좋음'∼'보통'으로 예상됩니다.")
        #expect(real.unknownValues == 0)
    }

    @Test("An ozone advisory's key is a hash of its district, 권역 and time, holding no text the server wrote")
    func ozoneKey() {
        let issued = Date(timeIntervalSince1970: 1_781_244_000)
        let hashed = Advisory.key(pollutant: .o3, district: "서울", area: "동남권", issuedAt: issued)
        #expect(hashed.hasPrefix("O3-") && hashed.count == 19)
        #expect(!hashed.contains("서울") && !hashed.contains("동남권"))
        #expect(hashed == Advisory.hashedKey(of: "O3 서울 동남권 \(KoreaStandardTime.iso8601(issued))"))
        #expect(hashed != Advisory.key(pollutant: .o3, district: "서울", area: "도심권", issuedAt: issued))
    }
}
