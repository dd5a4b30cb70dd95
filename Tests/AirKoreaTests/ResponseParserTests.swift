import CLibXML2
import DustKit
import Foundation
import TestSupport
import Testing

@testable import AirKorea

/// The slot whose hour starts at `local` (an ISO 8601 time with offset), computed without FineDust's code.
func slot(_ local: String) -> Slot {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: local) else { fatalError("bad test time \(local)") }
    return Slot(startEpochSeconds: Int64(date.timeIntervalSince1970))
}

func parse(_ fixture: String, station: String? = nil) throws -> MeasurementPage {
    try AirKoreaResponseParser().parseMeasurements(try TestFixtures.data(fixture), requestedStation: station)
}

func parseError(_ fixture: String, station: String? = nil) throws -> AirKoreaError? {
    do {
        _ = try AirKoreaResponseParser().parseMeasurements(try TestFixtures.data(fixture), requestedStation: station)
        return nil
    } catch let error as AirKoreaError {
        return error
    }
}

@Suite("Normal responses become hourly readings", .timeLimit(.minutes(10)))
struct NormalResponseTests {
    @Test("A DAILY 종로구 response gives 24 hours of 2026-11-20, 24:00 being the last hour of the day")
    func jongnoDaily() throws {
        let page = try parse("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        #expect(page.readings.count == 24)
        #expect(page.skippedItems == 0)
        #expect(Set(page.readings.map(\.station)) == ["종로구"])
        let newest = try #require(page.readings.first)
        #expect(newest.slot == slot("2026-11-20T23:00:00+09:00"))
        #expect(newest.concentration == DustPair(fineDust: 45, ultraFineDust: 22))
        #expect(newest.stationCode == "111123")
        #expect(newest.sidoName == "서울")
        #expect(newest.network == "도시대기")
        let oldest = try #require(page.readings.last)
        #expect(oldest.slot == slot("2026-11-20T00:00:00+09:00"))
        #expect(oldest.concentration == DustPair(fineDust: 38, ultraFineDust: 19))

        let bySlot = Dictionary(uniqueKeysWithValues: page.readings.map { ($0.slot, $0) })
        let calibration = try #require(bySlot[slot("2026-11-20T05:00:00+09:00")])
        #expect(calibration.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(calibration.flag == DustPair(fineDust: "점검및교정", ultraFineDust: "점검및교정"))
        let pm25Missing = try #require(bySlot[slot("2026-11-20T13:00:00+09:00")])
        #expect(pm25Missing.concentration == DustPair(fineDust: 47, ultraFineDust: nil))
        #expect(pm25Missing.flag == DustPair(fineDust: nil, ultraFineDust: nil))
    }

    @Test("The real 강남구 capture: 24:00, a 통신장애 hour and a hour without 24-hour values")
    func gangnamFromRealCapture() throws {
        let page = try parse("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml")
        #expect(page.readings.count == 7)
        let bySlot = Dictionary(uniqueKeysWithValues: page.readings.map { ($0.slot, $0) })
        let midnight = try #require(bySlot[slot("2026-08-20T23:00:00+09:00")])
        #expect(midnight.concentration == DustPair(fineDust: 41, ultraFineDust: 36))
        #expect(midnight.grade1h == DustPair(fineDust: .moderate, ultraFineDust: .bad))
        #expect(midnight.average24h == DustPair(fineDust: 46, ultraFineDust: 34))
        let outage = try #require(bySlot[slot("2026-08-20T16:00:00+09:00")])
        #expect(outage.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(outage.flag == DustPair(fineDust: "통신장애", ultraFineDust: "통신장애"))
        #expect(outage.grade1h == DustPair(fineDust: nil, ultraFineDust: nil))
        let noAverage = try #require(bySlot[slot("2026-08-20T18:00:00+09:00")])
        #expect(noAverage.concentration == DustPair(fineDust: 53, ultraFineDust: 39))
        #expect(noAverage.average24h == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(noAverage.grade24h == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(noAverage.grade1h == DustPair(fineDust: .moderate, ultraFineDust: .bad))
    }

    @Test("Old-service station results have no stationName: the requested station names them")
    func oldServiceRoadside() throws {
        #expect(try parseError("real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml") == .missingStationName)
        let page = try parse("real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml", station: "강남대로")
        #expect(page.readings.count == 10)
        #expect(page.paging == Paging(numOfRows: 10, pageNo: 1, totalCount: 23, itemCount: 10))
        let request = AirKoreaRequest.stationRealtime(station: "강남대로", term: .daily, page: 1, rows: 10)
        #expect(request.nextStep(after: page.paging) == .next(request.page(2)))
        #expect(request.page(3).nextStep(after: Paging(numOfRows: 10, pageNo: 3, totalCount: 23, itemCount: 3)) == .complete)
        let first = try #require(page.readings.first)
        #expect(first.station == "강남대로")
        #expect(first.slot == slot("2019-02-12T19:00:00+09:00"))
        #expect(first.concentration == DustPair(fineDust: 67, ultraFineDust: 27))
        #expect(first.average24h == DustPair(fineDust: 72, ultraFineDust: 40))
        #expect(first.grade24h == DustPair(fineDust: .moderate, ultraFineDust: .bad))
        #expect(first.network == "도로변대기")
        #expect(page.readings.last?.slot == slot("2019-02-12T10:00:00+09:00"))
        #expect(page.readings.last?.concentration == DustPair(fineDust: 95, ultraFineDust: 57))
    }

    @Test("Old-service province response with stray blank lines and mixed indentation")
    func oldServiceGyeonggi() throws {
        let page = try parse("real/rltm-sido-oldapi-gyeonggi-ver1.3-2019-11-28-truncated.xml")
        #expect(page.readings.map(\.station) == ["신풍동", "인계동"])
        #expect(
            page.readings.map(\.concentration) == [DustPair(fineDust: 35, ultraFineDust: 14), DustPair(fineDust: 28, ultraFineDust: 25)])
        #expect(page.readings.allSatisfy { $0.slot == slot("2019-11-28T17:00:00+09:00") })
        #expect(page.paging.totalCount == 97)
    }

