import AirKorea
import DustConfig
import DustDaemon
import DustHTTP
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import AirKoreaHTTP

let testKey = "TEST+KEY/abc123def456ghi789jkl012mno345=="

/// Records log lines so tests can check what dustd says (and that it never says the key).
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    var text: String { lines.withLock { $0.joined() } }

    func logger(redactor: SecretRedactor = SecretRedactor()) -> Logger {
        Logger(label: "test") { label in
            JournalLogHandler(label: label, level: .debug, environment: [:], secrets: redactor) { line in
                self.lines.withLock { $0.append(line) }
            }
        }
    }
}

/// The fake server, a database holding 종로구 through 2026-11-20 06:00, and a poller at 00:20 the next morning.
struct FaultRig {
    let server: FakeAirKoreaServer
    let baseURL: String
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let logs = LogCapture()
    let transport = AsyncHTTPTransport()
    let daily: Data
    let cutoff = KoreaStandardTime.slot(forDataTime: "2020-01-01 01:00")!

    static let daily = try! TestFixtures.data("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")

    init() async throws {
        daily = Self.daily
        let body = daily
        server = FakeAirKoreaServer { _ in .respond(status: 200, body: body) }
        baseURL = try await server.start()
        directory = try TemporaryDirectory()
        store = try SQLiteStore(path: directory.path("dust.sqlite"))
        // Stored: the day up to 06:00 (dataTime 01:00 … 06:00).
        let page = try AirKoreaResponseParser().parseMeasurements(daily)
        let morning = KoreaStandardTime.slot(forDataTime: "2026-11-20 06:00")!
        try await store.saveReadings(page.readings.filter { $0.slot <= morning }, fetchedAt: Date())
    }

    /// A poller whose requests give up after `timeout`: by default a guard against a hang, long enough
    /// that a loaded machine parsing the 673-station archive is not taken for a server that did not answer
    /// (at load 13–18, two full runs side by side, a 3.4 MB answer once took over 60 s to arrive and be parsed
    /// by a debug build, 2026-12-04); the tests of a timeout give their own.
    func poller(timeout: Duration = .seconds(240)) -> PollCycle {
        let client = AirKoreaClient(
            endpoint: AirKoreaEndpoint(baseURL: baseURL, serviceKey: ServiceKey(testKey)!),
            transport: transport, timeout: timeout)
        return PollCycle(source: client, store: store, clock: FixedClock(DemoReplay.now))
    }

    func storedCount() async throws -> Int { try await store.readingCount(station: "종로구") }

    func stop() async {
        await transport.shutdown()
        await server.stop()
        directory.remove()
    }
}

extension PollCycle {
    /// One cycle in a station mode, as dustd runs it.
    func cycle(stations: StationPreference, mode: StationMode) async -> CycleReport {
        await run(stations: stations, includeNation: mode == .nation)
    }
}

/// Runs `body` with a fresh rig, always stopping it.
func withRig(_ body: (FaultRig) async throws -> Void) async throws {
    let rig = try await FaultRig()
    do {
        try await body(rig)
    } catch {
        await rig.stop()
        throw error
    }
    await rig.stop()
}

@Suite("Faults from AirKorea: retry rules, recorded attempts, intact data, backfill after recovery", .timeLimit(.minutes(10)))
struct FaultTests {
    static let html503 = try! TestFixtures.data("synthesized/html-503-service-unavailable.html")
    static let gateway05 = try! TestFixtures.data("synthesized/error-gateway-05-servicetimeout.xml")
    static let key30 = try! TestFixtures.data("real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml")
    static let quota22 = try! TestFixtures.data("real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml")
    static let noData03 = try! TestFixtures.data("synthesized/error-03-nodata.xml")

    struct Fault: Sendable, CustomTestStringConvertible {
        let name: String
        let reply: FakeReply
        let advice: RetryAdvice
        let outcome: PollAttempt.Outcome
        let httpStatus: Int?
        let resultCode: String?
        /// The client's timeout: long for every fault but the slow answer, so that a loaded machine
        /// (the whole suite runs at once on two cores) never turns a quick fault into a timeout.
        var timeout: Duration = .seconds(30)
        var testDescription: String { name }
    }

