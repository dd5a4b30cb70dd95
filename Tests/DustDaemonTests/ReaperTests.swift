import Foundation
import TestSupport
import Testing

@Suite("The tests' reaper: a program a test started does not outlive the tests", .timeLimit(.minutes(2)))
struct ReaperTests {
    @Test("A running program is killed; one that has ended is let go, its PID never signalled again")
    func killsOnlyTheRunning() async throws {
        let reaper = Reaper()
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        await ended.exited()
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["300"]
        try sleeper.run()
        reaper.adopt(ended)
        reaper.adopt(sleeper)
        #expect(sleeper.isRunning)
        reaper.killRunning()
        await sleeper.exited(within: .seconds(30))
        #expect(!sleeper.isRunning)
        #expect(sleeper.terminationReason == .uncaughtSignal)
        #expect(sleeper.terminationStatus == SIGKILL)
        #expect(ended.terminationReason == .exit && ended.terminationStatus == 0)
    }
}
