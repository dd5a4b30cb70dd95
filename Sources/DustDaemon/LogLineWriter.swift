import DustKit
import Foundation
import Synchronization

/// dustd's log lines written to a descriptor (stderr: the journal's stream, a file, a pipe) by one
/// thread of their own, so that a reader who stops reading never stops dustd.
///
/// A write to a pipe or socket whose reader has stopped (journald stalled on a slow SD card, a
/// `dustd 2>&1 | less` left open) blocks until it reads again. Written from the services' own
/// threads, such a write held every thread of the task pool: polling, alerts and the stop request
/// waited with it while the watchdog kept saying all was well (docs/RELIABILITY.md, "A daemon
/// interrupted or overlapping"). Here a line is queued, up to `capacity` bytes; past that it is
/// dropped and counted, and once the reader reads again one line says how many were lost.
public final class LogLineWriter: Sendable {
    private let descriptor: Int32
    private let capacity: Int
    private let state = NSCondition()
    /// Guarded by `state`.
    private nonisolated(unsafe) var queue: [String] = []
    private nonisolated(unsafe) var queuedBytes = 0
    private nonisolated(unsafe) var dropped = 0
    /// How many lines were queued when the first of `dropped` was.
    private nonisolated(unsafe) var droppedAt = 0
    private nonisolated(unsafe) var writing = false
    /// Set when the system refused the writing thread: each line is then written at once, as before.
    private let direct = Atomic<Bool>(false)

    /// - Parameter capacity: the bytes held for a reader that is behind: a day of dustd's lines is
    ///   well under a megabyte.
    public init(descriptor: Int32 = STDERR_FILENO, capacity: Int = 1 << 20) {
        self.descriptor = descriptor
        self.capacity = capacity
        // One thread for the process's life (dustd makes one writer).
        do {
            try OwnThread.start(stackSize: 256 << 10) { [self] in drainForever() }
        } catch {
            direct.store(true, ordering: .relaxed)
        }
    }

    /// Queues `line` (ending in a newline), or drops it when `capacity` bytes are already waiting.
    public func write(_ line: String) {
        guard !direct.load(ordering: .relaxed) else {
            _ = writeAll(line.utf8, to: descriptor)
            return
        }
        state.lock()
        defer { state.unlock() }
        let bytes = line.utf8.count
        guard queuedBytes + bytes <= capacity else {
            if dropped == 0 { droppedAt = queue.count }
            dropped += 1
            return
        }
        queue.append(line)
        queuedBytes += bytes
        // Broadcast: `drain` waits on the same condition, and must not take the writer's wakeup.
        state.broadcast()
    }

    /// Waits until every queued line is written, or `seconds` have passed: the last lines of a
    /// stopping dustd ("dustd stopped") reach a reader that reads, and a reader that does not read
    /// cannot hold the stop.
    public func drain(within seconds: Double) {
        guard !direct.load(ordering: .relaxed) else { return }
        let deadline = Date(timeIntervalSinceNow: seconds)
        state.lock()
        defer { state.unlock() }
        while !queue.isEmpty || writing {
            guard state.wait(until: deadline) else { return }
        }
    }

    private func drainForever() {
        while true {
            state.lock()
            while queue.isEmpty, dropped == 0 { state.wait() }
            var lines = queue
            queue.removeAll(keepingCapacity: true)
            // The bytes stay counted until they are written: at most `capacity` wait, in the queue or in flight.
            let batchBytes = queuedBytes
            if dropped > 0 {
                // Where the first line was dropped: after the lines queued before it.
                lines.insert(
                    "\(dropped) log line\(dropped == 1 ? " was" : "s were") dropped: the log's reader (the journal, a pipe) was not reading\n",
                    at: min(droppedAt, lines.count))
                dropped = 0
            }
            writing = true
            state.unlock()
            // A line that cannot be written (its disk full, its pipe gone) is dropped: there is nowhere to say so.
            _ = writeAll(lines.joined().utf8, to: descriptor)
            state.lock()
            queuedBytes -= batchBytes
            writing = false
            state.broadcast()
            state.unlock()
        }
    }
}
