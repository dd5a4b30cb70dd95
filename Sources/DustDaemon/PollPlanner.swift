import AirKorea
import DustConfig
import DustKit
import Foundation

/// When to poll and how long to back off: pure rules of docs/REFERENCE.md §7, on explicit times.
public struct PollPlanner: Sendable {
    public let poll: PollSettings

    public init(poll: PollSettings) {
        self.poll = poll
    }

    /// The next scheduled poll after `now`: the next `poll.minute` of an hour (hourly interval) or
    /// `now + poll.intervalSeconds` (tests), plus `jitter` (0…1) × `poll.jitterSeconds`.
    public func nextPoll(after now: Date, jitter: Double) -> Date {
        let spread = TimeInterval(poll.jitterSeconds) * min(max(jitter, 0), 1)
        guard poll.intervalSeconds == 3600 else {
            return now.addingTimeInterval(TimeInterval(poll.intervalSeconds) + spread)
        }
        // KST and UTC share minutes, so "minute 20 of the hour" is the same instant in both.
        let seconds = now.timeIntervalSince1970
        let hourStart = (seconds / 3600).rounded(.down) * 3600
        var next = hourStart + TimeInterval(poll.minute * 60)
        if next <= seconds { next += 3600 }
        return Date(timeIntervalSince1970: next + spread)
    }

    /// The delay before retry number `attempt` (1, 2, …): `retryInitialSeconds` doubling up to
    /// `retryMaxSeconds`, scaled by `jitter` (0…1) into its upper half so retries of many
    /// installations spread out.
    public func retryDelay(attempt: Int, jitter: Double) -> TimeInterval {
        let exponent = min(max(attempt - 1, 0), 30)
        let base = min(Double(poll.retryInitialSeconds) * pow(2, Double(exponent)), Double(poll.retryMaxSeconds))
        return base * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }

    /// When the daily quota resets: the next 00:00 KST, plus a minute of margin.
    public func quotaReset(after now: Date) -> Date {
        KoreaStandardTime.nextMidnight(after: now).addingTimeInterval(60)
    }
}
