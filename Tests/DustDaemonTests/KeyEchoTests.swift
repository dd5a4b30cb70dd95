import AirKorea
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import TestSupport
import Testing

/// A key as long as data.go.kr's, so half of it is 48 characters.
let longKey = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="

/// `text` in pieces of `size` characters joined by `separator`.
func pieces(_ text: String, size: Int = 7, joinedBy separator: String) -> String {
    stride(from: 0, to: text.count, by: size).map { String(text.dropFirst($0).prefix(size)) }.joined(separator: separator)
}

private func gatewayError(_ message: String) -> Data {
    Data(
        "<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>\(message)</errMsg><returnAuthMsg>SERVICE_KEY_IS_NOT_REGISTERED_ERROR</returnAuthMsg><returnReasonCode>30</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"
            .utf8)
}

private func resultMessage(_ message: String) -> Data {
    Data("<response><header><resultCode>30</resultCode><resultMsg>\(message)</resultMsg></header></response>".utf8)
}

/// What a hostile server answers in each shape; `sent` is the key as the request carried it.
private func echo(_ shape: String, sent: String) -> FakeReply {
    let letters = longKey.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
    switch shape {
    case "split by comments": return .respond(status: 200, body: resultMessage(pieces(longKey, joinedBy: "<!---->")))
    case "split by CDATA":
        return .respond(status: 200, body: resultMessage("<![CDATA[" + pieces(longKey, joinedBy: "]]><![CDATA[") + "]]>"))
    case "split by processing instructions": return .respond(status: 200, body: resultMessage(pieces(longKey, joinedBy: "<?pi x?>")))
    case "zero-padded decimal references":
        return .respond(status: 200, body: resultMessage(longKey.unicodeScalars.map { "&#000000\($0.value);" }.joined()))
    case "zero-padded hex references":
        return .respond(
            status: 200,
            body: gatewayError(longKey.unicodeScalars.map { "&#x00000000" + String($0.value, radix: 16, uppercase: true) + ";" }.joined()))
    case "triple percent-encoding":
        return .respond(status: 200, body: gatewayError("/x?k=" + longKey.utf8.map { "%2525" + String($0, radix: 16) }.joined()))
    case "broken by line breaks": return .respond(status: 200, body: resultMessage(pieces(longKey, joinedBy: "\n")))
    case "named references in an HTML title":
        let title = longKey.replacingOccurrences(of: "+", with: "&plus;").replacingOccurrences(of: "/", with: "&sol;")
            .replacingOccurrences(of: "=", with: "&equals;").map { $0.isLetter ? "&\($0)opf;" : String($0) }.joined()
        return .respond(
            status: 200, body: Data("<html><head><title>\(title)</title></head><body></body></html>".utf8), contentType: "text/html")
    case "the first half in resultMsg": return .respond(status: 200, body: resultMessage(String(longKey.prefix(48))))
    case "half the key as a redirect host":
        let host = String(letters.prefix(48)).lowercased() + ".evil.example"
        return .respond(
            status: 302, body: Data(), contentType: "text/plain", headers: ["Location": "http://\(host):8080/x?serviceKey=\(sent)"])
    case "station name split by comments":
        return .respond(
            status: 200,
            body: responseXML([
                itemXML(
                    station: pieces(longKey, joinedBy: "<!-- -->"), dataTime: "2026-11-20 07:00",
                    ["pm10Value": "40", "pm25Value": "20", "pm10Flag": pieces(longKey, joinedBy: "\r\n")])
            ]))
    case "full-width letters":
        let wide = longKey.map { character -> String in
            guard let ascii = character.asciiValue, character.isLetter || character.isNumber else { return String(character) }
            return String(UnicodeScalar(UInt32(ascii) - 0x21 + 0xFF01)!)
        }.joined()
        return .respond(status: 200, body: resultMessage(wide))
    default:  // an element named after the key: libxml2 quotes it in its error message
        return .respond(
            status: 200, body: Data("<response>\n<header>\n<\(String(letters.prefix(30)))>x</y>\n</header>\n</response>\n".utf8))
    }
}

@Suite(
    "The key in any form a reader recognises never gets past the client: not into the store, the status or a message",
    .timeLimit(.minutes(10)))
struct KeyEchoTests {
    let key = ServiceKey(longKey)!
    let jongno = StationPreference(primary: "종로구")

    func client(_ rig: FaultRig) -> AirKoreaClient {
        AirKoreaClient(endpoint: AirKoreaEndpoint(baseURL: rig.baseURL, serviceKey: key), transport: rig.transport, timeout: .seconds(30))
    }

    /// Nothing FineDust kept (messages, names, the database and its WAL) holds 12 letters of the key.
    func expectNoEcho(_ rig: FaultRig, _ texts: [String], _ shape: String) throws {
        for text in texts {
            #expect(!key.echoGuard.echoes(text), "\(shape): key in \(text)")
        }
        for (name, bytes) in try keptBytes(rig) {
            #expect(!key.echoGuard.occursUndecoded(in: bytes), "\(shape): key bytes in \(name)")
        }
    }