    static let faults: [Fault] = [
        Fault(
            name: "HTML 503 page", reply: .respond(status: 503, body: html503, contentType: "text/html"),
            advice: .retryWithBackoff, outcome: .retrying, httpStatus: 503, resultCode: nil),
        Fault(
            name: "gateway 05 with HTTP 504", reply: .respond(status: 504, body: gateway05),
            advice: .retryWithBackoff, outcome: .retrying, httpStatus: 504, resultCode: "05"),
        Fault(
            name: "key not registered (30)", reply: .respond(status: 200, body: key30),
            advice: .waitForNextHour, outcome: .failed, httpStatus: 200, resultCode: "30"),
        Fault(
            name: "daily quota (22)", reply: .respond(status: 200, body: quota22),
            advice: .waitUntilMidnightKST, outcome: .quota, httpStatus: 200, resultCode: "22"),
        Fault(
            name: "resultCode 03", reply: .respond(status: 200, body: noData03),
            advice: .waitForNextHour, outcome: .failed, httpStatus: 200, resultCode: "03"),
        Fault(
            name: "truncated body", reply: .truncated(body: FaultRig.daily.prefix(9000), declaredLength: FaultRig.daily.count),
            advice: .retryWithBackoff, outcome: .retrying, httpStatus: nil, resultCode: nil),
        Fault(
            name: "slower than the timeout", reply: .delayed(.seconds(20), .respond(status: 200, body: FaultRig.daily)),
            advice: .retryWithBackoff, outcome: .retrying, httpStatus: nil, resultCode: nil, timeout: .seconds(1)),
        Fault(
            name: "connection reset", reply: .resetConnection,
            advice: .retryWithBackoff, outcome: .retrying, httpStatus: nil, resultCode: nil),
    ]

    @Test("Each fault is classified, recorded and harmless; the gap is filled once it clears", arguments: faults)
    func fault(_ fault: Fault) async throws {
        try await withRig { rig in try await check(fault, rig) }
    }

    private func check(_ fault: Fault, _ rig: FaultRig) async throws {
        let before = try await rig.storedCount()
        #expect(before == 6)

        rig.server.setScript { _ in fault.reply }
        let failed = await rig.poller(timeout: fault.timeout).cycle(stations: StationPreference(primary: "종로구"), mode: .single)
        let failure = try #require(failed.failure)
        #expect(failure.retryAdvice == fault.advice)
        let attempt = try #require(try await rig.store.recentAttempts(limit: 1).first)
        #expect(attempt.outcome == fault.outcome)
        #expect(attempt.httpStatus == fault.httpStatus)
        #expect(attempt.resultCode == fault.resultCode)
        #expect(attempt.station == "종로구")
        #expect(attempt.operation == "station 종로구 DAILY page 1")
        #expect(attempt.message?.isEmpty == false)
        #expect(try await rig.storedCount() == before)
        #expect(try rig.store.integrityCheck() == ["ok"])

        let daily = rig.daily
        rig.server.setScript { _ in .respond(status: 200, body: daily) }
        let recovered = await rig.poller().cycle(stations: StationPreference(primary: "종로구"), mode: .single)
        #expect(recovered.succeeded)
        #expect(recovered.rowsNew == 18)
        #expect(try await rig.storedCount() == 24)
        #expect(try await rig.store.recentAttempts(limit: 1).first?.outcome == .ok)
        #expect(!rig.logs.text.contains(testKey))
    }

