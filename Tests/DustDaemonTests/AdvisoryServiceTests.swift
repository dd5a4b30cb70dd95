import AirKorea
import DustConfig
import DustKit
import DustReports
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import DustDaemon

@Suite("dustd's advisory fetcher against a loopback AirKorea", .serialized, .timeLimit(.minutes(10)))
struct AdvisoryServiceTests {
    @Test(
        "Unapproved: turned off with one log line and a status line; the polls go on, never failing; a reload asks again"
    )
    func unapproved() async throws {
        try await withRig { rig in
            rig.server.setScript { request in
                FakeReply.advisories(for: request, approved: false) ?? .respond(status: 200, body: FaultRig.daily)
            }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let polls = AsyncStream<Date>.makeStream()
            let clocked = await clockedLoop(rig, settings: settings, jitter: { 0 }, afterCycle: { polls.continuation.yield($0) })
            let (clock, database, board, live, poll) = (
                clocked.clock, clocked.database, clocked.board, clocked.configuration, clocked.service
            )
            // The test is the advisory loop's trigger: each poll's end runs one step, in order.
            let advisories = AdvisoryService(
                configuration: live, database: database, board: board, transport: rig.transport, triggers: AsyncStream { nil },
                clock: clock, logger: rig.logs.logger())
            var loop = AdvisoryService.LoopState(generation: live.generation)
            let task = Task { try await poll.run() }
            defer { task.cancel() }
            var ends = polls.stream.makeAsyncIterator()
            func advisoryRequests() -> [String] {
                rig.server.requests.filter { $0.operation != "getMsrstnAcctoRltmMesureDnsty" }.map {
                    $0.operation == "getUlfptcaAlarmInfo" ? $0.query["itemCode"] ?? "?" : "O3"
                }
            }

            // 00:20: the poll, then PM10, PM25 (both denied) and ozone (stored).
            _ = await ends.next()
            await advisories.step(&loop)
            #expect(advisoryRequests() == ["PM10", "PM25", "O3"])
            #expect(rig.server.requests.filter { $0.operation == "getUlfptcaAlarmInfo" }.allSatisfy { $0.query["year"] == "2026" })
            #expect(board.current.advisories?.turnedOff.map(\.pollutant) == [.pm10, .pm25])
            #expect(board.current.advisories?.turnedOff.first?.resultCode == "20")
            #expect(board.current.lastError == nil)
            #expect(!board.current.lastPollFailed)
            await #expect(
                try rig.store.advisories(from: instant(kst: "2026-01-01T00:00:00"), to: instant(kst: "2027-01-01T00:00:00")).count == 2)
            #expect(rig.logs.text.components(separatedBy: "turned off until a reload").count - 1 == 2)
            #expect(rig.logs.text.contains("한국환경공단_에어코리아_미세먼지 경보 발령 현황"))

            // 01:20: the next poll; only ozone is asked again, nothing new is logged about PM.
            #expect(try await clock.waitUntilSleeping { board.current.state != .polling })
            clock.advance(to: instant(kst: "2026-11-21T01:20:00"))
            _ = await ends.next()
            await advisories.step(&loop)
            #expect(advisoryRequests() == ["PM10", "PM25", "O3", "O3"])
            #expect(rig.logs.text.components(separatedBy: "turned off until a reload").count - 1 == 2)
            // A second trigger in the same hour asks nothing.
            await advisories.step(&loop)
            #expect(advisoryRequests().count == 4)

            // The measurements: every poll stored and ok; the advisory requests are counted apart.
            let since = instant(kst: "2026-11-21T00:00:00")
            let attempts = try await rig.store.recentAttempts(limit: 50)
            #expect(attempts.filter { $0.kind == .measurement }.allSatisfy { $0.outcome == .ok })
            #expect(try await rig.store.attemptCount(kind: .measurement, since: since) == 2)
            #expect(try await rig.store.attemptCount(kind: .advisory, since: since) == 4)
            #expect(attempts.filter { $0.kind == .advisory && $0.resultCode == "20" }.allSatisfy { $0.outcome == .failed })
            #expect(board.current.lastSuccess?.at == instant(kst: "2026-11-21T01:20:00"))
            #expect(!board.current.lastPollFailed)

            // dustctl status says what to apply for (text and --json share the record).
            let document = ReportJSON.status(
                DaemonHealth(status: board.current, newestSlot: nil, now: clock.now, processIsDustd: { _ in true }), database: "db",
                station: "종로구", rows: 0, calendar: settings.calendar, forecastCallsToday: 0
            ).serialized
            #expect(document.contains(#""turnedOff":[{"pollutant":"PM10","service":"한국환경공단_에어코리아_미세먼지 경보 발령 현황""#))

            // A reload turns the operations back on: the next hour asks all three again.
            rig.server.setScript { request in FakeReply.advisories(for: request) ?? .respond(status: 200, body: FaultRig.daily) }
            live.replace(live.snapshot)
            #expect(try await clock.waitUntilSleeping { board.current.state != .polling })
            clock.advance(to: instant(kst: "2026-11-21T02:20:00"))
            _ = await ends.next()
            await advisories.step(&loop)
            #expect(advisoryRequests().suffix(3) == ["PM10", "PM25", "O3"])
            #expect(board.current.advisories?.turnedOff == [])
            #expect(try await rig.store.activeAdvisories(at: clock.now).map(\.key).contains("87"))
            #expect(!rig.logs.text.contains(testKey))
            task.cancel()
            _ = try? await task.value
        }
    }

    @Test("A spent daily quota holds the polls until 00:01 KST; the advisories and the alert rules still have each hour")
    func hourlyDuringQuotaWait() async throws {
        try await withRig { rig in
            let quota22 = try TestFixtures.data("real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml")
            rig.server.setScript { request in FakeReply.advisories(for: request) ?? .respond(status: 200, body: quota22) }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let triggers = AsyncStream<Date>.makeStream()
            let clocked = await clockedLoop(rig, settings: settings, jitter: { 0 }, afterCycle: { triggers.continuation.yield($0) })
            let (clock, database, board, live, poll) = (
                clocked.clock, clocked.database, clocked.board, clocked.configuration, clocked.service
            )
            let advisories = AdvisoryService(
                configuration: live, database: database, board: board, transport: rig.transport, triggers: AsyncStream { nil },
                clock: clock, logger: rig.logs.logger())
            var loop = AdvisoryService.LoopState(generation: live.generation)
            let task = Task { try await poll.run() }
            defer { task.cancel() }
            var ends = triggers.stream.makeAsyncIterator()
            func count(_ operation: String) -> Int { rig.server.requests.filter { $0.operation == operation }.count }
            let measurement = "getMsrstnAcctoRltmMesureDnsty"

            // 00:20: the poll meets the quota (one request: the cycle stops at code 22) and waits until tomorrow 00:01.
            #expect(await ends.next() == DemoReplay.now)
            let pollsAtQuota = count(measurement)
            #expect(pollsAtQuota >= 1)
            #expect(try await clock.waitUntilSleeping { board.current.nextPollAt == instant(kst: "2026-11-22T00:01:00") })
            await advisories.step(&loop)
            #expect(count("getUlfptcaAlarmInfo") == 2)

            // 00:50: within the hour, nothing is triggered.
            clock.advance(to: instant(kst: "2026-11-21T00:50:00"))
            #expect(try await clock.waitUntilSleeping())
            // 01:20 and 05:20: each an hour after the last, a trigger with no poll; the advisories are asked again.
            for (hour, expected) in [("01:20", 4), ("05:20", 6)] {
                clock.advance(to: instant(kst: "2026-11-21T\(hour):00"))
                #expect(await ends.next() == instant(kst: "2026-11-21T\(hour):00"))
                await advisories.step(&loop)
                #expect(count("getUlfptcaAlarmInfo") == expected)
                #expect(count(measurement) == pollsAtQuota, "the quota is not asked again before 00:01 KST")
                #expect(try await clock.waitUntilSleeping())
            }
            // 00:01 the next day: the poll again, and its own trigger.
            rig.server.setScript { request in FakeReply.advisories(for: request) ?? .respond(status: 200, body: FaultRig.daily) }
            clock.advance(to: instant(kst: "2026-11-22T00:01:00"))
            #expect(await ends.next() == instant(kst: "2026-11-22T00:01:00"))
            #expect(count(measurement) > pollsAtQuota)
            task.cancel()
            _ = try? await task.value
        }
    }

    @Test("An hourly wait whose jitter came out later than the last one's is not a long wait: one trigger, the poll's")
    func jitteredHourIsNotLong() async throws {
        try await withRig { rig in
            rig.server.setScript { request in FakeReply.advisories(for: request) ?? .respond(status: 200, body: FaultRig.daily) }
            var settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            settings.poll.jitterSeconds = 120
            let triggers = AsyncStream<Date>.makeStream()
            // The first poll is at once (00:20:00, as if its jitter were 0); every later one's jitter the whole 120 s.
            let loop = await clockedLoop(rig, settings: settings, jitter: { 1 }, afterCycle: { triggers.continuation.yield($0) })
            let (clock, board) = (loop.clock, loop.board)
            let task = Task { try await loop.service.run() }
            defer { task.cancel() }
            var ends = triggers.stream.makeAsyncIterator()
            #expect(await ends.next() == DemoReplay.now)
            #expect(try await clock.waitUntilSleeping { board.current.state != .polling })
            // 01:20:30: more than an hour after the last call, but the poll is planned for 01:22, within the hour's
            // jitter: nothing yet. At 01:22 the poll, and its call the only one.
            clock.advance(to: instant(kst: "2026-11-21T01:20:30"))
            #expect(try await clock.waitUntilSleeping())
            clock.advance(to: instant(kst: "2026-11-21T01:22:00"))
            #expect(await ends.next() == instant(kst: "2026-11-21T01:22:00"))
            task.cancel()
            _ = try? await task.value
        }
    }

    @Test("A failure that is not about approval (an HTML 503) is logged once, asked again every hour, and turns nothing off")
    func transportFailureLoggedOnce() async throws {
        try await withRig { rig in
            let html = try TestFixtures.data("synthesized/html-503-service-unavailable.html")
            rig.server.setScript { request in
                request.operation == "getMsrstnAcctoRltmMesureDnsty"
                    ? .respond(status: 200, body: FaultRig.daily) : .respond(status: 503, body: html, contentType: "text/html")
            }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let clock = ManualClock(DemoReplay.now)
            let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
            let board = await DaemonStatusBoard(
                DaemonStatus(
                    state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구",
                    startedAt: clock.now, heartbeatSeconds: 2),
                database: database, clock: clock, logger: rig.logs.logger())
            let live = LiveConfiguration(settings: settings, key: ServiceKey(testKey)!)
            let advisories = AdvisoryService(
                configuration: live, database: database, board: board, transport: rig.transport, triggers: AsyncStream { nil },
                clock: clock, logger: rig.logs.logger())
            var loop = AdvisoryService.LoopState(generation: live.generation)
            for hour in 0..<3 {
                clock.advance(to: DemoReplay.now.addingTimeInterval(Double(hour * 3600)))
                await advisories.step(&loop)
            }
            #expect(rig.server.requests.count == 9, "three operations, every hour")
            // Failed once under a load of 17 (two full runs and a release build on two cores): said twice.
            #expect(
                rig.logs.text.components(separatedBy: "Advisories not fetched, trying again at the next hour").count - 1 == 1,
                "\(rig.logs.text)")
            #expect(board.current.advisories?.turnedOff == [])
            #expect(try await rig.store.attemptCount(kind: .advisory, since: DemoReplay.now) == 9)
            #expect(try await rig.store.attemptCount(kind: .measurement, since: DemoReplay.now) == 0)
        }
    }

    @Test("A gateway 30 is the advisory service's only when the measurements work; otherwise it is the key's, and nothing is turned off")
    func keyNotRegistered() throws {
        let key30 = FetchError.response(.service(.serviceKeyNotRegistered, reportedCode: "30", serverMessage: ""), httpStatus: 200)
        #expect(AdvisoryFetch.meansNotApproved(key30, measurementsWork: true))
        #expect(!AdvisoryFetch.meansNotApproved(key30, measurementsWork: false))
        let denied = FetchError.response(.service(.accessDenied, reportedCode: "20", serverMessage: ""), httpStatus: 200)
        #expect(AdvisoryFetch.meansNotApproved(denied, measurementsWork: false))
        let noService = FetchError.response(.service(.noSuchService, reportedCode: "12", serverMessage: ""), httpStatus: 200)
        #expect(AdvisoryFetch.meansNotApproved(noService, measurementsWork: true))
        #expect(!AdvisoryFetch.meansNotApproved(.httpStatus(503), measurementsWork: true))
        #expect(!AdvisoryFetch.meansNotApproved(.transport(.timeout(seconds: 2)), measurementsWork: true))
    }
}
