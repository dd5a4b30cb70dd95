import CZlibInflate
import DustKit
import Foundation
import ZIPFoundation

/// Where one entry's compressed bytes lie in the zip, and how to inflate them, never past the
/// entry's compressed size.
///
/// ZIPFoundation 0.9.20 (pinned exactly in Package.swift) inflates with a provider that reads on
/// past the entry into the rest of the file and, at the file's end, keeps asking for more: a deflate
/// stream that never ends (a stored block longer than the file) spun its thread forever. So the
/// library lists the entries and this reads and inflates them, with zlib.
struct ZipEntryData: Sendable {
    let file: RegularFile
    /// The entry's name, safe for a terminal.
    let name: String
    let dataOffset: UInt64
    let compressedSize: UInt64
    let isDeflated: Bool
    let checksum: UInt32

    /// Finds `entry`'s data in `file`. Its size, checksum and local header's offset are the central
    /// directory's (ZIPFoundation reads them but keeps them internal, so they are read by reflection,
    /// the ZIP64 extra field parsed here; a data descriptor, which ZIPFoundation would prefer, is
    /// only a copy the directory is the authority over). Then the local header itself is read and
    /// checked (its signature, not encrypted, stored or deflated) before anything after it is trusted,
    /// and the data must lie inside the file.
    static func locate(_ entry: Entry, in file: RegularFile, name: String) throws(ActivityFileError) -> ZipEntryData {
        guard let directory = Mirror(reflecting: entry).descendant("centralDirectoryStructure").map(Mirror.init(reflecting:)),
            let offset32 = directory.descendant("relativeOffsetOfLocalHeader") as? UInt32,
            let compressed32 = directory.descendant("compressedSize") as? UInt32,
            let uncompressed32 = directory.descendant("uncompressedSize") as? UInt32,
            let checksum = directory.descendant("crc32") as? UInt32,
            let extra = directory.descendant("extraFieldData") as? Data
        else {
            throw .unreadableZip(reason: "this build's zip library does not say where entries start")
        }
        // ZIP64: the 8-byte values stand in the extra field for the fields that hold 0xFFFFFFFF, in
        // the order uncompressed size, compressed size, offset.
        var wide = zip64Values(extra: [UInt8](extra))
        func value(_ narrow: UInt32) throws(ActivityFileError) -> UInt64 {
            guard narrow == 0xFFFF_FFFF else { return UInt64(narrow) }
            guard !wide.isEmpty else { throw .damagedZipEntry(name: name, reason: "its ZIP64 extra field is missing or short") }
            return wide.removeFirst()
        }
        _ = try value(uncompressed32)
        let compressedSize = try value(compressed32)
        let headerOffset = try value(offset32)
        let header = try file.bytes(30, at: headerOffset)
        func le(_ at: Int, _ count: Int) -> UInt64 { header.littleEndian(at: at, bytes: count) }
        guard header.count == 30, le(0, 4) == 0x0403_4B50 else {
            throw .damagedZipEntry(name: name, reason: "no local header where the directory says it starts")
        }
        guard le(6, 2) & 1 == 0 else { throw .damagedZipEntry(name: name, reason: "it is encrypted") }
        let method = le(8, 2)
        guard method == 0 || method == 8 else {
            throw .damagedZipEntry(name: name, reason: "compression method \(method), neither stored nor deflated")
        }
        let dataOffset = headerOffset + 30 + le(26, 2) + le(28, 2)
        guard dataOffset <= file.size, compressedSize <= file.size - dataOffset else {
            throw .damagedZipEntry(name: name, reason: "its compressed data would end past the end of the file")
        }
        return ZipEntryData(
            file: file, name: name, dataOffset: dataOffset, compressedSize: compressedSize, isDeflated: method == 8,
            checksum: checksum)
    }

