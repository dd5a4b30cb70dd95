import DustKit
import Foundation

/// One zip entry's bytes, inflated on a helper thread and read here in order.
public struct ZipEntryByteStream: ByteStream {
    let pipe: ZipEntryPipe

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        try pipe.read(into: buffer)
    }
}

/// The hand-over between the inflating helper thread and the reader: at most `capacity`
/// pieces queued, both sides blocking on one condition.
final class ZipEntryPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private let name: String
    private let bound: Int64
    private let limits: ActivityReaderLimits
    private let budget: ArchiveBudget
    private let capacity = 2
    private var pieces: [Data] = []
    private var offset = 0
    private var produced: Int64 = 0
    private var finished = false
    private var stopped = false
    private var failure: ActivityFileError?

    /// Stopped on purpose: ends the inflate from inside its consumer or before its next read.
    private struct Stop: Error {}

    init(name: String, bound: Int64, limits: ActivityReaderLimits, budget: ArchiveBudget) {
        self.name = name
        self.bound = bound
        self.limits = limits
        self.budget = budget
    }

    func start(_ entry: ZipEntryData) {
        do {
            try OwnThread.start(stackSize: 1 << 20) { [self] in
                do {
                    try entry.inflate(bufferSize: 64 * 1024, stop: checkStopped, consumer: push)
                    finish(nil)
                } catch is Stop {
                    finish(nil)
                } catch let error as ActivityFileError {
                    finish(error)
                } catch {
                    finish(.damagedZipEntry(name: name, reason: HealthExportArchive.describe(error)))
                }
            }
        } catch {
            // No thread, no inflate: the reader is told at once instead of waiting for a piece for good.
            finish(.damagedZipEntry(name: name, reason: error.description))
        }
    }

    /// Called on the helper thread before each read of compressed bytes.
    private func checkStopped() throws {
        condition.lock()
        defer { condition.unlock() }
        if stopped { throw Stop() }
    }

    /// Called on the helper thread with each inflated piece.
    private func push(_ data: Data) throws {
        condition.lock()
        defer { condition.unlock() }
        produced += Int64(data.count)
        guard produced <= bound else {
            throw ActivityFileError.zipEntryTooLarge(name: name, limit: limits.maxZipEntryBytes, ratio: limits.maxCompressionRatio)
        }
        try budget.add(Int64(data.count))
        while pieces.count >= capacity, !stopped { condition.wait() }
        if stopped { throw Stop() }
        if !data.isEmpty { pieces.append(data) }
        condition.broadcast()
    }

    private func finish(_ error: ActivityFileError?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the reader: the next bytes, 0 at the end, the helper's failure once it is reached.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while pieces.isEmpty, !finished { condition.wait() }
        if let piece = pieces.first {
            let count = min(buffer.count, piece.count - offset)
            piece.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            offset += count
            if offset == piece.count {
                pieces.removeFirst()
                offset = 0
                condition.broadcast()
            }
            return count
        }
        if let failure { throw failure }
        return 0
    }

    /// Reads whatever the reader left, so the entry's checksum is checked; throws its failure.
    func drain() throws(ActivityFileError) {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = scratch.withUnsafeMutableBytes { buffer -> Result<Int, ActivityFileError> in
                do throws(ActivityFileError) { return .success(try read(into: buffer)) } catch { return .failure(error) }
            }
            if try result.get() == 0 { return }
        }
    }

    /// Tells the helper to stop and waits until it has: it asks before every read of compressed
    /// bytes and every hand-over, so it ends within one piece's inflate.
    func stopAndWait() {
        condition.lock()
        stopped = true
        pieces = []
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
