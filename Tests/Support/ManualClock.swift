import DustServices
import Foundation
import Synchronization

/// Time that a test moves by hand, for every service that takes a `WallClock`: `advance(by:)` lets
/// time pass and wakes the sleeps it reaches; `jump(by:)` sets the wall clock as an operator or NTP
/// would, which (as on `SystemClock`) ends no sleep. A test waits for the code under test to reach a
/// sleep with `waitUntilSleeping`, an event, never a fixed time.
///
/// Its own conformance rather than swift-clocks' `TestClock`: dustd's waits end at a `Date`, a
/// jumping wall clock must be expressible, and a test needs to know when a loop is asleep.
public final class ManualClock: WallClock, Sendable {
    private struct Sleeper {
        let id: Int
        /// On the clock's elapsed time, which `jump(by:)` does not move.
        let wakeAt: TimeInterval
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var wall: Date
        var elapsed: TimeInterval = 0
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Counts every sleep that begins and every `touch()`: what watchers wait on.
        var changes = 0
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var requested: [TimeInterval] = []
    }

    private let state: Mutex<State>

    public init(_ start: Date) { state = Mutex(State(wall: start)) }

    public var now: Date { state.withLock { $0.wall } }

    /// How long each sleep asked for, in the order they began (a backoff's waits).
    public var requestedSleeps: [TimeInterval] { state.withLock { $0.requested } }

    /// When the sleeps waiting now end, soonest first.
    public var deadlines: [Date] {
        state.withLock { state in state.sleepers.map { state.wall.addingTimeInterval($0.wakeAt - state.elapsed) }.sorted() }
    }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resume, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    let remaining = deadline.timeIntervalSince(state.wall)
                    state.requested.append(remaining)
                    if Task.isCancelled { return (true, []) }
                    if remaining <= 0 { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, wakeAt: state.elapsed + remaining, continuation: continuation))
                    return (false, Self.changed(&state))
                }
                for watcher in watchers { watcher.resume() }
                if resume {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Lets `seconds` pass: `now` moves and every sleep that ends by then wakes, soonest first.
    public func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Sleeper] in
            state.wall.addTimeInterval(seconds)
            state.elapsed += seconds
            let elapsed = state.elapsed
            let due = state.sleepers.filter { $0.wakeAt <= elapsed }.sorted { $0.wakeAt < $1.wakeAt }
            state.sleepers.removeAll { $0.wakeAt <= elapsed }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Lets time pass until `date`.
    public func advance(to date: Date) { advance(by: date.timeIntervalSince(now)) }

    /// Lets time pass to the end of the soonest sleep; false when nothing sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = deadlines.first else { return false }
        advance(to: max(next, now))
        return true
    }

    /// Moves time from wake-up to wake-up of the code under test: whenever it is asleep and `idle`
    /// holds (a loop between its cycles, not in one), to the soonest deadline, until `done` holds
    /// while it sleeps. False when `done` has not held by `limit` seconds of clock time, or the code
    /// did not fall asleep within `realTimeLimit`.
    public func advance(
        upTo limit: TimeInterval, whenIdle idle: () async throws -> Bool = { true }, until done: () async throws -> Bool = { false }
    ) async rethrows -> Bool {
        let end = now.addingTimeInterval(limit)
        while true {
            guard try await waitUntilSleeping(where: idle) else { return false }
            if try await done() { return true }
            guard let next = deadlines.first, next <= end else { return false }
            advance(to: max(next, now))
        }
    }

    /// Sets the wall clock forward or back without time passing: no sleep ends, as on a host whose
    /// clock is set while dustd waits.
    public func jump(by seconds: TimeInterval) {
        state.withLock { $0.wall.addTimeInterval(seconds) }
    }

    /// Wakes `waitUntilSleeping` to look at its condition again (something it watches changed).
    public func touch() {
        let watchers = state.withLock { Self.changed(&$0) }
        for watcher in watchers { watcher.resume() }
    }

    /// How long a test waits in real time for the code under test to fall asleep: a guard against a
    /// hang, not a measure of speed. The suite starts all its tests at once, and on two cores a
    /// service's task can wait tens of seconds for a thread in the first minute (docs/RELIABILITY.md);
    /// 30 s failed a passing test now and then, and 120 s did with two full runs side by side (load 17,
    /// every test ten times slower). Five minutes, half the suites' time limit: a hang still fails by name.
    public static let realTimeLimit: Duration = .seconds(300)

    /// Waits until at least `count` sleeps are waiting and `condition` holds, looking again whenever a
    /// sleep begins (or `touch()` is called); false when that has not happened within `timeout` of real
    /// time, so a regression fails the test instead of hanging the suite.
    public func waitUntilSleeping(
        _ count: Int = 1, timeout: Duration = ManualClock.realTimeLimit, where condition: () async throws -> Bool = { true }
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let version = state.withLock { $0.changes }
            if state.withLock({ $0.sleepers.count }) >= count, try await condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            await change(after: version, until: deadline)
        }
    }

    /// Returns after the next change past `version`, or at `deadline`.
    private func change(after version: Int, until deadline: ContinuousClock.Instant) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [weak self] in
            try? await ContinuousClock().sleep(until: deadline)
            self?.resumeWatcher(id)
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                guard state.changes == version, ContinuousClock.now < deadline else { return true }
                state.watchers[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func resumeWatcher(_ id: Int) {
        state.withLock { $0.watchers.removeValue(forKey: id) }?.resume()
    }

    private static func changed(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.changes += 1
        defer { state.watchers = [:] }
        return Array(state.watchers.values)
    }
}

/// Runs `operation` on `clock`, moving time to the end of each sleep as soon as one waits, until
/// `operation` returns: a backoff of hours takes no real time.
public func runAdvancing<Result: Sendable>(
    _ clock: ManualClock, _ operation: @escaping @Sendable () async -> Result
) async -> Result {
    let finished = Mutex(false)
    let task = Task {
        let result = await operation()
        finished.withLock { $0 = true }
        clock.touch()
        return result
    }
    while !finished.withLock({ $0 }) {
        if !clock.advanceToNextDeadline() {
            _ = await clock.waitUntilSleeping(0) { finished.withLock { $0 } || !clock.deadlines.isEmpty }
        }
    }
    return await task.value
}
