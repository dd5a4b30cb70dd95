import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import Foundation
import ServiceLifecycle
import ServiceLifecycleTestKit
import Synchronization
import TestSupport
import Testing

/// Which stand-in poll services run now, and every start in order.
final class Probes: Sendable {
    private let state = Mutex<(running: Set<String>, starts: [String])>(([], []))

    var running: Set<String> { state.withLock { $0.running } }
    var starts: [String] { state.withLock { $0.starts } }

    func started(_ name: String) {
        state.withLock {
            $0.running.insert(name)
            $0.starts.append(name)
        }
    }

    func ended(_ name: String) { state.withLock { _ = $0.running.remove(name) } }
}

/// Stands in for a poll service: says while it runs, and runs until stopped or shut down.
struct ProbeService: Service {
    let name: String
    let probes: Probes
    let clock: ManualClock

    func run() async throws {
        probes.started(name)
        clock.touch()
        try? await gracefulShutdown()
        probes.ended(name)
        clock.touch()
    }
}

/// One "dustd" of several on one database: its lease on the shared lock, its status board, its role.
private struct Instance {
    let host: String
    let pid: Int32
    let lease: MemoryPollerLease
    let board: DaemonStatusBoard
    let role: PollerRole
    let logs: LogCapture
    /// Its stop, begun by `StopAnnouncement` in dustd.
    let stop = DaemonStop()

    /// Its poll services are `host/poll` and `host/forecast` unless `services` makes others.
    init(
        host: String, pid: Int32, lock: MemoryPollerLock, store: any FineDustStore, clock: ManualClock, probes: Probes,
        retrySeconds: TimeInterval = 30, notifier: SystemdNotifier = SystemdNotifier(environment: [:]),
        services: (@Sendable (DaemonDatabase, DaemonStatusBoard, LogCapture) -> [any Service])? = nil
    ) async {
        let logs = LogCapture()
        let database = DaemonDatabase(store, logger: logs.logger())
        let board = await DaemonStatusBoard(
            DaemonStatus(
                state: .starting, mode: .daemon, pid: pid, version: "test", station: "종로구", startedAt: clock.now,
                heartbeatSeconds: 600, host: host),
            database: database, clock: clock, logger: logs.logger(), publishing: false)
        let lease = lock.lease()
        self.host = host
        self.pid = pid
        self.lease = lease
        self.board = board
        self.logs = logs
        role = PollerRole(
            lease: lease, board: board, clock: clock, logger: logs.logger(), host: host, pid: pid, notifier: notifier,
            retrySeconds: { retrySeconds },
            services: {
                services?(database, board, logs)
                    ?? [
                        ProbeService(name: "\(host)/poll", probes: probes, clock: clock),
                        ProbeService(name: "\(host)/forecast", probes: probes, clock: clock),
                    ]
            }, stop: stop)
    }

    /// How often the journal has `text`.
    func said(_ text: String) -> Int { logs.text.components(separatedBy: text).count - 1 }
}

private let standBy = "Another dustd polls AirKorea; this one serves and imports (retrying every 30 s)"

