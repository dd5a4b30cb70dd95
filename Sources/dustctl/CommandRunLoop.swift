import Foundation
import Synchronization

/// Runs a command's asynchronous work on the main thread, as a synchronous program would.
///
/// The store protocols are asynchronous (a PostgreSQL store cannot be anything else), but
/// SQLiteStore, opened with `Threading.callersThread`, answers on this thread without suspending, and
/// a `dustctl` run does one thing and exits. Left to the
/// default executor, every run would hop from the main thread to Swift's cooperative pool: four
/// threads started and a hand-over for each command, 18 % of `dustctl week`'s wall time
/// (docs/PERFORMANCE.md, "One shape"). With this loop as the task's executor preference, every
/// nonisolated `async` function runs here; work that really waits (an HTTP request on the
/// client's own event loop) resumes through `enqueue` and the loop sleeps until it does.
final class CommandRunLoop: TaskExecutor, @unchecked Sendable {
    /// Guards `jobs` and `finished`; signalled when either changes.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Runs `operation` to its end on the calling thread and returns what it returned or threw.
    func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        Task(executorPreference: self) {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            self.finish()
        }
        while let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        // The task set `outcome` before `finished`, under the same lock the loop read it with.
        return try outcome.withLock { $0! }.get()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// The next job, waiting for one; nil once the operation has finished and nothing is left.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !finished { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
