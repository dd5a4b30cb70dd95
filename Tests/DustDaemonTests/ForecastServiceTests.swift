import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Logging
import Metrics
import Synchronization
import TestSupport
import Testing

@Suite("dustd's forecast fetcher against a loopback AirKorea", .serialized, .timeLimit(.minutes(10)))
struct ForecastServiceTests {
    static let pm10 = try! TestFixtures.data("synthesized/forecast-pm10-2026-11-22.xml")
    static let pm25 = try! TestFixtures.data("synthesized/forecast-pm25-2026-11-22.xml")
    static let weeklyOutlook = try! TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml")

    /// AirKorea's answer: the forecast of the `InformCode` asked for, the weekly outlook, 404 for anything else.
    @Sendable static func answer(_ request: ReceivedRequest) -> FakeReply {
        .forecastService(request, pm10: pm10, pm25: pm25, weeklyOutlook: weeklyOutlook)
    }

    /// The daily forecast's requests among those the server received (the weekly outlook's left out).
    static func dailyRequests(_ rig: FaultRig) -> [ReceivedRequest] {
        rig.server.requests.filter { $0.operation == "getMinuDustFrcstDspth" }
    }

    /// dustd's forecast service against `rig`'s loopback AirKorea at `clock`, started as dustd starts it
    /// (its status board, the test key), logging to `logger` (the rig's log when nil) and counting with `metrics`.
    static func service(
        _ rig: FaultRig, clock: ManualClock, logger: Logger? = nil, metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws -> ForecastService {
        try await serviceAndBoard(rig, clock: clock, logger: logger, metrics: metrics).service
    }

    /// `service`, with its status board, reading `configuration` (the rig's settings and the test key when nil),
    /// for a test that reloads it or reads what the service planned.
    static func serviceAndBoard(
        _ rig: FaultRig, clock: ManualClock, configuration: LiveConfiguration? = nil, logger: Logger? = nil,
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) async throws -> (service: ForecastService, board: DaemonStatusBoard) {
        let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
        let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
        let board = await DaemonStatusBoard(
            DaemonStatus(
                state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구", startedAt: clock.now,
                heartbeatSeconds: 2),
            database: database, clock: clock, logger: rig.logs.logger())
        let service = ForecastService(
            configuration: configuration ?? LiveConfiguration(settings: settings, key: ServiceKey(testKey)!), database: database,
            board: board, transport: rig.transport, clock: clock, logger: logger ?? rig.logs.logger(), metrics: metrics)
        return (service, board)
    }

    @Test(
        "Calls recorded two days ahead (a clock that was ahead, since set right) do not spend today's cap: the 17시 issue is fetched at once"
    )
    func futureCallsNotToday() async throws {
        try await withRig { rig in
            rig.server.setScript(Self.answer)
            let clock = ManualClock(instant(kst: "2026-11-22T17:40:00"))
            for minute in 0..<12 {
                try await rig.store.recordAttempt(
                    PollAttempt(
                        startedAt: instant(kst: "2026-11-24T10:00:00").addingTimeInterval(Double(minute) * 60), station: nil,
                        kind: .forecast,
                        operation: "forecast PM10 2026-11-24 page 1", outcome: .ok))
            }
            let service = try await Self.service(rig, clock: clock)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            #expect(
                try await clock.waitUntilSleeping {
                    guard ForecastServiceTests.dailyRequests(rig).count >= 2 else { return false }
                    return try await rig.store.loadStatus()?.forecast?.nextFetchAt != nil
                })
            #expect(ForecastServiceTests.dailyRequests(rig).map { $0.query["InformCode"] } == ["PM10", "PM25"])
            #expect(try await rig.store.newestForecastIssue(pollutant: .pm25) == instant(kst: "2026-11-22T17:00:00"))
        }
    }

