#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A thread of its own for blocking work (a zip entry's inflate, a test's wait for a program), started
/// so that a refusal is an error: Foundation's `Thread.start()` ignores `pthread_create`'s result, so
/// a system out of threads (a pids cgroup, `pid_max`) left the work never run and its waiter waiting
/// for good, with nothing said (docs/RELIABILITY.md).
public enum OwnThread {
    /// Starts `work` on a new detached thread with a stack of `stackSize` bytes; throws when the
    /// system refuses the thread, and `work` then never runs.
    public static func start(stackSize: Int = 1 << 20, _ work: @escaping @Sendable () -> Void) throws(ThreadRefused) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, stackSize)
        let box = Unmanaged.passRetained(Work(work))
        var thread = pthread_t()
        let code = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Work>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box.toOpaque())
        guard code == 0 else {
            box.release()
            throw ThreadRefused(code: code)
        }
    }

    /// `work`'s result, computed on a thread of its own while the caller awaits, so a long parse
    /// never holds one of the task pool's threads (two on a Raspberry Pi, shared with the web). When
    /// the system refuses a thread, `work` runs on the calling task's thread instead: late is better
    /// than not at all.
    public static func result<T: Sendable, Failure: Error>(
        stackSize: Int = 1 << 20, _ work: @escaping @Sendable () throws(Failure) -> T
    ) async throws(Failure) -> T {
        let outcome: Result<T, Failure> = await withCheckedContinuation { continuation in
            do {
                try start(stackSize: stackSize) { continuation.resume(returning: Result { () throws(Failure) -> T in try work() }) }
            } catch {
                continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
            }
        }
        return try outcome.get()
    }

    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// The system refused a new thread (`EAGAIN`: the limit of threads or processes is reached).
public struct ThreadRefused: Error, Sendable, CustomStringConvertible {
    public var code: Int32

    public var description: String {
        "the system refused a new thread (\(String(cString: strerror(code)))): too many threads or processes are running"
    }
}