    @Test("Without ver the new service sends no PM2.5: unknown, not an error, not zero")
    func noVersionMeansNoPM25() throws {
        let page = try parse("real/rltm-sido-newapi-seoul-nover-2023-05-31-truncated.xml")
        #expect(page.readings.map(\.station) == ["중구", "한강대로", "종로구", "청계천로", "종로"])
        #expect(page.readings.map(\.concentration.fineDust) == [21, 48, 19, 28, 26])
        #expect(page.readings.allSatisfy { $0.concentration.ultraFineDust == nil })
        #expect(page.paging.totalCount == 40)
    }

    @Test("A one-row old-service page")
    func numOfRowsOne() throws {
        let page = try parse("real/rltm-station-oldapi-ver1.3-2020-01-22-numOfRows1.xml", station: "종로구")
        #expect(page.readings.count == 1)
        #expect(page.readings[0].slot == slot("2020-01-22T15:00:00+09:00"))
        #expect(page.readings[0].concentration == DustPair(fineDust: 52, ultraFineDust: 33))
        // A full page of 1 row, 23 claimed: page 2 is next, and a DAILY window (48 rows) ends at page 48.
        let request = AirKoreaRequest.stationRealtime(station: "종로구", term: .daily, page: 1, rows: 1)
        #expect(request.nextStep(after: page.paging) == .next(request.page(2)))
        #expect(request.page(23).nextStep(after: page.paging) == .complete)
    }