    @Test(
        "Split, encoded, half: the text that echoes the key is withheld whole at the client",
        arguments: [
            "split by comments", "split by CDATA", "split by processing instructions", "zero-padded decimal references",
            "zero-padded hex references", "triple percent-encoding", "broken by line breaks", "named references in an HTML title",
            "the first half in resultMsg", "half the key as a redirect host", "station name split by comments",
            "full-width letters", "an element named after the key",
        ])
    func echoed(_ shape: String) async throws {
        try await withRig { rig in
            rig.server.setScript { request in echo(shape, sent: echoedKeys(request).upper) }
            let poller = PollCycle(source: client(rig), store: rig.store, clock: FixedClock(DemoReplay.now))
            let report = await poller.cycle(stations: jongno, mode: .single)
            let stored = try await rig.store.recentAttempts(limit: 5).compactMap(\.message)
            let stations = try await rig.store.stations().flatMap { [$0.name, $0.address ?? ""] }
            let slot = KoreaStandardTime.slot(forDataTime: "2026-11-20 07:00")!
            let readings = try await rig.store.readings(stations: [KeyEchoGuard.withheldText], from: slot, to: slot.advanced(by: 1))
            let texts = stored + stations + [report.failure?.description ?? ""] + readings.flatMap { [$0.station, $0.flag.fineDust ?? ""] }
            try expectNoEcho(rig, texts, shape)
            // The guard fired: the text was withheld, or is outside its field's vocabulary (a message
            // AirKorea never sends, a station's name in Latin letters: logged as unknown values), or is one
            // FineDust never quotes (a redirect's host, a page's title, a name in libxml2's message).
            let notQuoted = ["redirecting to another host", "an HTML page instead of XML", "an end tag that does not match its start tag"]
            let guarded =
                texts.contains { text in
                    text.contains(KeyEchoGuard.withheldText) || text.contains(ServerVocabulary.unknownValue)
                        || notQuoted.contains { text.contains($0) }
                }
                || report.notices.contains { if case .unknownValues = $0 { true } else { false } }
            #expect(guarded, "\(shape): \(texts)")
        }
    }

    @Test("Forecast text (informOverall, informCause, informGrade) that echoes the key is withheld before it is stored")
    func forecastText() async throws {
        try await withRig { rig in
            var fixture = String(decoding: try TestFixtures.data("synthesized/forecast-pm10-2026-11-22.xml"), as: UTF8.self)
            fixture = fixture.replacing(#/<informOverall>[^<]*</informOverall>/#) { _ in
                "<informOverall>○ [미세먼지] " + pieces(longKey, joinedBy: "<!---->") + "</informOverall>"
            }
            fixture = fixture.replacing(#/<informCause>[^<]*</informCause>/#) { _ in
                "<informCause>○ " + longKey.unicodeScalars.map { "&#x0000000000\(String($0.value, radix: 16));" }.joined()
                    + "</informCause>"
            }
            let body = Data(fixture.utf8)
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let clock = FixedClock(ISO8601DateFormatter().date(from: "2026-11-22T17:30:00+09:00")!)
            let report = await ForecastFetch(source: client(rig), store: rig.store, clock: clock).run(
                searchDate: LocalDate(year: 2026, month: 11, day: 22))
            #expect(report.failure == nil)
            #expect(report.issuesStored > 0)
            let tomorrow = LocalDate(year: 2026, month: 11, day: 23)
            let seoul = try #require(try await rig.store.forecast(pollutant: .pm10, date: tomorrow, region: .seoul))
            #expect(seoul.overall == KeyEchoGuard.withheldText)
            #expect(seoul.cause == KeyEchoGuard.withheldText)
            #expect(seoul.grade != .unknown(KeyEchoGuard.withheldText), "the grades carried no key and are kept")
            try expectNoEcho(rig, [seoul.overall ?? "", seoul.cause ?? ""], "forecast")
        }
    }

