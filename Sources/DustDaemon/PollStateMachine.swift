import AirKorea
import DustServices
import Foundation

/// What the poll loop is waiting for. One value, so the states cannot disagree.
public enum PollState: Sendable, Hashable {
    /// Waiting for the next scheduled poll.
    case idle(nextPoll: Date)
    /// A passing fault; the next try is at `until`.
    case backingOff(until: Date)
    /// The daily quota is used up until `until` (00:00 KST).
    case quotaExhausted(until: Date)
    /// A key or configuration problem; nothing is retried before `until`, the next scheduled poll.
    case waitingForNextHour(until: Date)
    /// dustd is stopping: no more polls.
    case stopped

    /// When the loop acts next; nil once stopped.
    public var wakeTime: Date? {
        switch self {
        case .idle(let date), .backingOff(let date), .quotaExhausted(let date), .waitingForNextHour(let date): date
        case .stopped: nil
        }
    }

    /// The state as the status record names it.
    public var published: DaemonStatus.State {
        switch self {
        case .idle: .idle
        case .backingOff: .backingOff
        case .quotaExhausted: .quotaExhausted
        case .waitingForNextHour: .waitingForNextHour
        case .stopped: .stopping
        }
    }
}

/// The poll loop's memory between cycles.
public struct PollLoopState: Sendable, Hashable {
    public var state: PollState
    /// Failures since the last success; drives the backoff.
    public var consecutiveFailures: Int
    /// The last problem logged at error level, so a repeating one is logged once.
    public var reportedProblem: PollFailure?

    public init(state: PollState, consecutiveFailures: Int, reportedProblem: PollFailure?) {
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.reportedProblem = reportedProblem
    }

    /// The loop at start: poll (and backfill) right away.
    public static func start(at now: Date) -> PollLoopState {
        PollLoopState(state: .idle(nextPoll: now), consecutiveFailures: 0, reportedProblem: nil)
    }
}

/// How a cycle ended, as the state machine sees it.
public enum CycleOutcome: Sendable, Hashable {
    case succeeded
    case failed(PollFailure)
    /// dustd was stopped during the cycle.
    case stopped

    public init(_ report: CycleReport) {
        if report.stopped {
            self = .stopped
        } else if let failure = report.failure {
            self = .failed(failure)
        } else {
            self = .succeeded
        }
    }
}

/// What the loop should say about a transition; the daemon turns each into a log line.
public enum PollAnnouncement: Sendable, Hashable {
    /// A cycle succeeded; the next poll is at the date.
    case pollDone(next: Date)
    /// A cycle succeeded after a failure that was logged.
    case recovered
    /// A passing fault; retrying at the date.
    case retrying(PollFailure, at: Date)
    /// A key, configuration or storage problem seen for the first time (logged with its fix).
    case problem(PollFailure, next: Date)
    /// The same problem again (logged quietly).
    case problemAgain(PollFailure)
    /// The daily quota is used up until the date.
    case quotaExhausted(PollFailure, until: Date)
    /// The per-second limit; trying again at the date.
    case perSecondLimit(PollFailure, at: Date)
}

/// Whether to poll now, given the state and the wall clock.
public enum WakeDecision: Sendable, Hashable {
    /// Wait this many seconds more.
    case wait(TimeInterval)
    /// The time has come.
    case pollNow
    /// The wall clock went back so far that waiting would stall dustd for the size of the jump:
    /// poll now. (Slots come from AirKorea's `dataTime`, so an early poll mis-dates nothing.)
    case clockWentBack(remaining: TimeInterval)
    /// Stopped: no more polls.
    case stop
}

/// The poll loop's rules as pure functions of state, outcome and time (docs/REFERENCE.md §7): testable in
/// milliseconds with no clock, network or database.
public struct PollStateMachine: Sendable {
    public let planner: PollPlanner

    public init(planner: PollPlanner) {
        self.planner = planner
    }

    /// The next state after a cycle ended at `now`; `jitter` (0…1) spreads scheduled polls and retries.
    public func after(_ outcome: CycleOutcome, in loop: PollLoopState, now: Date, jitter: Double) -> (PollLoopState, [PollAnnouncement]) {
        let scheduled = planner.nextPoll(after: now, jitter: jitter)
        var next = loop
        switch outcome {
        case .stopped:
            next.state = .stopped
            return (next, [])
        case .succeeded:
            let recovered = loop.reportedProblem != nil || loop.consecutiveFailures > 0
            next = PollLoopState(state: .idle(nextPoll: scheduled), consecutiveFailures: 0, reportedProblem: nil)
            return (next, (recovered ? [.recovered] : []) + [.pollDone(next: scheduled)])
        case .failed(let failure):
            next.consecutiveFailures += 1
            switch failure.retryAdvice {
            case .retryWithBackoff:
                let retryAt = now.addingTimeInterval(planner.retryDelay(attempt: next.consecutiveFailures, jitter: jitter))
                // Retries never run past the next scheduled poll: that one backfills whatever was missed.
                next.state = retryAt < scheduled ? .backingOff(until: retryAt) : .idle(nextPoll: scheduled)
                return (next, [.retrying(failure, at: next.state.wakeTime ?? scheduled)])
            case .waitForNextHour:
                next.state = .waitingForNextHour(until: scheduled)
                // Logged once with its fix; repeating it every hour would bury everything else.
                let announcement: PollAnnouncement =
                    loop.reportedProblem == failure ? .problemAgain(failure) : .problem(failure, next: scheduled)
                next.reportedProblem = failure
                return (next, [announcement])
            case .waitUntilMidnightKST:
                let reset = planner.quotaReset(after: now)
                next.state = .quotaExhausted(until: reset)
                next.reportedProblem = failure
                return (next, [.quotaExhausted(failure, until: reset)])
            case .waitAMinute:
                let retryAt = now.addingTimeInterval(60)
                next.state = .backingOff(until: retryAt)
                return (next, [.perSecondLimit(failure, at: retryAt)])
            }
        }
    }

    /// Whether to poll at `now`.
    public func wake(_ loop: PollLoopState, now: Date) -> WakeDecision {
        guard let wake = loop.state.wakeTime else { return .stop }
        let remaining = wake.timeIntervalSince(now)
        if remaining <= 0 { return .pollNow }
        if remaining > longestWait(loop.state) { return .clockWentBack(remaining: remaining) }
        return .wait(remaining)
    }

    /// The longest a state can legitimately wait; more means the clock was set back.
    public func longestWait(_ state: PollState) -> TimeInterval {
        let poll = planner.poll
        switch state {
        case .quotaExhausted: return 86_400 + 120
        default: return TimeInterval(poll.intervalSeconds + poll.jitterSeconds + poll.retryMaxSeconds) + 60
        }
    }
}