    @Test("Dashes and empty grades are unknown (real 2018 item in an envelope)")
    func dashValues() throws {
        let page = try parse("synthesized/wrapped-oldapi-dash-values-2018-05-03.xml", station: "중구")
        let reading = try #require(page.readings.first)
        #expect(reading.slot == slot("2018-05-03T20:00:00+09:00"))
        #expect(reading.concentration == DustPair(fineDust: 31, ultraFineDust: 16))
        #expect(reading.average24h == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(reading.grade24h == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(reading.grade1h == DustPair(fineDust: .moderate, ultraFineDust: .moderate))
    }

    @Test("Old 00 hours are the last hour of the previous day; a stale station keeps its old slot")
    func oldMidnightHours() throws {
        let wrapped = try parse("synthesized/wrapped-oldapi-dash-and-stale-station-2016-01-10.xml")
        #expect(wrapped.readings.map(\.station) == ["동대문구", "동대문"])
        #expect(wrapped.readings[0].slot == slot("2016-01-09T23:00:00+09:00"))
        #expect(wrapped.readings[0].concentration == DustPair(fineDust: 36, ultraFineDust: 24))
        #expect(wrapped.readings[1].slot == slot("2015-10-20T15:00:00+09:00"))
        #expect(wrapped.readings[1].concentration == DustPair(fineDust: nil, ultraFineDust: nil))

        let old = try parse("synthesized/station-oldapi-nostationname-00-hours-2016-01-10.xml", station: "종로구")
        #expect(
            old.readings.map(\.slot) == [
                slot("2016-01-10T01:00:00+09:00"), slot("2016-01-10T00:00:00+09:00"),
                slot("2016-01-09T23:00:00+09:00"), slot("2016-01-09T22:00:00+09:00"),
            ])
        #expect(old.readings.map(\.concentration.fineDust) == [41, 39, 36, nil])
    }

    @Test("A 673-station 전국 response, one hour, 금천구 in 통신장애")
    func nation() throws {
        let page = try parse("synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml")
        #expect(page.readings.count == 673)
        #expect(Set(page.readings.map(\.station)).count == 673)
        #expect(page.readings.allSatisfy { $0.slot == slot("2026-11-20T23:00:00+09:00") })
        let geumcheon = try #require(page.readings.first { $0.station == "금천구" })
        #expect(geumcheon.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(geumcheon.flag.fineDust == "통신장애")
        let jongno = try #require(page.readings.first { $0.station == "종로구" })
        #expect(jongno.concentration == DustPair(fineDust: 45, ultraFineDust: 22))
        #expect(page.readings.first { $0.station == "전남광주측정소004" }?.sidoName == "전남광주")
    }

    @Test("A 3MONTH response: 2,200 consecutive hours")
    func threeMonths() throws {
        let page = try parse("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        #expect(page.readings.count == 2200)
        let slots = page.readings.map(\.slot).sorted()
        #expect(slots.first == slot("2026-11-20T23:00:00+09:00").advanced(by: -2199))
        #expect(zip(slots, slots.dropFirst()).allSatisfy { $1.startEpochSeconds - $0.startEpochSeconds == 3600 })
    }

    @Test("totalCount 0 is an empty result, not an error")
    func emptyResult() throws {
        let page = try parse("synthesized/empty-result-totalcount-0.xml")
        #expect(page.readings.isEmpty)
        #expect(page.paging.totalCount == 0)
    }

    @Test("An item with an impossible dataTime is skipped and counted, the rest kept")
    func impossibleDataTime() throws {
        let xml = """
            <response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>
            <item><stationName>종로구</stationName><dataTime>2026-02-30 01:00</dataTime><pm10Value>30</pm10Value></item>
            <item><stationName>종로구</stationName><dataTime>2026-02-28 01:00</dataTime><pm10Value>31</pm10Value></item>
            <item><stationName>종로구</stationName><pm10Value>32</pm10Value></item>
            </items><totalCount>3</totalCount></body></response>
            """
        let page = try AirKoreaResponseParser().parseMeasurements(Data(xml.utf8))
        #expect(page.readings.map(\.concentration.fineDust) == [31])
        #expect(page.skippedItems == 2)
    }

    @Test("A name from AirKorea is trimmed of every white space a setting is: 종로구 with U+3000, a no-break space or U+2003 is 종로구")
    func namesTrimmedOfUnicodeSpace() throws {
        for spaced in ["종로구\u{3000}", "\u{00A0}종로구", "종로구\u{2003}", " 종로구 ", "\u{3000}\u{00A0}종로구\u{2002}"] {
            let xml = """
                <response><header><resultCode>00</resultCode></header><body><items>
                <item><stationName>\(spaced)</stationName><dataTime>2026-02-28 01:00</dataTime><pm10Value>31</pm10Value></item>
                </items><totalCount>1</totalCount></body></response>
                """
            let page = try AirKoreaResponseParser().parseMeasurements(Data(xml.utf8))
            #expect(page.readings.map(\.station) == ["종로구"], "\(spaced.unicodeScalars.map { String($0.value, radix: 16) })")
            let list = """
                <response><header><resultCode>00</resultCode></header><body><items><item><stationName>\(spaced)</stationName>\
                <addr>서울 종로구\u{3000}</addr><dmX>37.5</dmX><dmY>127.0</dmY></item></items></body></response>
                """
            let stations = try AirKoreaResponseParser().parseStations(Data(list.utf8)).stations
            #expect(stations.map(\.name) == ["종로구"])
        }
        // Only white space is no name at all (an answer of items without one is refused as the old service's).
        let blank = """
            <response><header><resultCode>00</resultCode></header><body><items>
            <item><stationName>\u{3000}\u{00A0}</stationName><dataTime>2026-02-28 01:00</dataTime><pm10Value>31</pm10Value></item>
            </items><totalCount>1</totalCount></body></response>
            """
        #expect(throws: AirKoreaError.missingStationName) { try AirKoreaResponseParser().parseMeasurements(Data(blank.utf8)) }
    }

    @Test("Numbers parse exactly as Swift's own Double parser")
    func decimals() throws {
        let values = ["0.0022", "0.46", "37.572025", "126.799906", "35", "0.0109", "999.9"]
        for value in values {
            let xml =
                "<response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName><dmX>\(value)</dmX></item></items></body></response>"
            let page = try AirKoreaResponseParser().parseStations(Data(xml.utf8))
            #expect(page.stations.first?.latitude == Double(value))
        }
    }

    @Test("A station list is refused when its items carry dataTime: hourly readings, a sido's, the old service's, a forecast")
    func readingsAreNoStationList() throws {
        for answer in [
            "synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", "synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml",
            "real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml", "synthesized/forecast-pm25-2026-11-22.xml",
        ] {
            #expect(throws: AirKoreaError.notAStationList, "\(answer)") {
                try AirKoreaResponseParser().parseStations(try TestFixtures.data(answer))
            }
        }
        #expect(AirKoreaError.notAStationList.description.contains("not a station list (getMsrstnList"))
    }

    @Test(
        "Hourly readings are refused when no item is an hour's and the items are another operation's: a forecast, an outlook, advisories, a station list"
    )
    func otherOperationsAreNoReadings() throws {
        for answer in [
            "synthesized/forecast-pm10-2026-11-20.xml", "synthesized/weekly-outlook-2026-11-22.xml", "synthesized/advisories-pm25-2026.xml",
            "real/msrstn-list-oldapi-bucheon-truncated.xml",
        ] {
            #expect(throws: AirKoreaError.notMeasurements, "\(answer)") {
                try AirKoreaResponseParser().parseMeasurements(try TestFixtures.data(answer))
            }
        }
        // An answer with no items, or items whose dataTime is broken, is no other operation's: zero readings, counted.
        let empty = try AirKoreaResponseParser().parseMeasurements(
            Data("<response><header><resultCode>00</resultCode></header><body><items/></body></response>".utf8))
        #expect(empty.readings.isEmpty && empty.skippedItems == 0)
        let broken = try AirKoreaResponseParser().parseMeasurements(
            Data(
                "<response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName><dataTime>2026-13-01 01:00</dataTime><pm10Value>40</pm10Value></item></items></body></response>"
                    .utf8))
        #expect(broken.readings.isEmpty && broken.skippedItems == 1)
        #expect(AirKoreaError.notMeasurements.description.contains("not hourly readings"))
    }

    @Test("Station list: dmX is the latitude; a nested <item> field does not split the item")
    func stationList() throws {
        let page = try AirKoreaResponseParser().parseStations(try TestFixtures.data("real/msrstn-list-oldapi-bucheon-truncated.xml"))
        #expect(page.stations.map(\.name) == ["소사본동", "내동"])
        #expect(page.stations[0].latitude == 37.480033)
        #expect(page.stations[0].longitude == 126.799906)
        #expect(page.stations[0].address == "경기 부천시 경인옛로 73소사어울마당 소향관")
        #expect(page.stations[1].network == "도시대기")
    }
}

