import DustKit
import Foundation

/// Runs blocking `work` (waiting for a program, starting a server) on a thread of its own and
/// awaits it. Swift's tasks share as many threads as the machine has cores (two on the CI
/// machine), so a test that waited in place would hold one of them, and a test whose server must
/// answer within a deadline would miss it for want of a thread, not for anything it got wrong.
/// A thread the system refuses is an error here, not a wait that never ends (`OwnThread`).
public func aside<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        do {
            try OwnThread.start(stackSize: 8 << 20) { continuation.resume(with: Result { try work() }) }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}

extension Process {
    /// Waits for the program to end without holding a thread: Foundation's `waitUntilExit()` holds
    /// the one it runs on, and on any thread but the one that started the program it spins, running
    /// an empty run loop until the program ends. A program still running after `limit` is killed
    /// (SIGKILL), so that no test waits on it for ever; a test that cares how it ended checks
    /// `terminationReason`.
    public func exited(within limit: Duration = .seconds(120)) async {
        let deadline = ContinuousClock.now + limit
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        guard isRunning else { return }
        kill(processIdentifier, SIGKILL)
        // A killed process ends at once, bar one stuck in the kernel: ten more seconds, then give up.
        let killed = ContinuousClock.now + .seconds(10)
        while isRunning, ContinuousClock.now < killed { try? await Task.sleep(for: .milliseconds(20)) }
    }
}

extension FileHandle {
    /// Everything up to the end (a pipe's end comes when its writer exits), read aside.
    public func readUntilEnd() async -> Data {
        (try? await aside { [self] in readDataToEndOfFile() }) ?? Data()
    }
}

/// At most `count` holders at a time; the others wait, in turn, without holding a thread.
actor RunLimit {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    /// Runs `work` once a turn is free, and frees it after (also when `work` throws).
    func withTurn<Value: Sendable>(_ work: @Sendable () async throws -> Value) async rethrows -> Value {
        if free > 0 {
            free -= 1
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
        defer {
            if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
        }
        return try await work()
    }
}
