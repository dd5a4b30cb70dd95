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

/// Settings for a poll loop against the fake server: hourly schedule, one-second retries.
func loopSettings(baseURL: String, storagePath: String) throws -> FineDustSettings {
    var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(configurationFile: nil)
    settings.station.name = "종로구"
    settings.api.baseURL = baseURL
    settings.api.timeoutSeconds = 2
    settings.storagePath = storagePath
    settings.poll = PollSettings(minute: 20, jitterSeconds: 0, intervalSeconds: 3600, retryInitialSeconds: 1, retryMaxSeconds: 2)
    return settings
}

/// Runs a PollService until `done` holds (or 60 s pass), then `settle` seconds more to catch any
/// request that should not happen, then cancels it; returns the requests the server saw.
/// Waiting for a condition rather than a fixed time keeps the test right on a loaded machine.
func runLoop(_ rig: FaultRig, settle: Double = 1.5, until done: @escaping () throws -> Bool) async throws -> [ReceivedRequest] {
    let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
    let service = pollService(rig, settings: settings, jitter: { 1 })
    let task = Task { try await service.run() }
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, !(try done()) {
        try await Task.sleep(for: .milliseconds(50))
    }
    try await Task.sleep(for: .milliseconds(Int64(settle * 1000)))
    task.cancel()
    _ = try? await task.value
    return rig.server.requests
}

/// A PollService over the rig's store, with a fresh status record.
func pollService(
    _ rig: FaultRig, settings: FineDustSettings, clock: any WallClock = SystemClock(), jitter: @escaping @Sendable () -> Double,
    sleepStep: Duration = .seconds(30)
) -> PollService {
    let database = DaemonDatabase(rig.store, logger: rig.logs.logger())
    let board = DaemonStatusBoard(
        DaemonStatus(
            state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "종로구",
            startedAt: clock.now, heartbeatSeconds: 2),
        database: database, clock: clock, logger: rig.logs.logger())
    return PollService(
        configuration: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!), database: database, board: board,
        transport: rig.transport, notifier: SystemdNotifier(environment: [:]), clock: clock, logger: rig.logs.logger(),
        jitter: jitter, sleepStep: sleepStep)
}

/// The status dustd recorded, once a poll has ended.
func recordedStatus(_ rig: FaultRig) -> DaemonStatus? {
    guard let status = try? rig.store.loadStatus(), status.lastSuccess != nil || status.lastError != nil else { return nil }
    return status
}

/// The state of the status record, once a poll has ended.
func recordedState(_ rig: FaultRig) -> DaemonStatus.State? { recordedStatus(rig)?.state }

@Suite("The poll loop's retry rules, in real time", .serialized)
struct PollServiceTests {
    @Test("Passing faults are retried with backoff until they clear")
    func retriesUntilClear() async throws {
        try await withRig { rig in
            let failures = Mutex(0)
            let daily = rig.daily
            rig.server.setScript { _ in
                let count = failures.withLock { value in
                    value += 1
                    return value
                }
                return count <= 2
                    ? .respond(status: 503, body: FaultTests.html503, contentType: "text/html") : .respond(status: 200, body: daily)
            }
            let requests = try await runLoop(rig) { try rig.storedCount() == 24 && recordedState(rig) == .idle }
            // Two failures, retried after about 1 s and 2 s (jitter at its top), then success and
            // quiet until the next hour.
            #expect(requests.count == 3)
            if requests.count == 3 {
                let gaps = zip(requests, requests.dropFirst()).map { $1.receivedAt.timeIntervalSince($0.receivedAt) }
                #expect(gaps[0] >= 0.9 && gaps[1] >= 1.9, "backoff gaps \(gaps)")
            }
            #expect(try rig.storedCount() == 24)
            let attempts = try rig.store.recentAttempts(limit: 10)
            #expect(attempts.map(\.outcome) == [.ok, .retrying, .retrying])
            #expect(recordedState(rig) == .idle)
        }
    }

    @Test("A key problem is not retried before the next hour and is logged once with its fix")
    func keyProblemWaits() async throws {
        try await withRig { rig in
            rig.server.setScript { _ in .respond(status: 200, body: FaultTests.key30) }
            // Retries would come after 1 s; wait 2.5 s past the first failure to see none.
            let requests = try await runLoop(rig, settle: 2.5) { recordedState(rig) != nil }
            #expect(requests.count == 1)
            #expect(recordedState(rig) == .waitingForNextHour)
            #expect(recordedStatus(rig)?.lastError?.kind == .airKorea)
            #expect(recordedStatus(rig)?.lastError?.resultCode == "30")
            #expect(rig.logs.text.contains("Decoding key"))
            #expect(!rig.logs.text.contains(testKey))
        }
    }

    @Test("The daily quota waits for 00:00 KST")
    func quotaWaits() async throws {
        try await withRig { rig in
            rig.server.setScript { _ in .respond(status: 200, body: FaultTests.quota22) }
            let requests = try await runLoop(rig, settle: 2.5) { recordedState(rig) != nil }
            #expect(requests.count == 1)
            let status = try #require(recordedStatus(rig))
            #expect(status.state == .quotaExhausted)
            #expect(status.nextPollAt.map(KoreaStandardTime.iso8601)?.hasSuffix("T00:01:00+09:00") == true)
        }
    }
}

/// A wall clock the test can set forward and back.
final class MovableClock: WallClock, Sendable {
    private let offset = Mutex<TimeInterval>(0)
    var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }
    func move(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

@Suite("The host clock jumping", .serialized)
struct ClockJumpTests {
    func run(_ rig: FaultRig, jump: TimeInterval) async throws -> [ReceivedRequest] {
        let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
        let clock = MovableClock()
        let service = pollService(rig, settings: settings, clock: clock, jitter: { 0 }, sleepStep: .milliseconds(50))
        let task = Task { try await service.run() }
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, recordedState(rig) == nil { try await Task.sleep(for: .milliseconds(50)) }
        clock.move(by: jump)
        while Date() < deadline, rig.server.requests.count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        try await Task.sleep(for: .milliseconds(300))
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
            #expect(try rig.storedCount() == 24)
            let slots = try rig.store.readings(
                stations: ["종로구"], from: Slot(startEpochSeconds: 0), to: Slot(startEpochSeconds: 4_000_000_000 - 4_000_000_000 % 3600)
            ).map(\.slot)
            #expect(slots.first == KoreaStandardTime.slot(forDataTime: "2026-11-20 01:00"))
            #expect(slots.last == KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00"))
            #expect(Set(slots).count == 24)
            if seconds < 0 { #expect(rig.logs.text.contains("clock went back")) }
        }
    }
}