@Suite("Error responses become typed errors", .timeLimit(.minutes(10)))
struct ErrorResponseTests {
    @Test(
        "Old-service error codes in the normal envelope",
        arguments: [
            ("real/error-oldapi-20-service-access-denied.xml", ResultCode.accessDenied, "20", RetryAdvice.waitForNextHour),
            ("real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml", .dailyQuotaExceeded, "22", .waitUntilMidnightKST),
            ("real/error-legacy-gateway-99-service-key-not-registered-nonairkorea.xml", .serviceKeyNotRegistered, "99", .waitForNextHour),
            (
                "real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml", .serviceKeyNotRegistered, "30",
                .waitForNextHour
            ),
            ("synthesized/error-gateway-05-servicetimeout.xml", .serviceTimeout, "05", .retryWithBackoff),
            ("synthesized/error-gateway-22-name-in-errmsg-no-code.xml", .dailyQuotaExceeded, "?", .waitUntilMidnightKST),
            ("synthesized/error-03-nodata.xml", .noData, "03", .waitForNextHour),
        ])
    func resultCodes(fixture: String, code: ResultCode, reported: String, advice: RetryAdvice) throws {
        let error = try #require(try parseError(fixture))
        guard case .service(let actual, let reportedCode, _) = error else {
            Issue.record("expected a service error, got \(error)")
            return
        }
        #expect(actual == code)
        #expect(reportedCode == reported)
        #expect(error.retryAdvice == advice)
        #expect(error.description.contains(reported))
    }