    @Test("Weekly outlook text (gwthcnd, a day's words) that echoes the key is withheld before it is stored")
    func weeklyOutlookText() async throws {
        try await withRig { rig in
            var fixture = String(decoding: try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"), as: UTF8.self)
            fixture = fixture.replacing(#/<gwthcnd>[^<]*</gwthcnd>/#) { _ in
                "<gwthcnd>○ " + pieces(longKey, joinedBy: "<!---->") + "</gwthcnd>"
            }
            fixture = fixture.replacing(#/<frcstFourCn>[^<]*</frcstFourCn>/#) { _ in
                "<frcstFourCn>서울 : 낮음, 신뢰도 : " + pieces(longKey, joinedBy: "<!-- -->") + "</frcstFourCn>"
            }
            let body = Data(fixture.utf8)
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let clock = FixedClock(ISO8601DateFormatter().date(from: "2026-11-22T17:30:00+09:00")!)
            let report = await WeeklyOutlookFetch(source: client(rig), store: rig.store, clock: clock).run(
                searchDate: LocalDate(year: 2026, month: 11, day: 22))
            #expect(report.failure == nil)
            #expect(report.stored)
            let outlook = try #require(try await rig.store.newestWeeklyOutlook())
            #expect(outlook.conditions == KeyEchoGuard.withheldText)
            // A whole field is withheld, so the fourth day's text names nothing any more.
            #expect(outlook.days[3].byRegion.isEmpty && outlook.days[3].confidence == nil, "\(outlook.days[3])")
            #expect(outlook.days[0].byRegion[.seoul] == .known(.high), "the other days carried no key and are kept")
            try expectNoEcho(rig, [outlook.conditions ?? ""], "weekly outlook")
        }
    }

    @Test("An advisory's district and 권역 that echo the key are withheld before they are stored")
    func advisoryText() async throws {
        try await withRig { rig in
            var fixture = String(decoding: try TestFixtures.data("synthesized/advisories-pm10-2026.xml"), as: UTF8.self)
            fixture = fixture.replacingOccurrences(
                of: "<moveName>남부권</moveName>", with: "<moveName>" + pieces(longKey, joinedBy: "<!---->") + "</moveName>")
            let body = Data(fixture.utf8)
            rig.server.setScript { _ in .respond(status: 200, body: body) }
            let clock = FixedClock(instant(kst: "2026-11-21T00:25:00"))
            let report = await AdvisoryFetch(source: client(rig), store: rig.store, clock: clock).run(
                years: [2026], pollutants: [.pm10], measurementsWork: true)
            #expect(report.outcomes.map(\.pollutant) == [.pm10])
            let stored = try await rig.store.advisories(from: instant(kst: "2026-01-01T00:00:00"), to: instant(kst: "2027-01-01T00:00:00"))
            let gyeonggi = try #require(stored.first { $0.key == "79" })
            // A 권역 is Korean words: one that echoes the key is withheld, and no Korean name either.
            #expect(gyeonggi.area == ServerVocabulary.unknownValue)
            #expect(stored.first { $0.key == "87" }?.area == "도심권", "the texts without the key are kept")
            try expectNoEcho(rig, stored.flatMap { [$0.district, $0.area ?? ""] }, "advisory")
        }
    }
}

@Suite("dustd's start: a status stored with the key JSON-escaped shows no key after a restart", .serialized, .timeLimit(.minutes(10)))
struct KeyEchoRestartTests {
    @Test("The key in daemon_state's JSON (`\\/`) is withheld at start; dustctl status shows no key")
    func restart() async throws {
        let directory = try TemporaryDirectory("dustd-echo")
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("state"), withIntermediateDirectories: true)
        let database = directory.path("state/dust.sqlite")
        let key = ServiceKey(testKey)!
        do {
            // What FineDust before this fix stored: the server's resultMsg, key and all.
            let store = try SQLiteStore(path: database)
            var status = DaemonStatus(
                state: .idle, mode: .daemon, pid: 1, version: "0.0", station: "종로구",
                startedAt: Date(timeIntervalSinceNow: -600), heartbeatSeconds: 7200)
            let failure = PollFailure.fetch(
                .response(
                    .service(
                        .serviceKeyNotRegistered, reportedCode: "30",
                        serverMessage: "KEY \(testKey) NOT REGISTERED"), httpStatus: 200))
            status.lastError = DaemonStatus.Failure(at: Date(timeIntervalSinceNow: -600), failure: failure)
            try await store.saveStatus(status)
            // Today's message quotes no server text (ServerVocabulary); an older FineDust's quoted it whole.
            let today = try #require(try await store.daemonState()["status"])
            #expect(today.contains(ServerVocabulary.unknownValue))
            let older = today.replacingOccurrences(
                of: ServerVocabulary.unknownValue, with: "KEY \(testKey.replacingOccurrences(of: "/", with: "\\/")) NOT REGISTERED")
            try await store.setDaemonState(["status": older])
            #expect(try await store.daemonState()["status"]?.contains("TEST+KEY\\/abc123") == true)
            await #expect(
                !key.occurs(in: try #require(try store.daemonState()["status"])), "the bytes the older scrub looked for are not there")
        }
        let dustd = try await RunningDustd(directory: directory)
        #expect(try await dustd.wait { dustd.logs.contains("Withheld 1 stored texts that echoed the service key") })
        #expect(try await dustd.wait { try await dustd.status().1["state"] != nil })
        let text = try await dustd.statusText()
        let (_, json) = try await dustd.status()
        _ = try await dustd.stop()
        let jsonText = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        for shown in [text, jsonText, dustd.logs] {
            #expect(!key.echoGuard.echoes(shown), "key in \(shown)")
        }
        for file in [database, database + "-wal"] where FileManager.default.fileExists(atPath: file) {
            #expect(!key.echoGuard.occursUndecoded(in: try Data(contentsOf: URL(fileURLWithPath: file))), "key bytes in \(file)")
        }
    }
}
