import DustKit
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Blocking work on a thread of its own (`OwnThread.result`): what parses AirKorea's answers, off the
/// task pool's threads.
@Suite("A thread of its own for blocking work", .timeLimit(.minutes(10)))
struct OwnThreadTests {
    struct Refused: Error, Equatable {
        var code: Int
    }

    @Test("The result is computed on another thread than the caller's, and an error arrives typed")
    func result() async throws {
        let caller = pthread_self()
        let (value, worker) = await OwnThread.result { () -> (Int, pthread_t) in ((1...1000).reduce(0, +), pthread_self()) }
        #expect(value == 500_500)
        #expect(pthread_equal(caller, worker) == 0)
        await #expect(throws: Refused(code: 7)) {
            try await OwnThread.result { () throws(Refused) -> Int in throw Refused(code: 7) }
        }
    }

    @Test("Many at once each get their own answer")
    func many() async throws {
        let sums = await withTaskGroup(of: Int.self) { group in
            for n in 1...64 { group.addTask { await OwnThread.result { (1...n).reduce(0, +) } } }
            var all: [Int] = []
            for await sum in group { all.append(sum) }
            return all.sorted()
        }
        #expect(sums == (1...64).map { $0 * ($0 + 1) / 2 }.sorted())
    }
}