    @Test(
        "A primary station AirKorea stops answering for (closed, renamed): the fallback is still polled, and the failure says the station used to answer"
    )
    func primaryNoLongerAnswered() async throws {
        try await withRig { rig in
            let empty = try TestFixtures.data("synthesized/empty-result-totalcount-0.xml")
            func renamed(_ name: String) -> Data {
                Data(String(decoding: rig.daily, as: UTF8.self).replacingOccurrences(of: "종로구", with: name).utf8)
            }
            let (gangnam, junggu) = (renamed("강남구"), renamed("중구"))
            rig.server.setScript { request in
                switch request.query["stationName"] {
                case "강남구": .respond(status: 200, body: gangnam)
                case "중구": .respond(status: 200, body: junggu)
                default: .respond(status: 200, body: empty)
                }
            }
            let report = await rig.poller().cycle(
                stations: StationPreference(primary: "종로구", fallbacks: ["강남구", "중구"]), mode: .nation)
            // Before, the cycle ended at the primary (the fallbacks never asked); a first fix stopped after the first fallback.
            #expect(rig.server.requests.compactMap { $0.query["stationName"] } == ["종로구", "강남구", "중구"])
            #expect(rig.server.requests.contains { $0.query["sidoName"] == "전국" }, "the nation's archive was not asked")
            #expect(try await rig.store.readingCount(station: "강남구") == 24)
            #expect(try await rig.store.readingCount(station: "중구") == 24)
            let failure = try #require(report.failure)
            #expect(failure.kind == .configuration)
            #expect(
                failure.description.contains(
                    "AirKorea returned no hour for 종로구, whose hours it sent before (the newest stored is 2026-11-20 06:00 KST)"),
                "\(failure)")
            #expect(failure.description.contains("the fallbacks are polled meanwhile"))
        }
    }

    @Test("A socket this process could not make for want of descriptors is said so, not 'check the network'")
    func tooManyOpenFiles() {
        func said(_ error: any Error) -> TransportError {
            AsyncHTTPTransport.transportError(HTTPExchangeFailure(error, connectTimeout: .seconds(10)), timeout: .seconds(30))
        }
        // The error NIO threw when dustd ran under `ulimit -n 20`: "socket(domain:type:protocolSubtype:): Too many open files (errno: 24)".
        for code in [EMFILE, ENFILE] {
            let failure = said(IOError(errnoCode: code, reason: "socket(domain:type:protocolSubtype:)"))
            #expect(failure == .tooManyOpenFiles)
            #expect(failure.description.contains("too many open files") && !failure.description.contains("check the network"))
        }
        #expect(said(IOError(errnoCode: ECONNREFUSED, reason: "connect")) != .tooManyOpenFiles)
        // Any other system call's failure in the system's words, not NIO's "connection reset (error set): … (errno: 111))".
        let refused = said(IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"))
        #expect(refused == .connection("connection refused"))
        #expect(
            refused.description
                == "Could not reach AirKorea (connection refused); check the network and api.baseURL. FineDust retries with backoff.")
    }

    @Test("An endless response stops at the size limit instead of filling memory")
    func endlessBody() async throws {
        let server = FakeAirKoreaServer { _ in .endless(chunk: Data(repeating: UInt8(ascii: " "), count: 64 * 1024)) }
        let base = try await server.start()
        let transport = AsyncHTTPTransport()
        // The deadline only guards against a hang: 4 MiB takes well under a second alone, but beside the whole
        // suite on two cores it took over 20 s in two full runs of three (2026-12-01).
        await #expect(throws: TransportError.bodyTooLarge(limit: 4 * 1024 * 1024)) {
            _ = try await transport.get(base + "/x", timeout: .seconds(120), maxBodyBytes: 4 * 1024 * 1024)
        }
        await transport.shutdown()
        await server.stop()
    }

    @Test(
        "Something at the address that does not speak HTTP is said so, not 'could not reach': an SSH banner, a bad chunk size, an unknown version",
        arguments: [
            "SSH-2.0-OpenSSH_9.2\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n",
            "HTTP/9.9 200 OK\r\nContent-Length: 2\r\n\r\nok",
        ])
    func notHTTP(reply: String) async throws {
        let server = RawReplyServer(reply: Array(reply.utf8))
        let base = try await server.start()
        let transport = AsyncHTTPTransport()
        do {
            _ = try await transport.get(base + "/x?serviceKey=abc", timeout: .seconds(120), maxBodyBytes: 1024)
            Issue.record("a reply that is not HTTP was taken")
        } catch {
            guard case .notHTTP = error else {
                Issue.record("not told apart: \(error)")
                await transport.shutdown()
                await server.stop()
                return
            }
            #expect(error.description.hasPrefix("Something answered at api.baseURL's address, but not in HTTP ("), "\(error)")
            #expect(!error.description.contains("SSH") && !error.description.contains("ZZZ"), "quoted the server: \(error)")
        }
        let sensor = AsyncIndoorSensorHTTP()
        await #expect(throws: SensorProblem.notHTTP) {
            _ = try await sensor.get(base + "/sensor", bearer: nil, timeout: .seconds(120), maxBodyBytes: 1024)
        }
        await sensor.shutdown()
        await transport.shutdown()
        await server.stop()
    }

    @Test("Backfill after a long gap asks for 3MONTH and pages through totalCount")
    func monthBackfill() async throws {
        try await withRig { rig in try await checkMonthBackfill(rig) }
    }

    private func checkMonthBackfill(_ rig: FaultRig) async throws {
        let month = try TestFixtures.data("synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml")
        // Serve the 2,200 rows 1,000 per page, as AirKorea pages them.
        let parsed = try AirKoreaResponseParser().parseMeasurements(month)
        let daily = rig.daily
        rig.server.setScript { request in
            if request.query["dataTerm"] == "DAILY" { return .respond(status: 200, body: daily) }
            let page = Int(request.query["pageNo"] ?? "1") ?? 1
            let rows = Int(request.query["numOfRows"] ?? "1000") ?? 1000
            let items = parsed.readings.dropFirst((page - 1) * rows).prefix(rows)
            return .respond(status: 200, body: Data(pageXML(Array(items), page: page, rows: rows, total: parsed.readings.count).utf8))
        }
        // 중구's newest hour is 41 days old: beyond a month, so 3MONTH.
        let old = KoreaStandardTime.slot(forDataTime: "2026-10-11 01:00")!
        try await rig.store.saveReadings([HourlyReading(station: "중구", slot: old, concentration: DustPair(fineDust: 1, ultraFineDust: 1))])
        let emptyStationReport = await rig.poller().cycle(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), mode: .single)
        #expect(emptyStationReport.succeeded)
        let requests = rig.server.requests
        // 종로구 is up to date enough for DAILY; 중구 gets 3MONTH, 3 pages.
        #expect(requests.map { $0.query["dataTerm"] ?? "" } == ["DAILY", "3MONTH", "3MONTH", "3MONTH"])
        #expect(requests.map { $0.query["pageNo"] ?? "" } == ["1", "1", "2", "3"])
        #expect(requests.map { $0.query["stationName"] ?? "" } == ["종로구", "중구", "중구", "중구"])
        #expect(requests.allSatisfy { $0.rawTarget.contains("serviceKey=TEST%2BKEY%2Fabc123def456ghi789jkl012mno345%3D%3D&") })
        #expect(try await rig.store.readingCount(station: "중구") == 2200)
    }
}

