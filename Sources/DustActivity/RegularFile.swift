import Foundation

/// A regular file opened once for reading, the one way FineDust reads an activity file: it is
/// opened without waiting (a FIFO's open would block until a writer came), refused unless a
/// regular file, and from then on read through this descriptor only — at absolute offsets
/// (`pread`, so threads share no file position) or from the start (`rewind()`). Swapping the path
/// for another file while an import runs changes nothing: what was checked is what is read.
public final class RegularFile: Sendable {
    public let descriptor: Int32
    /// Its size when opened.
    public let size: UInt64
    /// What a failure to open or read is reported as: a zip's failure, or a plain file's.
    private let failure: @Sendable (String) -> ActivityFileError

    /// Opens `path`; each failure is `failure(the reason)`.
    public convenience init(
        path: String, failure: @escaping @Sendable (String) -> ActivityFileError = { .unreadable(reason: $0) }
    ) throws(ActivityFileError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw failure(String(cString: strerror(errno))) }
        try self.init(adopting: descriptor, failure: failure)
    }

    /// A descriptor of its own for the file open at `descriptor`; the caller keeps and closes its
    /// own. The two share the file's position and status flags (one open file, two descriptors).
    public convenience init(
        duplicating descriptor: Int32, failure: @escaping @Sendable (String) -> ActivityFileError = { .unreadable(reason: $0) }
    ) throws(ActivityFileError) {
        let own = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard own >= 0 else { throw failure(String(cString: strerror(errno))) }
        try self.init(adopting: own, failure: failure)
    }

    /// Takes `descriptor` over (closing it if it is not a regular file).
    private init(adopting descriptor: Int32, failure: @escaping @Sendable (String) -> ActivityFileError) throws(ActivityFileError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw failure("not a regular file")
        }
        // Reads block as on any regular file from here on.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        self.descriptor = descriptor
        self.failure = failure
        size = UInt64(max(0, status.st_size))
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes at `offset`, fewer at the end of the file; none past it.
    public func bytes(_ count: Int, at offset: UInt64) throws(ActivityFileError) -> [UInt8] {
        guard count > 0, offset < size else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try buffer.withUnsafeMutableBufferPointer { pointer throws(ActivityFileError) in
            try read(count, at: offset, into: pointer.baseAddress!)
        }
        // Cut in place: a copy would hold the file twice.
        if got < count { buffer.removeLast(count - got) }
        return buffer
    }

    /// Up to `count` bytes at `offset` into `buffer`; fewer only at the end of the file.
    public func read(_ count: Int, at offset: UInt64, into buffer: UnsafeMutablePointer<UInt8>) throws(ActivityFileError) -> Int {
        var done = 0
        while done < count {
            let got = pread(descriptor, buffer + done, count - done, off_t(offset) + off_t(done))
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure(String(cString: strerror(errno)))
            }
            done += got
        }
        return done
    }

    /// Puts the descriptor's own position back at the start, for a reader that reads it in order.
    public func rewind() throws(ActivityFileError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw failure(String(cString: strerror(errno))) }
    }
}