    @Test("The key-not-registered message says what to check")
    func actionableMessage() throws {
        let error = try #require(try parseError("real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml"))
        #expect(error.description.contains("Decoding key"))
        #expect(error.description.contains("1–2 hours"))
    }

    @Test(
        "Not XML at all",
        arguments: [
            ("synthesized/html-503-service-unavailable.html", AirKoreaError.htmlPage(title: "503 Service Temporarily Unavailable")),
            ("synthesized/empty-body.xml", .emptyBody),
            ("real/error-gateway-05-servicetimeout-json-airkorea.json", .jsonBody),
            ("real/rltm-station-oldapi-item-fragment-dash-values-2018-05-03.xml", .notAnAirKoreaResponse(root: "item")),
            (
                "real/rltm-items-oldapi-fragment-dash-and-stale-station-2016-01-10.xml",
                .malformedXML(line: 19, reason: "content after the end of the document (libxml2 error 5)")
            ),
            // XML, and an answer of AirKorea's, but a station list's: no hourly readings.
            ("real/nearby-msrstn-oldapi-seocho-gangnam-boostcamp.xml", .notMeasurements),
        ])
    func notXML(fixture: String, expected: AirKoreaError?) throws {
        #expect(try parseError(fixture) == expected)
    }

    @Test(
        "An HTTP status with no AirKorea error: 1xx as the answer is a broken peer, retried; 4xx a key or address to check; 5xx retried",
        arguments: [
            (101, RetryAdvice.retryWithBackoff, "which ends no request"), (103, .retryWithBackoff, "which ends no request"),
            (403, .waitForNextHour, "check api.baseURL and the service key"), (404, .waitForNextHour, "check api.baseURL"),
            (503, .retryWithBackoff, "the service is having trouble"),
        ])
    func httpStatuses(status: Int, advice: RetryAdvice, says: String) {
        let error = FetchError.httpStatus(status)
        #expect(error.retryAdvice == advice)
        #expect(error.description.contains("HTTP \(status)") && error.description.contains(says), "\(error)")
        #expect(error.httpStatus == status)
    }

