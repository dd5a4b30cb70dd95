import DustDaemon
import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Holds back the status writes whose station is `held` until `release()`.
private final class WriteGate: Sendable {
    private let state = Mutex<(started: Bool, held: [CheckedContinuation<Void, Never>])>((false, []))
    let held: String

    init(holding station: String) { held = station }

    func enter(_ status: DaemonStatus) async {
        guard status.station == held else { return }
        await withCheckedContinuation { continuation in
            state.withLock {
                $0.started = true
                $0.held.append(continuation)
            }
        }
    }

    var started: Bool { state.withLock { $0.started } }

    func release() {
        for continuation in state.withLock({ state in
            defer { state.held = [] }
            return state.held
        }) { continuation.resume() }
    }
}

private func board(
    on store: InterceptingStore, clock: any WallClock = FixedClock(Date(timeIntervalSince1970: 1_795_000_000))
) async
    -> DaemonStatusBoard
{
    await DaemonStatusBoard(
        DaemonStatus(
            state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "start",
            startedAt: Date(timeIntervalSince1970: 1_795_000_000), heartbeatSeconds: 2),
        database: DaemonDatabase(store, logger: LogCapture().logger()), clock: clock, logger: LogCapture().logger())
}

@Suite("dustd's status board: every change written, the newest record last, however slowly the store answers", .timeLimit(.minutes(10)))
struct DaemonStatusBoardTests {
    @Test("A slow write of an older record cannot land after a newer one; each update returns once its change is stored")
    func slowWriteCannotUndoNewer() async throws {
        let gate = WriteGate(holding: "older")
        let store = InterceptingStore(beforeSavingStatus: { await gate.enter($0) })
        let board = await board(on: store)
        #expect(try await store.loadStatus()?.station == "start")
        let older = Task { await board.update { $0.station = "older" } }
        while !gate.started { await Task.yield() }
        // The older record is on its way to the store; a newer change comes in meanwhile.
        let newer = Task {
            await board.update { $0.station = "newer" }
            return try await store.loadStatus()?.station
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(try await store.loadStatus()?.station == "start")
        gate.release()
        await older.value
        // The newer caller returned only once its change was stored, and nothing older came after.
        #expect(try await newer.value == "newer")
        #expect(try await store.loadStatus()?.station == "newer")
        #expect(board.current.station == "newer")
    }

    @Test("A stopping dustd's write held up by the database (another program's lock) is waited for a bounded time, then left")
    func boundedStopWrite() async throws {
        let gate = WriteGate(holding: "stopped")
        let store = InterceptingStore(beforeSavingStatus: { await gate.enter($0) })
        let board = await board(on: store, clock: SystemClock())
        let started = ContinuousClock.now
        let recorded = await board.update(within: 0.3) { $0.station = "stopped" }
        let waited = ContinuousClock.now - started
        // Returned without the write (which the gate holds until after): not a timing of how soon, which a
        // loaded machine stretches, but that it returned at all, and not before its deadline.
        #expect(!recorded && waited >= .milliseconds(250), "\(waited)")
        #expect(try await store.loadStatus()?.station == "start")
        // The write went on without the wait: once the lock is let go it lands, and the next one is timely.
        gate.release()
        #expect(await board.update(within: 10) { $0.station = "later" })
        #expect(try await store.loadStatus()?.station == "later")
    }

    @Test("Many services updating at once: the store ends with the board's record, every round")
    func concurrentUpdates() async throws {
        let store = InterceptingStore(beforeSavingStatus: { _ in await Task.yield() })
        let board = await board(on: store)
        for round in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<16 {
                    group.addTask { await board.update { $0.station = "round \(round) writer \(writer)" } }
                }
            }
            let stored = try #require(try await store.loadStatus())
            #expect(stored.station == board.current.station, "round \(round)")
            #expect(stored.station.hasPrefix("round \(round) "))
        }
        await board.update { $0.state = .stopped }
        #expect(try await store.loadStatus()?.state == .stopped)
    }
}