/// A minimal new-service XML page of readings, for paging tests.
func pageXML(_ readings: [HourlyReading], page: Int, rows: Int, total: Int) -> String {
    let items = readings.map { reading in
        "<item><stationName>\(reading.station == "종로구" ? "중구" : reading.station)</stationName>"
            + "<dataTime>\(KoreaStandardTime.dataTime(of: reading.slot))</dataTime>"
            + "<pm10Value>\(reading.concentration.fineDust.map { String(Int($0)) } ?? "-")</pm10Value>"
            + "<pm25Value>\(reading.concentration.ultraFineDust.map { String(Int($0)) } ?? "-")</pm25Value></item>"
    }.joined()
    return "<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>\(items)</items>"
        + "<numOfRows>\(rows)</numOfRows><pageNo>\(page)</pageNo><totalCount>\(total)</totalCount></body></response>"
}

@Suite("National archive mode", .timeLimit(.minutes(10)))
struct NationModeTests {
    @Test("station.mode nation adds one 전국 request per cycle and stores every station; the primary still drives intake")
    func nation() async throws {
        try await withRig { rig in
            let nationBody = try TestFixtures.data("synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml")
            let daily = rig.daily
            rig.server.setScript { request in
                request.operation == "getCtprvnRltmMesureDnsty"
                    ? .respond(status: 200, body: nationBody) : .respond(status: 200, body: daily)
            }
            let report = await rig.poller().cycle(stations: StationPreference(primary: "종로구"), mode: .nation)
            #expect(report.succeeded)
            let requests = rig.server.requests
            #expect(requests.map(\.operation) == ["getMsrstnAcctoRltmMesureDnsty", "getCtprvnRltmMesureDnsty"])
            #expect(requests[1].query["sidoName"] == "전국")
            #expect(requests[1].query["numOfRows"] == "1000")
            #expect(try await rig.store.stations().count == 673)
            #expect(try await rig.store.readingCount() == 24 + 672)
            #expect(try await rig.store.readingCount(station: "금천구") == 1)
        }
    }
}
