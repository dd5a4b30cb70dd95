import AirKorea
import DustConfig
import DustDaemon
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The poll loop's rules as a table: state × outcome → next state, wake time and what is said.
@Suite("The poll state machine (docs/REFERENCE.md §7), without a clock, a network or a database", .timeLimit(.minutes(10)))
struct PollStateMachineTests {
    let machine = PollStateMachine(planner: PollPlanner(poll: hourly))
    let now = instant("2026-11-21T10:05:00+09:00")
    let nextHour = instant("2026-11-21T10:20:00+09:00")

    let passing = PollFailure.fetch(.httpStatus(503))
    let keyProblem = PollFailure.fetch(
        .response(.service(.serviceKeyNotRegistered, reportedCode: "30", serverMessage: ""), httpStatus: 200))
    let dailyQuota = PollFailure.fetch(.response(.service(.dailyQuotaExceeded, reportedCode: "22", serverMessage: ""), httpStatus: 200))
    let perSecond = PollFailure.fetch(.response(.service(.perSecondLimitExceeded, reportedCode: "23", serverMessage: ""), httpStatus: 200))
    let diskFull = PollFailure.storage(StorageFailure(SQLiteFailure.diskFull(path: "/x")))

    func loop(_ state: PollState, failures: Int = 0, reported: PollFailure? = nil) -> PollLoopState {
        PollLoopState(state: state, consecutiveFailures: failures, reportedProblem: reported)
    }

    @Test("Success: idle until the next poll.minute, failures forgotten, recovery announced once")
    func success() {
        let (fresh, said) = machine.after(.succeeded, in: .start(at: now), now: now, jitter: 0)
        #expect(fresh == loop(.idle(nextPoll: nextHour)))
        #expect(said == [.pollDone(next: nextHour)])
        let (recovered, saidAgain) = machine.after(.succeeded, in: loop(.backingOff(until: now), failures: 3), now: now, jitter: 0)
        #expect(recovered == loop(.idle(nextPoll: nextHour)))
        #expect(saidAgain == [.recovered, .pollDone(next: nextHour)])
    }

    @Test("Passing faults back off 30 s, 60 s, 120 s … (jitter 1), never past the next scheduled poll")
    func backoff() throws {
        let quarterPast = instant("2026-11-21T10:15:00+09:00")
        var state = PollLoopState.start(at: quarterPast)
        var waits: [TimeInterval] = []
        for _ in 1...5 {
            let (next, said) = machine.after(.failed(passing), in: state, now: quarterPast, jitter: 1)
            state = next
            let wake = try #require(state.state.wakeTime)
            waits.append(wake.timeIntervalSince(quarterPast))
            #expect(said == [.retrying(passing, at: wake)])
        }
        // 30, 60, 120, 240 s; 480 s would run past 10:21 (the next poll, jitter 1), so that poll comes instead.
        #expect(waits == [30, 60, 120, 240, 360])
        #expect(state.state == .idle(nextPoll: nextHour.addingTimeInterval(60)))
        #expect(state.consecutiveFailures == 5)
        // The cap: retryMaxSeconds (900 s) from the sixth failure on, as long as the hour allows it.
        #expect(machine.planner.retryDelay(attempt: 6, jitter: 1) == 900)
    }

    @Test("A storage failure backs off like a passing fault and says it is storage")
    func storage() {
        let (next, said) = machine.after(.failed(diskFull), in: .start(at: now), now: now, jitter: 0)
        #expect(next.state == .backingOff(until: now.addingTimeInterval(15)))
        #expect(said == [.retrying(diskFull, at: now.addingTimeInterval(15))])
        #expect(diskFull.kind == .storage)
    }

    @Test("A key problem waits for the next hour, announced once with its fix, then quietly")
    func keyProblemOnce() {
        let (first, said) = machine.after(.failed(keyProblem), in: .start(at: now), now: now, jitter: 0)
        #expect(first.state == .waitingForNextHour(until: nextHour))
        #expect(said == [.problem(keyProblem, next: nextHour)])
        let (second, saidAgain) = machine.after(.failed(keyProblem), in: first, now: nextHour, jitter: 0)
        #expect(second.state == .waitingForNextHour(until: instant("2026-11-21T11:20:00+09:00")))
        #expect(saidAgain == [.problemAgain(keyProblem)])
    }

    @Test("Quota 22 waits until 00:01 KST; 23 waits a minute")
    func quota() {
        let (daily, said) = machine.after(.failed(dailyQuota), in: .start(at: now), now: now, jitter: 0)
        let midnight = instant("2026-11-22T00:01:00+09:00")
        #expect(daily.state == .quotaExhausted(until: midnight))
        #expect(said == [.quotaExhausted(dailyQuota, until: midnight)])
        let (second, saidSecond) = machine.after(.failed(perSecond), in: .start(at: now), now: now, jitter: 0)
        #expect(second.state == .backingOff(until: now.addingTimeInterval(60)))
        #expect(saidSecond == [.perSecondLimit(perSecond, at: now.addingTimeInterval(60))])
    }

    @Test("A stop ends the loop, whatever the state")
    func stopped() {
        for state in [PollState.idle(nextPoll: now), .backingOff(until: now), .quotaExhausted(until: now)] {
            let (next, said) = machine.after(.stopped, in: loop(state, failures: 2), now: now, jitter: 0)
            #expect(next.state == .stopped)
            #expect(said.isEmpty)
            #expect(machine.wake(next, now: now) == .stop)
        }
    }

    @Test("Waking: wait, poll when due, poll at once when the clock went back further than any wait")
    func wake() {
        #expect(machine.wake(loop(.idle(nextPoll: nextHour)), now: now) == .wait(15 * 60))
        #expect(machine.wake(loop(.idle(nextPoll: now)), now: now.addingTimeInterval(1)) == .pollNow)
        // The clock set back two days: the poll is 2 days + 15 min away, far beyond an hour's wait.
        let setBack = now.addingTimeInterval(-2 * 86_400)
        #expect(machine.wake(loop(.idle(nextPoll: nextHour)), now: setBack) == .clockWentBack(remaining: 2 * 86_400 + 15 * 60))
        // A quota wait may legitimately last almost a day.
        #expect(machine.wake(loop(.quotaExhausted(until: instant("2026-11-22T00:01:00+09:00"))), now: now) == .wait(13 * 3600 + 56 * 60))
    }
}