    /// The 8-byte values of a ZIP64 extra field (header 0x0001), in order; none without one.
    static func zip64Values(extra: [UInt8]) -> [UInt64] {
        guard let field = ZipDirectoryCheck.zip64Field(in: extra) else { return [] }
        return stride(from: field.lowerBound, to: field.upperBound - 7, by: 8).map { extra.littleEndian(at: $0, bytes: 8) }
    }

    /// Hands the entry's inflated bytes to `consumer` in pieces of at most `bufferSize` and checks
    /// its checksum. Throws `.damagedZipEntry` when the compressed bytes end before the deflate
    /// stream does, when the deflated data is corrupt, or when the checksum differs; `stop` is asked
    /// before every read, and what it throws ends the inflate.
    func inflate(bufferSize: Int, stop: () throws -> Void, consumer: (Data) throws -> Void) throws {
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        defer { input.deallocate() }
        var position = dataOffset
        let end = dataOffset + compressedSize
        /// The next piece of compressed bytes into `input`: how many (0 at the entry's end).
        func next() throws -> Int {
            try stop()
            let wanted = Int(min(UInt64(bufferSize), end - position))
            guard wanted > 0 else { return 0 }
            let got = try file.read(wanted, at: position, into: input)
            guard got == wanted else {
                throw ActivityFileError.damagedZipEntry(name: name, reason: "the file ends inside its compressed data")
            }
            position += UInt64(got)
            return got
        }
        var crc = crc32(0, nil, 0)
        func hand(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) throws {
            crc = CZlibInflate.crc32(crc, bytes, uInt(count))
            try consumer(Data(bytes: bytes, count: count))
        }
        if isDeflated {
            try inflateDeflated(bufferSize: bufferSize, input: input, next: next, hand: hand)
        } else {
            while position < end {
                let count = try next()
                try hand(input, count)
            }
        }
        guard crc == checksum else {
            throw ActivityFileError.damagedZipEntry(name: name, reason: "its checksum does not match its data")
        }
    }

    /// zlib's raw inflate over the pieces `next` reads into `input` (`avail_in` is what was read,
    /// never more), until the stream's end. Every call of `inflate` either takes input or gives
    /// output, and both are bounded (the entry's size; the consumer's bound), so this ends.
    private func inflateDeflated(
        bufferSize: Int, input: UnsafeMutablePointer<UInt8>, next: () throws -> Int,
        hand: (UnsafeMutablePointer<UInt8>, Int) throws -> Void
    ) throws {
        // On the heap: zlib checks that every call passes the stream it was started with.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard inflateInit2_(stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ActivityFileError.damagedZipEntry(name: name, reason: "zlib could not start inflating")
        }
        defer { inflateEnd(stream) }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        defer { output.deallocate() }
        var inputLeft = true
        while true {
            // More input only once zlib has taken all it had: with the last byte taken and the
            // output full, the stream may still end on the next call without any.
            if stream.pointee.avail_in == 0, inputLeft {
                let count = try next()
                inputLeft = count > 0
                stream.pointee.next_in = input
                stream.pointee.avail_in = uInt(count)
            }
            stream.pointee.next_out = output
            stream.pointee.avail_out = uInt(bufferSize)
            let status = CZlibInflate.inflate(stream, Z_NO_FLUSH)
            let produced = bufferSize - Int(stream.pointee.avail_out)
            if produced > 0 { try hand(output, produced) }
            switch status {
            case Z_STREAM_END: return
            case Z_OK: continue
            // No progress was possible: more input is wanted, and there is none.
            case Z_BUF_ERROR where stream.pointee.avail_in == 0 && !inputLeft:
                throw ActivityFileError.damagedZipEntry(name: name, reason: "its compressed data ends before its deflate stream does")
            case Z_BUF_ERROR where stream.pointee.avail_in == 0: continue
            case Z_MEM_ERROR:
                throw ActivityFileError.damagedZipEntry(name: name, reason: "zlib ran out of memory inflating it")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw ActivityFileError.damagedZipEntry(
                    name: name, reason: "its deflated data is corrupt: \(TerminalSafeText.sanitized(message))")
            }
        }
    }
}
