import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import Metrics
import ServiceLifecycleTestKit
import Synchronization
import TestSupport
import Testing

/// Settings for a poll loop against the fake server: hourly schedule, one-second retries.
func loopSettings(baseURL: String, storagePath: String) throws -> FineDustSettings {
    var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
        configurationFile: nil, now: settingsLoadedAt)
    settings.station.name = "종로구"
    settings.api.baseURL = baseURL
    // A bound against a hang, not a test of one: the loopback server answers in the test process, which two
    // full runs on two cores (load 18) slowed past 2 s (docs/RELIABILITY.md).
    settings.api.timeoutSeconds = 30
    settings.storagePath = storagePath
    settings.poll = PollSettings(minute: 20, jitterSeconds: 0, intervalSeconds: 3600, retryInitialSeconds: 1, retryMaxSeconds: 2)
    return settings
}

/// A PollService on a manual clock over the rig's store, with the board it reports to.
struct ClockedLoop {
    let clock: ManualClock
    let database: DaemonDatabase
    let board: DaemonStatusBoard
    let service: PollService
    /// What a SIGHUP reload replaces.
    let configuration: LiveConfiguration

    /// The loop is asleep between cycles (during a cycle only the heartbeat sleeps).
    var idle: Bool { board.current.state != .polling }

    /// Moves the clock from wake-up to wake-up of the loop until `done` holds while it sleeps, or
    /// `limit` seconds of clock time have passed (false then).
    func advance(upTo limit: TimeInterval, until done: () async throws -> Bool = { false }) async throws -> Bool {
        try await clock.advance(upTo: limit, whenIdle: { idle }, until: done)
    }
}

/// Starts at 2026-11-21 00:20 KST (`DemoReplay.now`), the fixture's day complete.
/// `metrics` is the factory its requests are counted with; `afterCycle` what it calls after each poll (and
/// each hour of a longer wait), the alert and advisory services' trigger.
func clockedLoop(
    _ rig: FaultRig, settings: FineDustSettings, jitter: @escaping @Sendable () -> Double,
    metrics: any MetricsFactory = NOOPMetricsHandler.instance, afterCycle: (@Sendable (Date) -> Void)? = nil
) async -> ClockedLoop {
    let clock = ManualClock(DemoReplay.now)
    let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
    let board = await DaemonStatusBoard(
        DaemonStatus(
            state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구",
            startedAt: clock.now, heartbeatSeconds: 2),
        database: database, clock: clock, logger: rig.logs.logger())
    let configuration = LiveConfiguration(settings: settings, key: ServiceKey(testKey)!)
    let service = PollService(
        configuration: configuration, database: database, board: board,
        transport: rig.transport, notifier: SystemdNotifier(environment: [:]), clock: clock, logger: rig.logs.logger(),
        jitter: jitter, metrics: metrics, afterCycle: afterCycle, stop: DaemonStop())
    return ClockedLoop(clock: clock, database: database, board: board, service: service, configuration: configuration)
}

/// Runs a PollService on a manual clock (`loop`, or a new one with jitter at its top) until `done`
/// holds while it waits (within a day of clock time), then `settle` seconds of clock time more to
/// catch any request that should not happen, then shuts it down gracefully as a service group
/// would; returns the requests the server saw and the status recorded while the loop waited.
func runLoop(
    _ rig: FaultRig, loop given: ClockedLoop? = nil, settle: TimeInterval = 1.5, until done: @escaping () async throws -> Bool
) async throws -> (requests: [ReceivedRequest], waiting: DaemonStatus?) {
    let loop: ClockedLoop
    if let given {
        loop = given
    } else {
        loop = try await clockedLoop(rig, settings: loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path), jitter: { 1 })
    }
    return try await testGracefulShutdown { trigger in
        let task = Task { try await loop.service.run() }
        #expect(try await loop.advance(upTo: 86_400, until: done))
        _ = try await loop.advance(upTo: settle)
        let waiting = await recordedStatus(rig)
        trigger.triggerGracefulShutdown()
        // The wait ends at once: the loop returns without another request, the record says stopping.
        try await task.value
        await #expect(recordedState(rig) == .stopping)
        return (rig.server.requests, waiting)
    }
}

/// The status dustd recorded, once a poll has ended.
func recordedStatus(_ rig: FaultRig) async -> DaemonStatus? {
    guard let status = try? await rig.store.loadStatus(), status.lastSuccess != nil || status.lastError != nil else { return nil }
    return status
}

/// The state of the status record, once a poll has ended.
func recordedState(_ rig: FaultRig) async -> DaemonStatus.State? { await recordedStatus(rig)?.state }