@Suite("One poller among several dustd on one database (docs/REFERENCE.md §20), on a manual clock", .serialized, .timeLimit(.minutes(10)))
struct PollerRoleTests {
    @Test(
        "Exactly one of two dustd runs the poll services; when its session ends it stops them and the other runs them 20 s later"
    )
    func oneAtATimeAndTakeover() async throws {
        let clock = ManualClock(DemoReplay.now)
        let store = SQLiteStore.scratch()
        let lock = MemoryPollerLock()
        let probes = Probes()
        let directory = try TemporaryDirectory("poller")
        defer { directory.remove() }
        let notify = try NotifySocket(path: directory.path("notify.sock"))
        let a = await Instance(host: "dust-a", pid: 101, lock: lock, store: store, clock: clock, probes: probes)
        let b = await Instance(
            host: "dust-b", pid: 202, lock: lock, store: store, clock: clock, probes: probes,
            notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": notify.path]))
        // Neither has written the shared record: neither polls yet.
        #expect(try await store.loadStatus() == nil)
        try await testGracefulShutdown { trigger in
            let first = Task { try await a.role.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running == ["dust-a/poll", "dust-a/forecast"] })
            let second = Task { try await b.role.run() }
            #expect(await clock.waitUntilSleeping(1) { b.said(standBy) == 1 })
            // Three more tries of b, 30 s apart: still a's, and b said so once.
            for _ in 0..<3 {
                clock.advance(by: 30)
                #expect(try await clock.waitUntilSleeping(1))
            }
            #expect(probes.running == ["dust-a/poll", "dust-a/forecast"])
            #expect(probes.starts.filter { $0.hasPrefix("dust-b") }.isEmpty)
            #expect(lock.holder == a.lease.session)
            #expect(b.said(standBy) == 1)
            // `systemctl status` says so too, once.
            #expect(notify.drain() == ["STATUS=Another dustd polls AirKorea; this one serves and imports"])
            #expect(a.said("This dustd now polls AirKorea (host dust-a, PID 101)") == 1)
            #expect(a.said(standBy) == 0)

            // b tried last at +90 s and sleeps until +120 s; a's session ends at +100 s.
            clock.advance(by: 10)
            let lostAt = clock.now
            lock.endSession(of: a.lease)
            #expect(await clock.waitUntilSleeping(2) { probes.running.isEmpty })
            #expect(a.logs.text.contains("This dustd lost the right to poll AirKorea"))
            clock.advanceToNextDeadline()
            #expect(await clock.waitUntilSleeping(1) { probes.running == ["dust-b/poll", "dust-b/forecast"] })
            #expect(clock.now.timeIntervalSince(lostAt) == 20)
            #expect(lock.holder == b.lease.session)
            #expect(b.said("This dustd now polls AirKorea (host dust-b, PID 202)") == 1)
            #expect(notify.drain() == ["STATUS=This dustd polls AirKorea; first poll starting"])
            // a wakes at +130 s, finds b polling and says so once.
            clock.advanceToNextDeadline()
            #expect(await clock.waitUntilSleeping(1) { a.said(standBy) == 1 })
            #expect(probes.running == ["dust-b/poll", "dust-b/forecast"])
            // Each dustd's services started once: a's pair, then b's.
            #expect(probes.starts.count == 4)
            #expect(Set(probes.starts.prefix(2)) == ["dust-a/poll", "dust-a/forecast"])
            #expect(Set(probes.starts.suffix(2)) == ["dust-b/poll", "dust-b/forecast"])

            trigger.triggerGracefulShutdown()
            try await first.value
            try await second.value
        }
        // Shut down, b gave the lease up for the next dustd.
        #expect(probes.running.isEmpty)
        #expect(lock.holder == nil)
    }

