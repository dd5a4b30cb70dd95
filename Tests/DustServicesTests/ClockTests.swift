import DustServices
import Foundation
import TestSupport
import Testing

@Suite("The one clock: now and sleep(until:) on the system, a fixed and a manual clock", .timeLimit(.minutes(10)))
struct ClockTests {
    @Test("The system clock: a deadline passed returns at once; a cancelled sleep throws instead of waiting out its hour")
    func system() async throws {
        let clock = SystemClock()
        let started = ContinuousClock.now
        try await clock.sleep(until: clock.now.addingTimeInterval(-60))
        let task = Task { try await clock.sleep(until: clock.now.addingTimeInterval(3600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Far below the hour even when the suite's other tests keep the two-core machine busy.
        #expect(ContinuousClock.now - started < .seconds(600))
    }

    @Test("A fixed clock never advances: a deadline at now is met, a later one only ends by cancellation")
    func fixed() async throws {
        let clock = FixedClock(instant("2026-11-21T00:20:00+09:00"))
        try await clock.sleep(until: clock.now)
        let task = Task { try await clock.sleep(until: clock.now.addingTimeInterval(1)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now == instant("2026-11-21T00:20:00+09:00"))
    }

    @Test("A manual clock wakes a sleep when time passes its deadline, not when the wall clock is set past it")
    func manual() async throws {
        let start = instant(kst: "2026-11-21T00:20:00")
        let clock = ManualClock(start)
        let task = Task { try await clock.sleep(until: start.addingTimeInterval(60)) }
        #expect(try await clock.waitUntilSleeping())
        #expect(clock.deadlines == [start.addingTimeInterval(60)])
        // Set two hours forward: no time passed, so the sleep (measured from its start) goes on.
        clock.jump(by: 7200)
        #expect(clock.now == start.addingTimeInterval(7200))
        #expect(clock.deadlines == [start.addingTimeInterval(7260)])
        clock.advance(by: 59)
        #expect(clock.deadlines.count == 1)
        clock.advance(by: 1)
        try await task.value
        #expect(clock.deadlines.isEmpty)
        #expect(clock.requestedSleeps == [60])
    }

    @Test("A period's end that a clock set back two years put far away is waited for at most the period (an indoor round's wait)")
    func periodAfterClockSetBack() async throws {
        let start = instant(kst: "2028-12-05T11:20:00")
        let clock = ManualClock(start)
        // A round began at `start`; during it the clock was set back two years (NTP correcting a Pi).
        clock.jump(by: -2 * 365 * 86_400)
        let task = Task { try await clock.sleep(until: start.addingTimeInterval(60), atMost: 60) }
        #expect(try await clock.waitUntilSleeping())
        #expect(clock.requestedSleeps == [60])
        clock.advance(by: 60)
        try await task.value
        // Set forward instead: the period's end has passed, so no wait at all.
        try await clock.sleep(until: clock.now.addingTimeInterval(-3600), atMost: 60)
        #expect(clock.requestedSleeps.count == 2 && clock.requestedSleeps[1] <= 0)
        // A deadline nearer than the bound is kept as it is.
        let near = Task { try await clock.sleep(until: clock.now.addingTimeInterval(5), atMost: 60) }
        #expect(try await clock.waitUntilSleeping())
        #expect(clock.requestedSleeps.last == 5)
        clock.advance(by: 5)
        try await near.value
    }

    @Test("A manual clock's sleep ends with CancellationError when its task is cancelled")
    func manualCancelled() async throws {
        let clock = ManualClock(instant(kst: "2026-11-21T00:20:00"))
        let task = Task { try await clock.sleep(until: clock.now.addingTimeInterval(3600)) }
        #expect(try await clock.waitUntilSleeping())
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.deadlines.isEmpty)
    }
}