@Suite("The poll loop's retry rules, on a manual clock", .serialized, .timeLimit(.minutes(10)))
struct PollServiceTests {
    @Test("Passing faults are retried with backoff until they clear")
    func retriesUntilClear() async throws {
        try await withRig { rig in
            let failures = Mutex(0)
            let daily = rig.daily
            let loop = try await clockedLoop(rig, settings: loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path), jitter: { 1 })
            let times = Mutex<[Date]>([])
            rig.server.setScript { _ in
                times.withLock { $0.append(loop.clock.now) }
                let count = failures.withLock { value in
                    value += 1
                    return value
                }
                return count <= 2
                    ? .respond(status: 503, body: FaultTests.html503, contentType: "text/html") : .respond(status: 200, body: daily)
            }
            let (requests, waiting) = try await runLoop(rig, loop: loop) {
                guard try await rig.storedCount() == 24 else { return false }
                return await recordedState(rig) == .idle
            }
            // Two failures, retried after 1 s and 2 s (jitter at its top), then success and quiet
            // until the next hour.
            #expect(requests.count == 3)
            #expect(times.withLock { $0 }.map { $0.timeIntervalSince(DemoReplay.now) } == [0, 1, 3])
            #expect(try await rig.storedCount() == 24)
            let attempts = try await rig.store.recentAttempts(limit: 10)
            #expect(attempts.map(\.outcome) == [.ok, .retrying, .retrying])
            #expect(waiting?.state == .idle)
            #expect(waiting?.nextPollAt == instant(kst: "2026-11-21T01:20:00"))
        }
    }

    @Test("A key problem is not retried before the next hour and is logged once with its fix")
    func keyProblemWaits() async throws {
        try await withRig { rig in
            rig.server.setScript { _ in .respond(status: 200, body: FaultTests.key30) }
            // Retries would come after 1 s; let 2.5 s pass after the first failure to see none.
            let (requests, waiting) = try await runLoop(rig, settle: 2.5) { await recordedState(rig) != nil }
            #expect(requests.count == 1)
            #expect(waiting?.state == .waitingForNextHour)
            #expect(waiting?.lastError?.kind == .airKorea)
            #expect(waiting?.lastError?.resultCode == "30")
            #expect(rig.logs.text.contains("Decoding key"))
            #expect(!rig.logs.text.contains(testKey))
        }
    }

    @Test("A station AirKorea does not know (no item, totalCount 0) is a configuration failure, logged once with the nearest stored names")
    func unknownStation() async throws {
        try await withRig { rig in
            let empty = try TestFixtures.data("synthesized/empty-result-totalcount-0.xml")
            rig.server.setScript { _ in .respond(status: 200, body: empty) }
            try await rig.store.saveStations(
                [Station(name: "종로구"), Station(name: "중구"), Station(name: "강남구")], at: DemoReplay.now)
            // A name mistyped: no hour of it stored (종로구's six are the rig's).
            var settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            settings.station.name = "종로"
            let loop = await clockedLoop(rig, settings: settings, jitter: { 1 })
            let (requests, waiting) = try await runLoop(rig, loop: loop, settle: 2.5) { await recordedState(rig) != nil }
            // Not retried before the next hour, and not a success with 0 new.
            #expect(requests.count == 1)
            #expect(waiting?.state == .waitingForNextHour)
            #expect(waiting?.lastError?.kind == .configuration)
            #expect(waiting?.lastSuccess == nil)
            #expect(waiting?.lastError?.message.contains("AirKorea knows no station named 종로: it returned no hour for it") == true)
            #expect(
                waiting?.lastError?.message.contains("the nearest stored names: 종로구, 중구, 강남구") == true,
                "\(waiting?.lastError?.message ?? "")")
            #expect(rig.logs.text.components(separatedBy: "AirKorea knows no station named").count == 2, "logged once")
            #expect(try await rig.store.recentAttempts(limit: 1).map(\.outcome) == [.failed])
        }
    }

    @Test("A reload that renews the key after code 30 polls within a minute instead of at the next hour; one that changes nothing waits")
    func reloadedKeyPollsNow() async throws {
        try await withRig { rig in
            rig.server.setScript { _ in .respond(status: 200, body: FaultTests.key30) }
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let loop = await clockedLoop(rig, settings: settings, jitter: { 1 })
            let daily = rig.daily
            // Phases: the failure seen and a reload that changes nothing; two minutes later one that renews the key.
            let state = Mutex<(unchangedAt: Date?, reloadedAt: Date?, polledAt: Date?)>((nil, nil, nil))
            let (requests, _) = try await runLoop(rig, loop: loop, settle: 60) {
                let now = loop.clock.now
                let (unchangedAt, reloadedAt, _) = state.withLock { $0 }
                guard let unchangedAt else {
                    guard await recordedStatus(rig)?.lastError != nil else { return false }
                    loop.configuration.replace(.init(settings: settings, key: ServiceKey(testKey)!))
                    state.withLock { $0.unchangedAt = now }
                    return false
                }
                guard reloadedAt != nil else {
                    #expect(rig.server.requests.count == 1, "a reload that changed nothing polled")
                    guard now.timeIntervalSince(unchangedAt) >= 120 else { return false }
                    rig.server.setScript { _ in .respond(status: 200, body: daily) }
                    loop.configuration.replace(.init(settings: settings, key: ServiceKey(testKey + "renewed")!))
                    state.withLock { $0.reloadedAt = now }
                    return false
                }
                guard rig.server.requests.count >= 2 else { return false }
                state.withLock { $0.polledAt = $0.polledAt ?? now }
                return true
            }
            #expect(requests.count == 2)
            let (_, reloadedAt, polledAt) = state.withLock { $0 }
            let waited = try #require(polledAt).timeIntervalSince(try #require(reloadedAt))
            // Before, it waited for 01:20 KST, an hour after the failure.
            #expect(waited <= 60, "polled \(waited) s after the reload")
            #expect(rig.logs.text.contains("The reload changed the service key or the stations: polling now"))
        }
    }

    @Test("The daily quota waits for 00:00 KST")
    func quotaWaits() async throws {
        try await withRig { rig in
            rig.server.setScript { _ in .respond(status: 200, body: FaultTests.quota22) }
            let (requests, waiting) = try await runLoop(rig, settle: 2.5) { await recordedState(rig) != nil }
            #expect(requests.count == 1)
            let status = try #require(waiting)
            #expect(status.state == .quotaExhausted)
            // Started at 00:20 KST: the quota resets at the next midnight, plus a minute.
            #expect(status.nextPollAt == instant(kst: "2026-11-22T00:01:00"))
        }
    }
}

