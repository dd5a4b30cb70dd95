import AirKorea
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import TestSupport
import Testing

/// One new-service item; `fields` are written in the order given, so an element can be left out.
func itemXML(station: String = "종로구", dataTime: String, _ fields: KeyValuePairs<String, String>) -> String {
    "<item><stationName>\(station)</stationName><dataTime>\(dataTime)</dataTime>"
        + fields.map { "<\($0.key)>\($0.value)</\($0.key)>" }.joined() + "</item>"
}

/// A normal response around `items`.
func responseXML(_ items: [String], rows: Int = 100, page: Int = 1, total: Int? = nil) -> Data {
    Data(
        ("<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
            + items.joined()
            + "</items><numOfRows>\(rows)</numOfRows><pageNo>\(page)</pageNo><totalCount>\(total ?? items.count)</totalCount></body></response>")
            .utf8)
}

/// The request's key as sent (upper-case hex), and the same with lower-case hex.
func echoedKeys(_ request: ReceivedRequest) -> (upper: String, lower: String) {
    let target = request.rawTarget
    let start = target.range(of: "serviceKey=")!.upperBound
    let value = String(target[start...].prefix { $0 != "&" })
    var lower = ""
    var index = value.startIndex
    while index < value.endIndex {
        if value[index] == "%", let end = value.index(index, offsetBy: 3, limitedBy: value.endIndex) {
            lower += value[index..<end].lowercased()
            index = end
        } else {
            lower.append(value[index])
            index = value.index(after: index)
        }
    }
    return (value, lower)
}

/// Every byte FineDust keeps: the database, its WAL, and what it logged.
func keptBytes(_ rig: FaultRig) throws -> [(String, Data)] {
    let path = rig.store.path
    var kept = [("log", Data(rig.logs.text.utf8))]
    for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
        kept.append((file, try Data(contentsOf: URL(fileURLWithPath: file))))
    }
    return kept
}

@Suite("A hostile AirKorea: the key never leaks, nothing misleads, nothing is lost", .timeLimit(.minutes(10)))
struct HostileServerTests {
    let key = ServiceKey(testKey)!
    let jongno = StationPreference(primary: "종로구")

    @Test(
        "A server echoing the request URL (HTML title, errMsg; upper- and lower-case hex, raw) leaves no trace of the key",
        arguments: ["html-upper", "html-lower", "errmsg-lower", "errmsg-raw", "station-name", "char-refs"])
    func echo(_ shape: String) async throws {
        try await withRig { rig in
            let key = self.key
            rig.server.setScript { request in
                let (upper, lower) = echoedKeys(request)
                let path = "/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty"
                switch shape {
                case "html-upper":
                    return .respond(
                        status: 200,
                        body: Data("<html><head><title>Not found: \(path)?serviceKey=\(upper)&returnType=xml</title></head></html>".utf8),
                        contentType: "text/html")
                case "html-lower":
                    return .respond(
                        status: 200, body: Data("<html><head><title>\(path)?returnType=xml&SERVICEKEY=\(lower)</title></head></html>".utf8),
                        contentType: "text/html")
                case "errmsg-lower":
                    return .respond(
                        status: 200,
                        body: Data(
                            "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR \(path)?key=\(lower)</errMsg><returnAuthMsg>SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"
                                .utf8))
                case "errmsg-raw":
                    return .respond(
                        status: 200,
                        body: Data(
                            "<response><header><resultCode>30</resultCode><resultMsg>key \(testKey) and \(testKey.replacingOccurrences(of: "+", with: " ")) not registered</resultMsg></header></response>"
                                .utf8))
                case "station-name":
                    return .respond(
                        status: 200,
                        body: responseXML([
                            itemXML(station: "x\(lower)", dataTime: "2026-11-20 07:00", ["pm10Value": "40", "pm25Value": "20"])
                        ]))
                default:
                    let references = testKey.utf8.map { "&#x\(String($0, radix: 16));" }.joined()
                    return .respond(
                        status: 200,
                        body: Data(
                            "<response><header><resultCode>20</resultCode><resultMsg>\(references)</resultMsg></header></response>".utf8))
                }
            }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            let messages = try await rig.store.recentAttempts(limit: 5).compactMap(\.message) + [report.failure?.description ?? ""]
            for message in messages {
                #expect(!key.occurs(in: message), "\(shape): key in \(message)")
            }
            if shape.hasPrefix("html") {
                // A page's title is not quoted unless it is a status page's: nothing of the URL it echoed.
                #expect(messages.first?.contains("an HTML page instead of XML") == true, "\(messages)")
            }
            for (name, bytes) in try keptBytes(rig) {
                #expect(!key.occurs(in: bytes), "\(shape): key bytes in \(name)")
            }
            #expect(try await rig.store.stations().allSatisfy { !key.occurs(in: $0.name) })
        }
    }

