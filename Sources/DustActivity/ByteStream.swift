import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one activity file, read front to back in pieces: a file descriptor, memory, or a
/// zip entry being inflated. Readers never hold more than one piece.
public protocol ByteStream {
    /// Fills the start of `buffer` and returns how many bytes it wrote; 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int
}

/// Reads an open file descriptor with read(2); the caller opens and closes it.
public struct FileDescriptorByteStream: ByteStream {
    public let fileDescriptor: Int32

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = systemRead(fileDescriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .unreadable(reason: String(cString: strerror(errno)))
        }
    }
}

/// read(2), named apart from `ByteStream.read`.
private func systemRead(_ fileDescriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(fileDescriptor, buffer, count)
    #else
        Darwin.read(fileDescriptor, buffer, count)
    #endif
}

/// Bytes already in memory, handed out at most `chunkSize` at a time.
public struct MemoryByteStream: ByteStream {
    private let bytes: [UInt8]
    private let chunkSize: Int
    private var offset = 0

    /// `chunkSize` below the reader's buffer size exercises every boundary in tests.
    public init(_ bytes: [UInt8], chunkSize: Int = Int.max) {
        precondition(chunkSize > 0, "a chunk holds at least one byte")
        self.bytes = bytes
        self.chunkSize = chunkSize
    }

    public init(_ text: String, chunkSize: Int = Int.max) {
        self.init(Array(text.utf8), chunkSize: chunkSize)
    }

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        let count = min(buffer.count, chunkSize, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}
