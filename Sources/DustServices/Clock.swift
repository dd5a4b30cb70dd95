import DustKit
import Foundation

/// The current time and waits against it: the one clock every service and loop is given through its
/// `init`, so tests move time by hand (TestSupport's `ManualClock`) instead of waiting for it.
public protocol WallClock: Sendable {
    var now: Date { get }

    /// Returns once `deadline` has come (at once when it has passed); throws `CancellationError`
    /// when the task is cancelled first. The wait is measured from the call: a wall clock set
    /// forward or back meanwhile does not move its end, so a caller looks at `now` again on waking
    /// (the poll loop's `clockWentBack` is how it notices).
    func sleep(until deadline: Date) async throws
}

extension WallClock {
    /// Waits `duration` from now (a retry's backoff, the watchdog's interval).
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now.addingTimeInterval(duration.seconds))
    }

    /// Waits until `deadline`, but never longer than `longest` from now: how a loop waits for the end
    /// of a period that began before an awaited round (`started + period`). A clock set back during
    /// the round (a Raspberry Pi's first time from NTP after a clock set ahead) would otherwise
    /// stretch the wait by the jump — years — and the loop would stop without a word.
    public func sleep(until deadline: Date, atMost longest: TimeInterval) async throws {
        try await sleep(until: min(deadline, now.addingTimeInterval(longest)))
    }
}

/// The system's real-time clock; it waits on the continuous clock, which a change of the wall clock
/// does not move.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let remaining = deadline.timeIntervalSince(now)
        guard remaining > 0 else { return try Task.checkCancellation() }
        try await ContinuousClock().sleep(for: .nanoseconds(Int64(min(remaining, 1e9) * 1e9)))
    }
}

/// A clock that stands still at one instant, for replays (the demo) and evaluations at a given
/// time. Time never passes on it: a deadline at or before `now` is met at once, a later one never
/// comes, so such a sleep ends only when its task is cancelled (a loop on it waits instead of spinning).
public struct FixedClock: WallClock {
    public var now: Date
    public init(_ now: Date) { self.now = now }

    public func sleep(until deadline: Date) async throws {
        guard deadline > now else { return try Task.checkCancellation() }
        while true { try await Task.sleep(for: .seconds(86_400)) }
    }
}
