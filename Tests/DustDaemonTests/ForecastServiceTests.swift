import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("dustd's forecast fetcher against a loopback AirKorea", .serialized)
struct ForecastServiceTests {
    static let pm10 = try! TestFixtures.data("synthesized/forecast-pm10-2026-11-22.xml")
    static let pm25 = try! TestFixtures.data("synthesized/forecast-pm25-2026-11-22.xml")

    @Test("Fetches the 17시 publication at once, stores it, waits for 23:30; a late publication is retried only within the daily cap")
    func scheduleAndCap() async throws {
        try await withRig { rig in
            rig.server.setScript { request in
                guard request.operation == "getMinuDustFrcstDspth" else { return .respond(status: 404, body: Data()) }
                return .respond(status: 200, body: request.query["InformCode"] == "PM25" ? Self.pm25 : Self.pm10)
            }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let clock = ManualClock(instant(kst: "2026-11-22T17:40:00"))
            let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
            let board = await DaemonStatusBoard(
                DaemonStatus(
                    state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구",
                    startedAt: clock.now, heartbeatSeconds: 2),
                database: database, clock: clock, logger: rig.logs.logger())
            let key = ServiceKey(testKey)!
            let redactor = SecretRedactor()
            redactor.add(key)
            let service = ForecastService(
                configuration: LiveConfiguration(settings: settings, key: key), database: database, board: board,
                transport: rig.transport, clock: clock, logger: rig.logs.logger(redactor: redactor))
            let task = Task { try await service.run() }
            defer { task.cancel() }

            // 17:40: the 17시 issue, both pollutants, searchDate today.
            #expect(
                try await clock.waitUntilSleeping {
                    guard rig.server.requests.count >= 2 else { return false }
                    return try rig.store.loadStatus()?.forecast?.nextFetchAt != nil
                })
            #expect(rig.server.requests.map { $0.query["InformCode"] } == ["PM10", "PM25"])
            #expect(rig.server.requests.allSatisfy { $0.query["searchDate"] == "2026-11-22" && $0.query["returnType"] == "xml" })
            #expect(try rig.store.newestForecastIssue(pollutant: .pm25) == instant(kst: "2026-11-22T17:00:00"))
            let recorded = try rig.store.recentAttempts(limit: 2)
            #expect(recorded.map(\.operation) == ["forecast PM25 2026-11-22 page 1", "forecast PM10 2026-11-22 page 1"])
            #expect(recorded.allSatisfy { $0.outcome == .ok && $0.httpStatus == 200 && $0.resultCode == "00" && $0.rowsNew == 7 })
            #expect(
                try rig.store.forecast(pollutant: .pm25, date: LocalDate(year: 2026, month: 11, day: 23), region: .seoul)?.grade
                    == .known(.veryBad))
            #expect(try rig.store.loadStatus()?.forecast?.nextFetchAt == instant(kst: "2026-11-22T23:30:00"))
            clock.advance(to: instant(kst: "2026-11-22T23:29:59"))
            #expect(try await clock.waitUntilSleeping())
            #expect(rig.server.requests.count == 2, "nothing more before 23:30")

            // 23:30: the server still has only the 17시 issue, so AirKorea is "late": retried 5 and
            // 10 minutes later, then 20 minutes later, in the next KST day's spare calls (its
            // catch-up), then nothing until 05:30.
            // Each step waits until the service sleeps having planned its retry (the status names
            // it) before the clock moves, so a loaded machine cannot make the test race the service.
            func planned(_ time: String) async throws -> Bool {
                try await clock.waitUntilSleeping { try rig.store.loadStatus()?.forecast?.nextFetchAt == instant(kst: time) }
            }
            clock.advance(to: instant(kst: "2026-11-22T23:30:00"))
            #expect(try await planned("2026-11-22T23:35:00"))
            #expect(rig.server.requests.count == 4)
            clock.advance(to: instant(kst: "2026-11-22T23:35:30"))
            #expect(try await planned("2026-11-22T23:45:30"))
            #expect(rig.server.requests.count == 6)
            clock.advance(to: instant(kst: "2026-11-22T23:46:00"))
            #expect(try await planned("2026-11-23T00:06:00"))
            #expect(rig.server.requests.count == 8)
            clock.advance(to: instant(kst: "2026-11-22T23:59:00"))
            #expect(try await clock.waitUntilSleeping())
            #expect(rig.server.requests.count == 8)
            clock.advance(to: instant(kst: "2026-11-23T00:06:30"))
            #expect(try await planned("2026-11-23T05:30:00"))
            #expect(rig.server.requests.count == 10)
            #expect(rig.server.requests.suffix(2).allSatisfy { $0.query["searchDate"] == "2026-11-22" })
            clock.advance(to: instant(kst: "2026-11-23T05:00:00"))
            #expect(try await clock.waitUntilSleeping())
            #expect(rig.server.requests.count == 10)
            #expect(try rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-22T00:00:00")) == 10)
            #expect(try rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-23T00:00:00")) == 2)
            #expect(!rig.logs.text.contains(testKey))
            #expect(rig.logs.text.contains("not published yet"))
            task.cancel()
            _ = try? await task.value
        }
    }
}

@Suite("dustd's forecast fetcher at a night-time start", .serialized)
struct ForecastNightStartTests {
    @Test("Started at 01:40 KST with nothing stored: asks for the 23시 issue (searchDate the day before) at once, not at 05:30")
    func nightStart() async throws {
        try await withRig { rig in
            rig.server.setScript { request in
                guard request.operation == "getMinuDustFrcstDspth" else { return .respond(status: 404, body: Data()) }
                return .respond(
                    status: 200, body: request.query["InformCode"] == "PM25" ? ForecastServiceTests.pm25 : ForecastServiceTests.pm10)
            }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let clock = ManualClock(instant(kst: "2026-11-23T01:40:00"))
            let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
            let board = await DaemonStatusBoard(
                DaemonStatus(
                    state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구",
                    startedAt: clock.now, heartbeatSeconds: 2),
                database: database, clock: clock, logger: rig.logs.logger())
            let service = ForecastService(
                configuration: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!), database: database,
                board: board, transport: rig.transport, clock: clock, logger: rig.logs.logger())
            let task = Task { try await service.run() }
            defer { task.cancel() }
            // The clock does not move: both calls are made at 01:40, and recorded as that day's.
            func recorded() throws -> Int {
                try rig.store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-23T00:00:00"))
            }
            #expect(try await clock.waitUntilSleeping { try recorded() >= 2 })
            #expect(try recorded() == 2)
            #expect(rig.server.requests.map { $0.query["InformCode"] } == ["PM10", "PM25"])
            #expect(rig.server.requests.allSatisfy { $0.query["searchDate"] == "2026-11-22" })
            task.cancel()
            _ = try? await task.value
        }
    }
}
