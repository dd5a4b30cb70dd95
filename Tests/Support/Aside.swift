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
