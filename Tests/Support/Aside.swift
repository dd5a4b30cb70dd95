import Foundation

/// Runs blocking `work` (waiting for a program, starting a server) on a thread of its own and
/// awaits it. Swift's tasks share as many threads as the machine has cores — two here — so a test
/// that waited in place would hold one of them, and a test whose server must answer within a
/// deadline would miss it for want of a thread, not for anything it got wrong.
public func aside<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

extension Process {
    /// Waits for the program to end, aside (`waitUntilExit()` in place would hold one of the tasks' threads).
    public func exited() async {
        _ = try? await aside { [self] in waitUntilExit() }
    }
}

extension FileHandle {
    /// Everything up to the end (a pipe's end comes when its writer exits), read aside.
    public func readUntilEnd() async -> Data {
        (try? await aside { [self] in readDataToEndOfFile() }) ?? Data()
    }
}

/// At most `count` holders at a time; the others wait without holding a thread.
public actor Slots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(_ count: Int) { free = count }

    /// Runs `work` once a slot is free, and frees it after.
    public func withSlot<Value: Sendable>(_ work: @Sendable () async throws -> Value) async rethrows -> Value {
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
