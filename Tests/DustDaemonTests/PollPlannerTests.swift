import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

let hourly = PollSettings(minute: 20, jitterSeconds: 60, intervalSeconds: 3600, retryInitialSeconds: 30, retryMaxSeconds: 900)

@Suite("Poll planning (docs/REFERENCE.md §7)", .timeLimit(.minutes(10)))
struct PollPlannerTests {
    let planner = PollPlanner(poll: hourly)

    @Test("Hourly at poll.minute plus jitter")
    func nextPoll() {
        #expect(planner.nextPoll(after: instant("2026-11-21T10:05:00+09:00"), jitter: 0) == instant("2026-11-21T10:20:00+09:00"))
        #expect(planner.nextPoll(after: instant("2026-11-21T10:20:00+09:00"), jitter: 0) == instant("2026-11-21T11:20:00+09:00"))
        #expect(planner.nextPoll(after: instant("2026-11-21T10:59:59+09:00"), jitter: 1) == instant("2026-11-21T11:21:00+09:00"))
        let fast = PollPlanner(
            poll: PollSettings(minute: 20, jitterSeconds: 0, intervalSeconds: 5, retryInitialSeconds: 1, retryMaxSeconds: 2))
        #expect(fast.nextPoll(after: instant("2026-11-21T10:05:00Z"), jitter: 0.5) == instant("2026-11-21T10:05:05Z"))
    }

    @Test("Retries double from retryInitialSeconds up to retryMaxSeconds, jittered into the upper half")
    func backoff() {
        #expect((1...7).map { planner.retryDelay(attempt: $0, jitter: 1) } == [30, 60, 120, 240, 480, 900, 900])
        #expect(planner.retryDelay(attempt: 1, jitter: 0) == 15)
        #expect(planner.retryDelay(attempt: 100, jitter: 0.5) == 675)
    }

    @Test("The daily quota resets at 00:00 KST")
    func quota() {
        #expect(planner.quotaReset(after: instant("2026-11-21T15:30:00+09:00")) == instant("2026-11-22T00:01:00+09:00"))
        #expect(planner.quotaReset(after: instant("2026-11-21T23:59:00+09:00")) == instant("2026-11-22T00:01:00+09:00"))
        #expect(planner.quotaReset(after: instant("2026-11-22T00:00:30+09:00")) == instant("2026-11-23T00:01:00+09:00"))
    }

    @Test("Backfill: DAILY for gaps up to a day, MONTH beyond and on an empty database, 3MONTH beyond a month")
    func backfill() {
        let now = instant("2026-11-21T00:20:00+09:00")
        let slot = { (iso: String) in Slot(containing: instant(iso)) }
        #expect(BackfillPlan.term(newest: nil, now: now) == .month)
        #expect(BackfillPlan.term(newest: slot("2026-11-20T23:00:00+09:00"), now: now) == .daily)
        #expect(BackfillPlan.term(newest: slot("2026-11-20T00:00:00+09:00"), now: now) == .daily)
        #expect(BackfillPlan.term(newest: slot("2026-11-19T23:00:00+09:00"), now: now) == .month)
        #expect(BackfillPlan.term(newest: slot("2026-10-01T00:00:00+09:00"), now: now) == .threeMonths)
        #expect(BackfillPlan.rowsPerPage(.daily) == 100 && BackfillPlan.rowsPerPage(.month) == 1000)
    }
}