    @Test("A compressed body is named as such, with what undoes it, not 'ends early': gzip made by gzip(1), and each format's magic")
    func compressedBodies() throws {
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-c", TestFixtures.url("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml").path]
        let output = Pipe()
        gzip.standardOutput = output
        try gzip.run()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        #expect(compressed.count > 100 && gzip.terminationStatus == 0)
        #expect(throws: AirKoreaError.compressedBody(.gzip)) { try AirKoreaResponseParser().parseMeasurements(compressed) }
        #expect(throws: AirKoreaError.compressedBody(.gzip)) { try AirKoreaResponseParser().parseStations(compressed) }
        for format in CompressedFormat.allCases {
            let body = Data(format.magic + Array("<response><header><resultCode>00</resultCode></header></response>".utf8))
            #expect(throws: AirKoreaError.compressedBody(format)) { try AirKoreaResponseParser().parseMeasurements(body) }
        }
        #expect(
            AirKoreaError.compressedBody(.gzip).description
                == "The response is gzip-compressed data, not XML: a proxy compressed it unasked, or the file was saved compressed (gunzip it first)."
        )
        #expect(AirKoreaError.compressedBody(.gzip).retryAdvice == .retryWithBackoff)
        // Plain text (a proxy's `Forbidden`, a captive portal's sentence) was "ends early (line 1) … cut off" too.
        for text in ["Forbidden", "  hello world, this is not xml\n", "\u{FEFF}Service Unavailable", "\u{01}not xml <<<", "x<response/>"] {
            #expect(throws: AirKoreaError.plainText) { try AirKoreaResponseParser().parseMeasurements(Data(text.utf8)) }
        }
        #expect(AirKoreaError.plainText.retryAdvice == .retryWithBackoff && !AirKoreaError.plainText.description.contains("cut off"))
        // A UTF-16 document (its BOM first) is still libxml2's to read.
        let utf16 =
            Data([0xFF, 0xFE]) + "<response><header><resultCode>00</resultCode></header></response>".data(using: .utf16LittleEndian)!
        do {
            _ = try AirKoreaResponseParser().parseMeasurements(utf16)
        } catch {
            #expect(error != .plainText, "\(error)")
        }
        // A zlib stream at any level (`Content-Encoding: deflate`), which libxml2 called "ends early (line 1)".
        for level in [0x01, 0x5E, 0x9C, 0xDA] as [UInt8] {
            let body = Data([0x78, level] + Array("<response/>".utf8))
            #expect(throws: AirKoreaError.compressedBody(.zlib)) { try AirKoreaResponseParser().parseMeasurements(body) }
        }
        // `x ` also makes a multiple of 31, with the preset-dictionary flag: text, not zlib.
        do throws(AirKoreaError) {
            _ = try AirKoreaResponseParser().parseMeasurements(Data("x <response/>".utf8))
        } catch {
            if case .compressedBody = error { Issue.record("\(error)") }
        }
        // Two bytes of the magic alone are not enough for the longer ones: `PK` then XML is libxml2's to refuse.
        do throws(AirKoreaError) {
            _ = try AirKoreaResponseParser().parseMeasurements(Data("PK<response/>".utf8))
            Issue.record("PK<response/> parsed")
        } catch {
            if case .compressedBody = error { Issue.record("\(error)") }
        }
    }

    @Test("A page's title is named only when it is a status page's, in FineDust's own words; any other is the server's text, not quoted")
    func pageTitles() throws {
        let key = "8w0wjLMzgdYrcPWfRtNK+r4xkvh/aesb7wDQz9A7C8cgWu+eIUgkZVr/dDH31XJC1Q4mN4tEDRsFAPYlOgmdV0mz"
        func title(_ text: String) -> String {
            Array("<html><head><title>\(text)</title></head></html>".utf8).withUnsafeBytes { BodySniffer.htmlTitle(in: $0) }
        }
        #expect(title("503 Service Temporarily Unavailable") == "503 Service Temporarily Unavailable")
        #expect(title("  502   bad gateway ") == "502 Bad Gateway")
        #expect(title("Error - Not Found") == "")
        #expect(title("Service Unavailable") == "Service Unavailable")
        #expect(title("504 8w0wjLMzgdY x rcPWfRtNK") == "HTTP 504")
        #expect(title("504 Gateway Time-out") == "504 Gateway Time-out", "nginx's page")
        #expect(title("Error: Not Found") == "")
        #expect(title("831 Bad Gateway") == "", "three digits that are no status of HTTP's")
        // The key reversed, base64-encoded, or cut by a letter every 11: none of it shown.
        for text in [String(key.reversed()), Data(key.utf8).base64EncodedString(), "abc def ghi", "Down"] {
            #expect(title(text) == "", "\(text)")
        }
        // A root element likewise: named when other services use it, not when it is anything a server made up.
        #expect(AirKoreaError.notAnAirKoreaResponse(root: "rss").description.contains("its root element is <rss>"))
        let made = AirKoreaError.notAnAirKoreaResponse(root: "k-" + String(key.prefix(11)) + "-x").description
        #expect(made.contains("its root element is another") && !made.contains(String(key.prefix(11))), "\(made)")
    }

    @Test("An HTML title of one character with 30,000 combining marks (60 KB, all read) is not quoted whole")
    func combiningMarksInTitle() throws {
        // Within the 64 KiB the sniffer reads, so the whole title is found and only the cut bounds it.
        let title = "Down e" + String(repeating: "\u{0301}", count: 30_000)
        let page = Data("<html><head><title>\(title)</title></head></html>".utf8)
        let error = try #require(throws: AirKoreaError.self) { try AirKoreaResponseParser().parseMeasurements(page) }
        guard case .htmlPage(let shown) = error else {
            Issue.record("expected an HTML page, got \(error)")
            return
        }
        #expect(shown == "", "a title not a status page's is not quoted")
        #expect(error.description.utf8.count < 1_000, "\(error.description.utf8.count) bytes")
    }

    @Test(
        "Truncated documents, including the real paste that stops after the first item",
        arguments: [
            "synthesized/truncated-daily.xml",
            "real/rltm-station-newapi-jongno-ver1.4-2023-05-13-first-item-only.xml",
        ])
    func truncated(fixture: String) throws {
        let error = try #require(try parseError(fixture))
        guard case .truncated = error else {
            Issue.record("expected .truncated, got \(error)")
            return
        }
        #expect(error.retryAdvice == .retryWithBackoff)
    }

    @Test("Every prefix of a response short of its closing tag is a typed error, never a crash")
    func everyPrefix() throws {
        let full = try TestFixtures.data("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml")
        let parser = AirKoreaResponseParser()
        let closingTag = full.count - "</response>\n".utf8.count
        for length in stride(from: 0, through: closingTag, by: 7) {
            #expect(throws: AirKoreaError.self) { try parser.parseMeasurements(full.prefix(length)) }
        }
    }
}

