import CMalloc
import DustKit
import DustServices
import ServiceLifecycle

/// Gives memory back to the system every `interval`: what the store's connections keep between uses,
/// then the heap's free pages (glibc's `malloc_trim`), with `trimStoreAndHeap`; the heap alone with
/// `glibcTrim`.
///
/// glibc keeps what a burst of work freed (the dashboard under load, a backfill's parse) in its
/// arenas, and returns to the system only the free memory at the top of the heap: the rest stays
/// resident until the same process needs it again, which on a home server may be never. Serving the
/// demo under load left 4.4 MiB of such pages (docs/PERFORMANCE.md, "dustd serving the demo"). A
/// trim walks the free lists and hands back every whole free page: 0.3 ms at the median on dustd's
/// heap, 45 ms at worst in the middle of a load, with the arena locked. It runs on a thread of its
/// own (`OwnThread`), never on one of the task pool's two; a page given back costs one page fault
/// if it is wanted again.
///
/// Its clock is the process's own (a duration, not the domain's `WallClock`): how often the heap is
/// trimmed has nothing to do with the hours dustd polls, and a test's manual clock should not see it.
public struct HeapTrimService: Service, CustomStringConvertible {
    public var description: String { "HeapTrimService" }

    /// How often the heap is trimmed.
    public static let defaultInterval: Duration = .seconds(30)

    private let interval: Duration
    private let clock: any Clock<Duration>
    private let trim: @Sendable () -> Void

    /// glibc's trim: every arena's free pages (beyond none kept at the top) given back.
    public static let glibcTrim: @Sendable () -> Void = { _ = malloc_trim(0) }

    /// dustd's trim: first what the store's connections keep between uses (SQLite's idle readers,
    /// each with a page cache and a parsed schema, 0.45 MB apiece on the demo), then the heap, so
    /// that what the store freed goes back in the same pass (what a reader busy at the time frees
    /// later, at the next). A burst of requests opens the readers again; a store that keeps nothing
    /// (PostgreSQL) is skipped.
    public static func trimStoreAndHeap(_ store: @escaping @Sendable () -> any FineDustStore) -> @Sendable () -> Void {
        {
            (store() as? any MemoryReleasingStore)?.releaseMemory()
            glibcTrim()
        }
    }

    /// - Parameter trim: gives free memory back; `glibcTrim` unless a test counts calls.
    public init(
        interval: Duration = Self.defaultInterval, clock: any Clock<Duration> = ContinuousClock(),
        trim: @escaping @Sendable () -> Void = Self.glibcTrim
    ) {
        self.interval = interval
        self.clock = clock
        self.trim = trim
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while true {
                do { try await clock.sleep(for: interval) } catch { return }
                await Self.untilDoneOrCancelled(trim)
            }
        }
    }

    /// Runs `work` on a thread of its own and returns when it is done, or at once when the task is
    /// cancelled: a trim waiting for the store's writer (a backfill's transaction) must not hold up
    /// dustd's stop; the thread then finishes on its own, or ends with the process.
    static func untilDoneOrCancelled(_ work: @escaping @Sendable () -> Void) async {
        await ResumeOnce.untilDone { done in
            do {
                try OwnThread.start {
                    work()
                    done()
                }
            } catch {
                work()
                done()
            }
        }
    }
}