    @Test(
        "A redirect (301, 302, 307, 308) is an error naming the target host, and is never followed",
        arguments: [301, 302, 307, 308])
    func redirect(_ status: Int) async throws {
        try await withRig { rig in
            let elsewhere = FakeAirKoreaServer { _ in .respond(status: 200, body: FaultRig.daily) }
            let target = try await elsewhere.start()
            rig.server.setScript { request in
                let location = target + "/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=" + echoedKeys(request).upper
                var body = Data("moved".utf8)
                body.append(Data("\r\n".utf8))
                return .respond(status: status, body: body, contentType: "text/plain", headers: ["Location": location])
            }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            let failure = try #require(report.failure)
            #expect(URL(string: target)?.port.map { $0 > 8443 } == true)
            #expect(failure == .fetch(.redirect(status: status, host: "http://127.0.0.1")), "the redirect's odd port is not named")
            #expect(failure.kind == .network)
            #expect(failure.retryAdvice == .waitForNextHour)
            #expect(failure.description.contains("never follows a redirect"))
            #expect(elsewhere.requests.isEmpty, "the redirect was followed")
            #expect(try await rig.store.recentAttempts(limit: 1).first?.httpStatus == status)
            #expect(try await rig.storedCount() == 6)
            for (name, bytes) in try keptBytes(rig) { #expect(!key.occurs(in: bytes), "key bytes in \(name)") }
            await elsewhere.stop()
        }
    }

    @Test("An HTTPS address redirected to plain HTTP is not followed either (the scheme is named)")
    func httpsToHTTP() throws {
        #expect(
            AirKoreaClient.host(of: "http://apis.data.go.kr.evil.example:8080/B552584/x?serviceKey=abc") == "another host")
        #expect(AirKoreaClient.host(of: "http://apis.data.go.kr:8080/B552584/x?serviceKey=abc") == "http://apis.data.go.kr:8080")
        #expect(AirKoreaClient.host(of: "/elsewhere?serviceKey=abc") == "another path on the same host")
        #expect(AirKoreaClient.host(of: nil) == "an unnamed location")
    }

    @Test("A redirect's location is quoted only as a host a resolver could look up: no 60,000-character scheme, no encoded controls")
    func redirectLocationBounded() {
        let scheme = String(repeating: "x", count: 60_000)
        #expect(AirKoreaClient.host(of: scheme + "://evil.example/p?serviceKey=abc") == "a location of another scheme")
        #expect(AirKoreaClient.host(of: "mailto:x@evil.example") == "a location of another scheme")
        #expect(AirKoreaClient.host(of: "ftp://apis.data.go.kr/") == "a location of another scheme")
        // Each of these parses as a URL: the host itself is what is refused.
        for host in ["ev%E2%80%A8il%E2%80%8F%D8%9Cexample.com", "evil%20host.example", String(repeating: "a", count: 254)] {
            #expect(URLComponents(string: "https://\(host):8443/p") != nil, "\(host.prefix(20))")
            #expect(AirKoreaClient.host(of: "https://\(host):8443/p") == "a host no resolver could look up", "\(host.prefix(20))")
        }
        // A host is the server's text: named only when it is AirKorea's or an IPv4 address. A server holding the key
        // spelt it in a host, cut by a label every 11 characters.
        let longest = String(repeating: "a", count: 249) + ".com"
        for host in [longest, "k.8w0wjLMzgdY.x.rcPWfRtNKr4.q.xkvhaesb7wD.example", "[::1]", "localhost"] {
            #expect(AirKoreaClient.host(of: "http://\(host):8080/") == "another host", "\(host.prefix(20))")
        }
        #expect(AirKoreaClient.host(of: "HTTPS://APIS.data.go.kr:443/B552584") == "https://apis.data.go.kr:443")
        #expect(AirKoreaClient.host(of: "http://127.0.0.1:8080/x") == "http://127.0.0.1:8080")
        #expect(AirKoreaClient.host(of: "http://192.168.0.1/login") == "http://192.168.0.1", "a captive portal")
        // A public address or an odd port is 32 or 16 bits of the server's choosing: not named.
        #expect(AirKoreaClient.host(of: "http://56.119.48.119/x") == "another host")
        #expect(AirKoreaClient.host(of: "http://10.0.0.1:31337/x") == "http://10.0.0.1")
    }