@Suite("libxml2 errors are typed by their code, never by their message", .timeLimit(.minutes(10)))
struct LibXMLErrorCodeTests {
    /// Four lines: an error on line 2 is in the middle of the document, one on line 4 at its end.
    let document = Data("<response>\n<header><resultCode>00</resultCode></header>\n<body/>\n</response>\n".utf8)

    func classify(_ error: LibXMLError, in body: Data? = nil, openField: String? = nil) -> AirKoreaError {
        (body ?? document).withUnsafeBytes { error.airKoreaError(document: $0, openField: openField) }
    }

    @Test("XML_ERR_INVALID_ENCODING, newer libxml2's code for bytes that do not decode, is invalid UTF-8")
    func invalidEncoding() {
        let body = Data("<response>\n<header/>\n<body>".utf8) + [0xFF] + Data("</body>\n</response>\n".utf8)
        let error = LibXMLError(domain: XML_FROM_IO, code: XML_ERR_INVALID_ENCODING, line: 3)
        #expect(classify(error, in: body) == .invalidUTF8(line: 3))
    }

    @Test("XML_ERR_TAG_NOT_FINISHED and XML_ERR_DOCUMENT_EMPTY are a truncation even mid-document")
    func truncationCodes() {
        for code in [XML_ERR_TAG_NOT_FINISHED, XML_ERR_DOCUMENT_EMPTY] {
            #expect(classify(LibXMLError(domain: XML_FROM_PARSER, code: code, line: 2)) == .truncated(line: 2))
        }
    }