    @Test(
        "Fetches the 17시 publication at once, then the weekly outlook, stores them, waits for 23:30; a late publication is retried only within the daily cap"
    )
    func scheduleAndCap() async throws {
        try await withRig { rig in
            rig.server.setScript(Self.answer)
            let clock = ManualClock(instant(kst: "2026-11-22T17:40:00"))
            let redactor = SecretRedactor()
            redactor.add(ServiceKey(testKey)!)
            let service = try await Self.service(rig, clock: clock, logger: rig.logs.logger(redactor: redactor))
            let task = Task { try await service.run() }
            defer { task.cancel() }

            // 17:40: the 17시 issue, both pollutants, searchDate today.
            #expect(
                try await clock.waitUntilSleeping {
                    guard ForecastServiceTests.dailyRequests(rig).count >= 2 else { return false }
                    return try await rig.store.loadStatus()?.forecast?.nextFetchAt != nil
                })
            #expect(ForecastServiceTests.dailyRequests(rig).map { $0.query["InformCode"] } == ["PM10", "PM25"])
            #expect(rig.server.requests.allSatisfy { $0.query["searchDate"] == "2026-11-22" && $0.query["returnType"] == "xml" })
            // After the 17시 forecast, the weekly outlook: one call, stored, recorded among the forecast calls.
            #expect(
                rig.server.requests.map(\.operation) == ["getMinuDustFrcstDspth", "getMinuDustFrcstDspth", "getMinuDustWeekFrcstDspth"])
            #expect(try await rig.store.newestWeeklyOutlook()?.publishedOn == LocalDate(year: 2026, month: 11, day: 22))
            #expect(try await rig.store.attemptCount(kind: .weeklyOutlook, since: instant(kst: "2026-11-22T00:00:00")) == 1)
            #expect(try await rig.store.newestForecastIssue(pollutant: .pm25) == instant(kst: "2026-11-22T17:00:00"))
            let recorded = try await rig.store.recentAttempts(limit: 3)
            #expect(
                recorded.map(\.operation) == [
                    "weekly outlook 2026-11-22 page 1", "forecast PM25 2026-11-22 page 1", "forecast PM10 2026-11-22 page 1",
                ])
            #expect(recorded.map(\.kind) == [.weeklyOutlook, .forecast, .forecast])
            #expect(recorded.allSatisfy { $0.outcome == .ok && $0.httpStatus == 200 && $0.resultCode == "00" })
            #expect(recorded.map(\.rowsNew) == [1, 7, 7])
            await #expect(
                try rig.store.forecast(pollutant: .pm25, date: LocalDate(year: 2026, month: 11, day: 23), region: .seoul)?.grade
                    == .known(.veryBad))
            #expect(try await rig.store.loadStatus()?.forecast?.nextFetchAt == instant(kst: "2026-11-22T23:30:00"))
            clock.advance(to: instant(kst: "2026-11-22T23:29:59"))
            #expect(try await clock.waitUntilSleeping())
            #expect(ForecastServiceTests.dailyRequests(rig).count == 2, "nothing more before 23:30")

            // 23:30: the server still has only the 17시 issue, so AirKorea is "late": retried 5 and
            // 10 minutes later, then 20 minutes later, in the next KST day's spare calls (its
            // catch-up), then nothing until 05:30.
            // Each step waits until the service sleeps having planned its retry (the status names
            // it) before the clock moves, so a loaded machine cannot make the test race the service.
            func planned(_ time: String) async throws -> Bool {
                try await clock.waitUntilSleeping { try await rig.store.loadStatus()?.forecast?.nextFetchAt == instant(kst: time) }
            }
            clock.advance(to: instant(kst: "2026-11-22T23:30:00"))
            #expect(try await planned("2026-11-22T23:35:00"))
            #expect(ForecastServiceTests.dailyRequests(rig).count == 4)
            clock.advance(to: instant(kst: "2026-11-22T23:35:30"))
            #expect(try await planned("2026-11-22T23:45:30"))
            #expect(ForecastServiceTests.dailyRequests(rig).count == 6)
            clock.advance(to: instant(kst: "2026-11-22T23:46:00"))
            #expect(try await planned("2026-11-23T00:06:00"))
            #expect(ForecastServiceTests.dailyRequests(rig).count == 8)
            clock.advance(to: instant(kst: "2026-11-22T23:59:00"))
            #expect(try await clock.waitUntilSleeping())
            #expect(ForecastServiceTests.dailyRequests(rig).count == 8)
            clock.advance(to: instant(kst: "2026-11-23T00:06:30"))
            #expect(try await planned("2026-11-23T05:30:00"))
            #expect(ForecastServiceTests.dailyRequests(rig).count == 10)
            #expect(ForecastServiceTests.dailyRequests(rig).suffix(2).allSatisfy { $0.query["searchDate"] == "2026-11-22" })
            clock.advance(to: instant(kst: "2026-11-23T05:00:00"))
            #expect(try await clock.waitUntilSleeping())
            #expect(ForecastServiceTests.dailyRequests(rig).count == 10)
            // The 10 forecast calls and the outlook's 1; the outlook's other kept call was never spent by the forecast.
            #expect(try await rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-22T00:00:00")) == 10)
            #expect(try await rig.store.attemptCount(kind: .weeklyOutlook, since: instant(kst: "2026-11-22T00:00:00")) == 1)
            #expect(rig.server.requests.count == 11)
            #expect(try await rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-23T00:00:00")) == 2)
            #expect(!rig.logs.text.contains(testKey))
            #expect(rig.logs.text.contains("not published yet"))
            task.cancel()
            _ = try? await task.value
        }
    }
}