@Suite("The host clock jumping", .serialized, .timeLimit(.minutes(10)))
struct ClockJumpTests {
    func run(_ rig: FaultRig, jump: TimeInterval) async throws -> [ReceivedRequest] {
        let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
        let loop = await clockedLoop(rig, settings: settings, jitter: { 0 })
        let task = Task { try await loop.service.run() }
        // The first poll done, the loop waits for 01:20 KST; then the host's clock is set.
        #expect(try await loop.advance(upTo: 60) { await recordedState(rig) != nil })
        loop.clock.jump(by: jump)
        #expect(try await loop.advance(upTo: 60) { rig.server.requests.count >= 2 })
        _ = try await loop.advance(upTo: 3)
        task.cancel()
        _ = try? await task.value
        return rig.server.requests
    }

    @Test(
        "Forward two hours: it polls at once; back two days: it polls at once instead of stalling; nothing is duplicated or mis-dated",
        arguments: [2.0 * 3600, -2.0 * 86_400])
    func jump(seconds: TimeInterval) async throws {
        try await withRig { rig in
            let requests = try await run(rig, jump: seconds)
            #expect(requests.count == 2)
            #expect(try await rig.storedCount() == 24)
            let slots = try await rig.store.readings(
                stations: ["종로구"], from: Slot(startEpochSeconds: 0), to: Slot(startEpochSeconds: 4_000_000_000 - 4_000_000_000 % 3600)
            ).map(\.slot)
            #expect(slots.first == KoreaStandardTime.slot(forDataTime: "2026-11-20 01:00"))
            #expect(slots.last == KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00"))
            #expect(Set(slots).count == 24)
            if seconds < 0 { #expect(rig.logs.text.contains("clock went back")) }
        }
    }
}

@Suite("A wait in dustd: one sleep to the wake time, the heartbeat or the next look at the clock", .timeLimit(.minutes(10)))
struct PauseTests {
    @Test("Waiting an hour with a 2 s heartbeat: it wakes every 2 s and writes the heartbeat; a 30 s look bounds a long heartbeat")
    func heartbeatDuringWait() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("d.sqlite"))
        let start = instant(kst: "2026-11-21T00:20:00")
        for (heartbeat, firstWake) in [(2.0, 2.0), (600, DaemonStatusBoard.lookAgainSeconds)] {
            let clock = ManualClock(start)
            let database = DaemonDatabase(store, logger: LogCapture().logger())
            let board = await DaemonStatusBoard(
                DaemonStatus(
                    state: .idle, mode: .daemon, pid: getpid(), version: "test", station: "종로구", startedAt: start,
                    heartbeatSeconds: heartbeat), database: database, clock: clock, logger: LogCapture().logger())
            let wait = Task { await board.pause(until: start.addingTimeInterval(3600)) }
            #expect(try await clock.waitUntilSleeping())
            #expect(clock.deadlines == [start.addingTimeInterval(firstWake)])
            clock.advance(by: firstWake)
            #expect(await wait.value)
            #expect(try await store.loadStatus()?.heartbeatAt == (heartbeat == 2 ? start.addingTimeInterval(2) : start))
        }
    }
}