    @Test("Any other code is a truncation on the last line and malformed XML before it")
    func lineRule() {
        let endOfDocument = LibXMLError(
            domain: XML_FROM_PARSER, code: XML_ERR_DOCUMENT_END, line: 4, message: "Extra content at the end of the document")
        #expect(classify(endOfDocument) == .truncated(line: 4))
        let mismatch = LibXMLError(
            domain: XML_FROM_PARSER, code: XML_ERR_TAG_NAME_MISMATCH, line: 2, message: "Opening and ending tag mismatch")
        #expect(classify(mismatch) == .malformedXML(line: 2, reason: "an end tag that does not match its start tag (libxml2 error 76)"))
    }

    @Test("libxml2's message is never shown: two tags of 40,000 characters that do not match name nothing")
    func longNamesNotQuoted() throws {
        let name = "k" + String(repeating: "8w0wjLMzgdYx", count: 3_300)
        let xml = "<response>\n<header>\n<\(name)>x</\(name)y>\n</header>\n<body></body>\n</response>\n"
        let error = try #require(throws: AirKoreaError.self) { try AirKoreaResponseParser().parseMeasurements(Data(xml.utf8)) }
        #expect(error == .malformedXML(line: 3, reason: "an end tag that does not match its start tag (libxml2 error 76)"), "\(error)")
        #expect(!error.description.contains("8w0wjLMzgdY"))
    }

    @Test("Words libxml2 uses for other errors in the message do not change the type")
    func messageNeverDecides() {
        let misleading = "Input is not proper UTF-8, indicate encoding ! huge text node Excessive depth in document"
        for code in [XML_ERR_TAG_NAME_MISMATCH, XML_ERR_INVALID_CHAR, XML_ERR_NO_MEMORY, XML_ERR_INTERNAL_ERROR] {
            let error = LibXMLError(domain: XML_FROM_PARSER, code: code, line: 2, message: misleading)
            #expect(classify(error, openField: "stationName") == .malformedXML(line: 2, reason: error.reason))
            #expect(!error.reason.contains("UTF-8") && error.reason.hasSuffix("(libxml2 error \(code.rawValue))"))
        }
    }

    @Test("An allocation failure in a body smaller than libxml2's 10,000,000-byte text cap is not a long field")
    func realAllocationFailure() {
        let error = LibXMLError(domain: XML_FROM_PARSER, code: XML_ERR_NO_MEMORY, line: 2, message: "Memory allocation failed")
        #expect(
            classify(error, openField: "stationName")
                == .malformedXML(line: 2, reason: "libxml2 could not allocate memory (libxml2 error 2)"))
    }
}