    @Test("A dustd that has begun to stop does not take the lease when the poller's session ends; a healthy one does")
    func stoppingTakesNoLease() async throws {
        let clock = ManualClock(DemoReplay.now)
        let store = SQLiteStore.scratch()
        let lock = MemoryPollerLock()
        let probes = Probes()
        let a = await Instance(host: "dust-a", pid: 101, lock: lock, store: store, clock: clock, probes: probes)
        let b = await Instance(host: "dust-b", pid: 202, lock: lock, store: store, clock: clock, probes: probes)
        let c = await Instance(host: "dust-c", pid: 303, lock: lock, store: store, clock: clock, probes: probes, retrySeconds: 45)
        try await testGracefulShutdown { trigger in
            let first = Task { try await a.role.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running == ["dust-a/poll", "dust-a/forecast"] })
            let second = Task { try await b.role.run() }
            #expect(await clock.waitUntilSleeping(1) { b.said(standBy) == 1 })
            let third = Task { try await c.role.run() }
            #expect(await clock.waitUntilSleeping(2) { c.said("Another dustd polls AirKorea") == 1 })
            // b is stopping (SIGTERM came, its other services are finishing) when a's session ends: b wakes
            // first (30 s against c's 45) and must leave the lease to c.
            b.stop.begin()
            lock.endSession(of: a.lease)
            #expect(await clock.waitUntilSleeping(2) { probes.running.isEmpty })
            clock.advance(by: 30)
            clock.advance(by: 15)
            #expect(await clock.waitUntilSleeping(1) { probes.running == ["dust-c/poll", "dust-c/forecast"] })
            #expect(probes.starts.filter { $0.hasPrefix("dust-b") }.isEmpty)
            #expect(lock.holder == c.lease.session)
            trigger.triggerGracefulShutdown()
            try await first.value
            try await second.value
            try await third.value
        }
        #expect(lock.holder == nil)
    }

    @Test("Only the poller writes the shared status record; a takeover keeps the last poller's history under its own host and PID")
    func onlyThePollerWritesStatus() async throws {
        let clock = ManualClock(DemoReplay.now)
        let store = SQLiteStore.scratch()
        let lock = MemoryPollerLock()
        let probes = Probes()
        let a = await Instance(host: "dust-a", pid: 101, lock: lock, store: store, clock: clock, probes: probes)
        let b = await Instance(host: "dust-b", pid: 202, lock: lock, store: store, clock: clock, probes: probes)
        let success = DaemonStatus.Success(at: DemoReplay.now, rowsNew: 24, rowsUpdated: 0, requests: 1)
        try await testGracefulShutdown { trigger in
            let first = Task { try await a.role.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running.count == 2 })
            let second = Task { try await b.role.run() }
            #expect(await clock.waitUntilSleeping(1) { b.said(standBy) == 1 })
            await a.board.update {
                $0.state = .idle
                $0.lastSuccess = success
            }
            // b's board changes and beats in memory; the shared record stays a's.
            clock.advance(by: 10)
            await b.board.update { $0.state = .idle }
            await b.board.heartbeat()
            var shared = try #require(try await store.loadStatus())
            #expect(shared.host == "dust-a" && shared.pid == 101 && shared.state == .idle)
            #expect(shared.heartbeatAt == DemoReplay.now)
            #expect(b.board.current.heartbeatAt == DemoReplay.now.addingTimeInterval(10))
            #expect(!b.board.isPublishing && a.board.isPublishing)

            lock.endSession(of: a.lease)
            #expect(await clock.waitUntilSleeping(2) { probes.running.isEmpty })
            // a no longer polls: what it changes stays with it.
            await a.board.update { $0.state = .backingOff }
            #expect(try await store.loadStatus()?.state == .idle)
            clock.advanceToNextDeadline()
            #expect(await clock.waitUntilSleeping(1) { probes.running.count == 2 })
            shared = try #require(try await store.loadStatus())
            #expect(shared.host == "dust-b" && shared.pid == 202 && shared.state == .starting)
            #expect(shared.lastSuccess == success)
            #expect(shared.heartbeatAt == DemoReplay.now.addingTimeInterval(30))
            await a.board.update { $0.state = .backingOff }
            #expect(try await store.loadStatus()?.host == "dust-b")

            trigger.triggerGracefulShutdown()
            try await first.value
            try await second.value
        }
    }

    @Test("A poller that stops at shutdown gives the lease up; one that waits to poll takes it at its next try")
    func shutdownReleases() async throws {
        let clock = ManualClock(DemoReplay.now)
        let store = SQLiteStore.scratch()
        let lock = MemoryPollerLock()
        let probes = Probes()
        let a = await Instance(host: "dust-a", pid: 101, lock: lock, store: store, clock: clock, probes: probes)
        let b = await Instance(host: "dust-b", pid: 202, lock: lock, store: store, clock: clock, probes: probes)
        try await testGracefulShutdown { trigger in
            let first = Task { try await a.role.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running.count == 2 })
            clock.advance(by: 60)
            trigger.triggerGracefulShutdown()
            try await first.value
        }
        #expect(lock.holder == nil)
        // Its last word, written before the lease went: stopped.
        let stopped = try #require(try await store.loadStatus())
        #expect(stopped.host == "dust-a" && stopped.state == .stopped && stopped.stoppedAt == DemoReplay.now.addingTimeInterval(60))
        #expect(!a.board.isPublishing)
        try await testGracefulShutdown { trigger in
            let second = Task { try await b.role.run() }
            #expect(await clock.waitUntilSleeping(0) { probes.running == ["dust-b/poll", "dust-b/forecast"] })
            #expect(b.said(standBy) == 0)
            #expect(try await store.loadStatus()?.host == "dust-b")
            #expect(try await store.loadStatus()?.stoppedAt == nil)
            trigger.triggerGracefulShutdown()
            try await second.value
        }
    }

    @Test("SQLite's lease is always held: dustd runs its poll services directly, as it always has")
    func sqliteLeaseAlwaysHeld() async throws {
        let lease = SQLitePollerLease()
        #expect(lease.alwaysHeld)
        #expect(try await lease.acquire())
        #expect(!MemoryPollerLock().lease().alwaysHeld)
        // lost() waits for as long as its caller does.
        let waiting = Task { await lease.lost() }
        waiting.cancel()
        await waiting.value
    }

    @Test(
        "A takeover starts with the backfill: the hours the dead poller fetched are fetched again and stay one row each (the upsert)"
    )
    func takeoverRefetchesWithoutDuplicates() async throws {
        try await withRig { rig in
            let clock = ManualClock(DemoReplay.now)
            let lock = MemoryPollerLock()
            let probes = Probes()
            let live = LiveConfiguration(
                settings: try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path), key: ServiceKey(testKey)!)
            let polls: @Sendable (DaemonDatabase, DaemonStatusBoard, LogCapture) -> [any Service] = { database, board, logs in
                [
                    PollService(
                        configuration: live, database: database, board: board, transport: rig.transport,
                        notifier: SystemdNotifier(environment: [:]), clock: clock, logger: logs.logger(), jitter: { 1 }, stop: DaemonStop())
                ]
            }
            // a, once it lost the lease, tries again after b's next try: b is the one to take over.
            let a = await Instance(
                host: "dust-a", pid: 101, lock: lock, store: rig.store, clock: clock, probes: probes, retrySeconds: 45, services: polls)
            let b = await Instance(host: "dust-b", pid: 202, lock: lock, store: rig.store, clock: clock, probes: probes, services: polls)
            // Time passes only while neither polls nor is about to (it holds the lease, its record still `starting`).
            let busy = { (dustd: Instance) in
                let state = dustd.board.current.state
                return state == .polling || (lock.holder == dustd.lease.session && state == .starting)
            }
            let idle = { !busy(a) && !busy(b) }
            try await testGracefulShutdown { trigger in
                let first = Task { try await a.role.run() }
                // a polls at 00:20: the 18 hours after 06:00 are new.
                #expect(
                    try await clock.advance(upTo: 3600, whenIdle: idle) {
                        guard try await rig.storedCount() == 24 else { return false }
                        return try await rig.store.loadStatus()?.state == .idle
                    })
                #expect(try await rig.store.loadStatus()?.lastSuccess?.rowsNew == 18)
                #expect(rig.server.requests.count == 1)
                #expect(try await rig.store.loadStatus()?.host == "dust-a")
                let second = Task { try await b.role.run() }
                #expect(await clock.waitUntilSleeping(2) { b.said(standBy) == 1 })
                // a is killed; b takes over within 30 s and fetches the day again: no hour is lost, none is two rows.
                lock.endSession(of: a.lease)
                let lostAt = clock.now
                // a's poll loop stopped (its record, in memory, says so); a and b wait for their next tries.
                #expect(await clock.waitUntilSleeping(2) { a.board.current.state == .stopping && clock.deadlines.count == 2 })
                #expect(clock.deadlines[0].timeIntervalSince(lostAt) <= 30)
                clock.advanceToNextDeadline()
                #expect(
                    try await clock.waitUntilSleeping {
                        let shared = try await rig.store.loadStatus()
                        return shared?.host == "dust-b" && shared?.state == .idle
                    })
                let shared = try #require(try await rig.store.loadStatus())
                #expect(shared.lastSuccess?.at.timeIntervalSince(lostAt) ?? 99 <= 30)
                #expect(shared.lastSuccess?.rowsNew == 0 && shared.lastSuccess?.rowsUpdated == 0)
                #expect(rig.server.requests.count == 2)
                #expect(try await rig.storedCount() == 24)
                trigger.triggerGracefulShutdown()
                try await first.value
                try await second.value
            }
        }
    }

    @Test("dustd --once beside a poller fetches nothing, leaves its status alone and exits 75; alone it polls and gives the lease back")
    func onceBesideAPoller() async throws {
        try await withRig { rig in
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let key = try ServiceKeyLoader(environment: ["DUSTD_API_SERVICE_KEY": testKey]).load(settings: settings)
            let lock = MemoryPollerLock()
            let poller = lock.lease()
            #expect(try await poller.acquire())
            let lines = Mutex<[String]>([])
            let once = Daemon(
                settings: settings, key: key, configurationFile: nil, environment: [:], metrics: PrometheusBackend(),
                logSink: { line in lines.withLock { $0.append(line) } }, clock: FixedClock(DemoReplay.now), pollerLease: lock.lease())
            #expect(await once.run(once: true) == .temporaryFailure)
            #expect(
                lines.withLock { $0 }.joined().contains(
                    "Another dustd polls AirKorea from this database; dustd --once polls only when none does"))
            #expect(rig.server.requests.isEmpty)
            #expect(try await rig.store.loadStatus() == nil)
            #expect(lock.holder == poller.session)
            await poller.release()
            // Failed once in 25 full runs under load (docs/RELIABILITY.md): what dustd said is printed.
            let alone = await once.run(once: true)
            #expect(alone == .ok, "\(alone): \(lines.withLock { $0 }.suffix(6).joined())")
            #expect(rig.server.requests.count == 1)
            #expect(try await rig.storedCount() == 24)
            let status = try #require(try await rig.store.loadStatus())
            #expect(status.state == .stopped && status.mode == .once && status.host == DaemonStatus.localHost)
            #expect(lock.holder == nil)
        }
    }
}
