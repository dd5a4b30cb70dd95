import DustKit
import Synchronization
import Testing

@Suite("finishedWithin: work a stop must not cut short, waited for a bounded time", .timeLimit(.minutes(10)))
struct FinishedWithinTests {
    @Test("A cancelled caller still gets the work's result: the work runs outside its cancellation")
    func cancelledCallerGetsResult() async {
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await finishedWithin(seconds: 60) { Task.isCancelled ? -1 : 42 }
        }
        #expect(await caller.value == 42)
    }

    @Test("Work that does not end is given up: nil, and the work goes on without the caller")
    func workThatDoesNotEnd() async {
        let finished = Flag()
        let result: Int? = await finishedWithin(seconds: 0.05) {
            try? await Task.sleep(for: .seconds(3600))
            finished.value.store(true, ordering: .releasing)
            return 1
        }
        #expect(result == nil)
        let ended = finished.value.load(ordering: .acquiring)
        #expect(!ended)
    }
}

private final class Flag: Sendable {
    let value = Atomic(false)
}