@Suite("dustd's forecast fetcher at a night-time start", .serialized, .timeLimit(.minutes(10)))
struct ForecastNightStartTests {
    @Test(
        "A key problem (code 30) at 12:00 waits for the next hour, not 17:30; a reload (a renewed key) asks again at the next look, within the hour"
    )
    func keyProblemThenReload() async throws {
        try await withRig { rig in
            let key30 = try TestFixtures.data("real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml")
            let refusing = Atomic<Bool>(true)
            rig.server.setScript { request in
                refusing.load(ordering: .relaxed) ? .respond(status: 200, body: key30) : ForecastServiceTests.answer(request)
            }
            let clock = ManualClock(instant(kst: "2026-11-22T12:00:00"))
            let live = LiveConfiguration(
                settings: try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path), key: ServiceKey(testKey)!)
            let (service, board) = try await ForecastServiceTests.serviceAndBoard(rig, clock: clock, configuration: live)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            // Refused at 12:00: the next try is 13:00, the next hour (it was 17:30, the next publication).
            #expect(
                try await clock.waitUntilSleeping {
                    ForecastServiceTests.dailyRequests(rig).count >= 1 && board.current.forecast?.nextFetchAt != nil
                })
            #expect(board.current.forecast?.nextFetchAt == instant(kst: "2026-11-22T13:00:00"))
            // The key renewed and reloaded at 12:10: asked at the next look (30 s), not at 13:00.
            refusing.store(false, ordering: .relaxed)
            live.replace(live.snapshot)
            let before = ForecastServiceTests.dailyRequests(rig).count
            clock.advance(to: instant(kst: "2026-11-22T12:10:00"))
            #expect(try await clock.waitUntilSleeping { ForecastServiceTests.dailyRequests(rig).count >= before + 2 })
            #expect(clock.now < instant(kst: "2026-11-22T13:00:00"))
            #expect(try await rig.store.newestForecastIssue(pollutant: .pm25, notAfter: clock.now) != nil)
            task.cancel()
            _ = try? await task.value
        }
    }

    @Test("Started at 01:40 KST with nothing stored: asks for the 23시 issue (searchDate the day before) at once, not at 05:30")
    func nightStart() async throws {
        try await withRig { rig in
            rig.server.setScript { request in
                guard request.operation == "getMinuDustFrcstDspth" else { return .respond(status: 404, body: Data()) }
                return .respond(
                    status: 200, body: request.query["InformCode"] == "PM25" ? ForecastServiceTests.pm25 : ForecastServiceTests.pm10)
            }
            let clock = ManualClock(instant(kst: "2026-11-23T01:40:00"))
            let service = try await ForecastServiceTests.service(rig, clock: clock)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            // The clock does not move: both calls are made at 01:40, and recorded as that day's.
            func recorded() async throws -> Int {
                try await rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-23T00:00:00"))
            }
            #expect(try await clock.waitUntilSleeping { try await recorded() >= 2 })
            #expect(try await recorded() == 2)
            // Then (issue 37) the weekly outlook of the day before, also at once: no InformCode.
            #expect(Array(rig.server.requests.map { $0.query["InformCode"] }.prefix(2)) == ["PM10", "PM25"])
            #expect(rig.server.requests.dropFirst(2).allSatisfy { $0.query["InformCode"] == nil })
            #expect(rig.server.requests.allSatisfy { $0.query["searchDate"] == "2026-11-22" })
            task.cancel()
            _ = try? await task.value
        }
    }
}

@Suite("dustd's weekly outlook fetch against a loopback AirKorea", .serialized, .timeLimit(.minutes(10)))
struct WeeklyOutlookServiceTests {
    static let older = try! TestFixtures.data("synthesized/weekly-outlook-2026-11-20.xml")

    @Test("Today's outlook not published yet at 17:40: retried once 5 minutes later, then nothing before tomorrow's 17:30")
    func latePublicationRetriedWithinItsTwoCalls() async throws {
        try await withRig { rig in
            rig.server.setScript { request in
                request.operation == "getMinuDustWeekFrcstDspth"
                    ? .respond(status: 200, body: Self.older) : ForecastServiceTests.answer(request)
            }
            let clock = ManualClock(instant(kst: "2026-11-22T17:40:00"))
            let service = try await ForecastServiceTests.service(rig, clock: clock)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            func outlookCalls() async throws -> Int {
                try await rig.store.attemptCount(kind: .weeklyOutlook, since: instant(kst: "2026-11-22T00:00:00"))
            }
            #expect(try await clock.waitUntilSleeping { try await outlookCalls() == 1 })
            // What came was stored (an older publication), but it is not today's.
            #expect(try await rig.store.newestWeeklyOutlook()?.publishedOn == LocalDate(year: 2026, month: 11, day: 20))
            clock.advance(to: instant(kst: "2026-11-22T17:45:30"))
            #expect(try await clock.waitUntilSleeping { try await outlookCalls() == 2 })
            clock.advance(to: instant(kst: "2026-11-22T23:00:00"))
            #expect(try await clock.waitUntilSleeping())
            #expect(try await outlookCalls() == 2, "at most its 2 calls a day")
            #expect(
                rig.server.requests.filter { $0.operation == "getMinuDustWeekFrcstDspth" }.allSatisfy {
                    $0.query["searchDate"] == "2026-11-22"
                })
            #expect(rig.logs.text.contains("Weekly outlook of 2026-11-22 is not published yet"))
            task.cancel()
            _ = try? await task.value
        }
    }
}