    @Test("ESC sequences in an HTML title reach neither the log, the database nor the failure text")
    func terminalEscapes() async throws {
        try await withRig { rig in
            let title = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[31mDown\u{9B}31m\u{202E}gnp.exe"
            rig.server.setScript { _ in
                .respond(status: 200, body: Data("<html><head><title>\(title)</title></head></html>".utf8), contentType: "text/html")
            }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            let message = try #require(try await rig.store.recentAttempts(limit: 1).first?.message)
            for text in [message, rig.logs.text, report.failure?.description ?? ""] {
                #expect(
                    !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E },
                    "control characters in \(text.debugDescription)")
            }
            #expect(message.contains("an HTML page instead of XML") && !message.contains("pwned"), "\(message)")
        }
    }

    @Test("An item stamped more than an hour ahead is not stored and does not stop the backfill")
    func futureItem() async throws {
        try await withRig { rig in
            // now is 2026-11-21 00:20 KST; 01:00 is within the hour's tolerance, 2027-01-01 05:00 is not.
            let body = responseXML([
                itemXML(dataTime: "2027-01-01 05:00", ["pm10Value": "40", "pm25Value": "20"]),
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "41", "pm25Value": "21"]),
            ])
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            #expect(report.succeeded)
            #expect(report.rowsNew == 1)
            #expect(try await rig.storedCount() == 7)
            #expect(report.notices.contains(.futureItems(operation: "station 종로구 DAILY page 1", count: 1)))

            // Even a future slot that did get stored (an older FineDust) never makes the data look fresh.
            let future = KoreaStandardTime.slot(forDataTime: "2027-01-01 05:00")!
            try await rig.store.saveReadings([
                HourlyReading(station: "중구", slot: future, concentration: DustPair(fineDust: 1, ultraFineDust: 1))
            ])
            let month = responseXML(
                [itemXML(station: "중구", dataTime: "2026-11-20 07:00", ["pm10Value": "41", "pm25Value": "21"])], rows: 1000)
            rig.server.setScript { _ in .respond(status: 200, body: month) }
            _ = await rig.poller().cycle(stations: StationPreference(primary: "중구"), mode: .single)
            #expect(rig.server.requests.last?.query["dataTerm"] == "MONTH")
        }
    }

    @Test("Implausible concentrations are unknown and flagged; numbers stay numbers")
    func implausibleValues() async throws {
        try await withRig { rig in
            let body = responseXML([
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "99999999999999999999", "pm25Value": "-5"]),
                itemXML(dataTime: "2026-11-20 08:00", ["pm10Value": "10000.5", "pm25Value": "1e3"]),
                itemXML(dataTime: "2026-11-20 09:00", ["pm10Value": "10000", "pm25Value": "0"]),
            ])
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            #expect(await rig.poller().cycle(stations: jongno, mode: .single).succeeded)
            let from = KoreaStandardTime.slot(forDataTime: "2026-11-20 07:00")!
            let rows = try await rig.store.readings(stations: ["종로구"], from: from, to: from.advanced(by: 3))
            #expect(
                rows.map(\.concentration) == [
                    DustPair(fineDust: nil, ultraFineDust: nil), DustPair(fineDust: nil, ultraFineDust: nil),
                    DustPair(fineDust: 10_000, ultraFineDust: 0),
                ])
            #expect(
                rows.map(\.flag) == [
                    DustPair(fineDust: "implausible", ultraFineDust: "implausible"),
                    DustPair(fineDust: "implausible", ultraFineDust: "implausible"),
                    DustPair(fineDust: nil, ultraFineDust: nil),
                ])
        }
    }

    @Test("A missing element keeps the stored value; an explicit '-' or a flag revises it")
    func missingIsNotDash() async throws {
        try await withRig { rig in
            let slot = KoreaStandardTime.slot(forDataTime: "2026-11-20 05:00")!
            let stored = try #require(try await rig.store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1)).first)
            #expect(stored.concentration.ultraFineDust != nil)

            func serve(_ fields: KeyValuePairs<String, String>) async -> CycleReport {
                let body = responseXML([itemXML(dataTime: "2026-11-20 05:00", fields)])
                rig.server.setScript { _ in .respond(status: 200, body: body) }
                return await rig.poller().cycle(stations: jongno, mode: .single)
            }
            func row() async throws -> HourlyReading {
                try #require(try await rig.store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1)).first)
            }
            // No pm25Value, no pm25Flag, no PM2.5 grades: PM2.5 stays as it was; PM10 is revised.
            let revised = await serve(["pm10Value": "77"])
            #expect(revised.rowsUpdated == 1)
            #expect(try await row().concentration == DustPair(fineDust: 77, ultraFineDust: stored.concentration.ultraFineDust))
            #expect(try await row().grade24h.ultraFineDust == stored.grade24h.ultraFineDust)
            // The same again changes nothing (no revision counted).
            #expect(await serve(["pm10Value": "77"]).rowsUpdated == 0)
            // An explicit '-' is AirKorea's revision to unknown.
            _ = await serve(["pm10Value": "77", "pm25Value": "-"])
            #expect(try await row().concentration == DustPair(fineDust: 77, ultraFineDust: nil))
            // A set flag revises PM10 to unknown even without a value element.
            _ = await serve(["pm10Flag": "통신장애"])
            #expect(try await row().concentration == DustPair(fineDust: nil, ultraFineDust: nil))
            #expect(try await row().flag.fineDust == "통신장애")
        }
    }

    @Test("Duplicate slots in one response: the last wins and the counts say so")
    func duplicateSlots() async throws {
        try await withRig { rig in
            let body = responseXML([
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "30", "pm25Value": "10"]),
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "31", "pm25Value": "11"]),
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "32", "pm25Value": "12"]),
            ])
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            #expect(report.rowsNew == 1)
            #expect(report.rowsUpdated == 0)
            let slot = KoreaStandardTime.slot(forDataTime: "2026-11-20 07:00")!
            let ingest = try await IngestService(store: rig.store, clock: FixedClock(DemoReplay.now)).ingest(body, requestedStation: nil)
            #expect(ingest.duplicateItems == 2)
            #expect(ingest.readings == 3)
            #expect(ingest.stored == UpsertSummary(inserted: 0, updated: 0, unchanged: 1))
            await #expect(
                try rig.store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1)).first?.concentration
                    == DustPair(fineDust: 32, ultraFineDust: 12))
            #expect(
                report.notices.contains(.fetched(operation: "station 종로구 DAILY page 1", readings: 3, new: 1, revised: 0, duplicates: 2)))
        }
    }

    @Test(
        "A MONTH request answered with 10,000 items (1.1 years, the most an answer may hold) stores the 32 days it asked for and counts the rest"
    )
    func moreRowsThanAsked() async throws {
        try await withRig { rig in
            // 중구 is empty, so the planner asks MONTH; the answer goes 10,000 hours back from 2026-11-20 24:00.
            let last = KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00")!
            let items = (0..<10_000).map { offset in
                itemXML(
                    station: "중구", dataTime: KoreaStandardTime.dataTime(of: last.advanced(by: -offset)),
                    ["pm10Value": "20", "pm25Value": "10"])
            }
            let body = responseXML(items, rows: 1000, total: 10_000)
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            // A 1.1 MB answer parsed by a debug build on a busy machine: the subject is the window, not the timeout
            // (the rig's default, a guard against a hang only).
            let report = await rig.poller().cycle(stations: StationPreference(primary: "중구"), mode: .single)
            #expect(report.succeeded)
            #expect(rig.server.requests.map { $0.query["dataTerm"] } == ["MONTH"])
            // now is 2026-11-21 00:20 KST; 32 × 24 = 768 hours back is 2026-10-20 00:20, so the slots
            // from 2026-10-20 01:00 to 2026-11-20 23:00 are kept: 767 of them.
            #expect(report.rowsNew == 767)
            #expect(try await rig.store.readingCount(station: "중구") == 767)
            let oldest = try await rig.store.readings(stations: ["중구"], from: last.advanced(by: -10_000), to: last.advanced(by: 1)).first?
                .slot
            #expect(oldest == KoreaStandardTime.slot(forDataTime: "2026-10-20 02:00"))
            #expect(report.notices.contains(.outsideWindowItems(operation: "station 중구 MONTH page 1", count: 9_233, windowHours: 768)))
        }
    }

    @Test("An answer to one station's request stores that station's items only: those naming others are counted, never stored")
    func otherStationsNotStored() async throws {
        try await withRig { rig in
            let before = try await rig.storedCount()
            let others = (0..<2_000).map { index in
                itemXML(station: "가짜\(index)호", dataTime: "2026-11-20 07:00", ["pm10Value": "40", "pm25Value": "20"])
            }
            let body = responseXML(
                others + [itemXML(station: "종로구", dataTime: "2026-11-20 07:00", ["pm10Value": "41", "pm25Value": "21"])],
                rows: 3000, total: 2_001)
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            #expect(report.succeeded)
            #expect(report.rowsNew == 1)
            #expect(try await rig.storedCount() == before + 1)
            #expect(try await rig.store.readingCount(station: "가짜0호") == 0)
            #expect(report.notices.contains(.otherStationItems(operation: "station 종로구 DAILY page 1", count: 2_000, asked: "종로구")))
        }
    }

    @Test("Items dated 1900-01-01, 0001-01-01 or 1999-12-30 are not stored, whatever the term, and are counted")
    func absurdDates() async throws {
        try await withRig { rig in
            let body = responseXML([
                itemXML(dataTime: "1900-01-01 01:00", ["pm10Value": "40", "pm25Value": "20"]),
                itemXML(dataTime: "0001-01-01 01:00", ["pm10Value": "40", "pm25Value": "20"]),
                itemXML(dataTime: "1999-12-30 12:00", ["pm10Value": "40", "pm25Value": "20"]),
                itemXML(dataTime: "2026-11-10 07:00", ["pm10Value": "40", "pm25Value": "20"]),
                itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "41", "pm25Value": "21"]),
            ])
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let report = await rig.poller().cycle(stations: jongno, mode: .single)
            #expect(report.succeeded)
            #expect(report.rowsNew == 1)
            let stored = try await rig.storedCount()
            #expect(stored == 7)
            #expect(report.notices.contains(.outOfPeriodItems(operation: "station 종로구 DAILY page 1", count: 3)))
            // Ten days back is outside a DAILY request's 48 hours.
            #expect(report.notices.contains(.outsideWindowItems(operation: "station 종로구 DAILY page 1", count: 1, windowHours: 48)))
        }
    }

    @Test("A lying totalCount cannot spend the quota: paging stops at the window, and at the first short page")
    func lyingTotalCount() async throws {
        try await withRig { rig in
            // 중구 has data 40 days old, so the planner asks 3MONTH (≈2,200 rows, 1,000 a page).
            let old = KoreaStandardTime.slot(forDataTime: "2026-10-11 01:00")!
            try await rig.store.saveReadings([
                HourlyReading(station: "중구", slot: old, concentration: DustPair(fineDust: 1, ultraFineDust: 1))
            ])
            let first = KoreaStandardTime.slot(forDataTime: "2026-08-01 01:00")!
            rig.server.setScript { request in
                let page = Int(request.query["pageNo"] ?? "1") ?? 1
                let items = (0..<1000).map { offset in
                    itemXML(
                        station: "중구", dataTime: KoreaStandardTime.dataTime(of: first.advanced(by: (page - 1) * 1000 + offset)),
                        ["pm10Value": "20", "pm25Value": "10"])
                }
                return .respond(status: 200, body: responseXML(items, rows: 1000, page: page, total: 1_000_000_000_000))
            }
            let report = await rig.poller().cycle(stations: StationPreference(primary: "중구"), mode: .single)
            #expect(report.succeeded)
            #expect(rig.server.requests.count == 3)
            #expect(rig.server.requests.map { $0.query["dataTerm"] } == ["3MONTH", "3MONTH", "3MONTH"])
            #expect(
                report.notices.contains(
                    .pagingCapped(
                        operation: "station 중구 3MONTH page 1", claimedRows: 1_000_000_000_000,
                        windowRows: 2232, pagesRead: 3)))

            // A short first page ends paging, whatever totalCount claims.
            let short = responseXML([itemXML(dataTime: "2026-11-20 07:00", ["pm10Value": "30"])], rows: 100, total: 5000)
            rig.server.setScript { _ in .respond(status: 200, body: short) }
            let before = rig.server.requests.count
            #expect(await rig.poller().cycle(stations: jongno, mode: .single).succeeded)
            #expect(rig.server.requests.count == before + 1)
        }
    }
}
