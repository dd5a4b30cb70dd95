import Foundation

/// The zip's directory checked before ZIPFoundation reads it: every offset the directory gives
/// lies inside the file, every size is one a file can have. ZIPFoundation 0.9.20 converts a ZIP64
/// offset to `off_t` unchecked (an offset of 2⁶³ or more traps, ending the process) and adds ZIP64
/// sizes to offsets unchecked (a size near 2⁶⁴ overflows, the same), and without an end record in
/// the last 64 KiB it seeks back through the whole file four bytes at a time. So its reading is
/// followed here, as far as it reaches, and what it would trip on is refused first:
/// - the end of central directory record: the last one in the file, which must be in its last
///   65,557 bytes (22 and the longest comment; ZIPFoundation searches the whole file);
/// - the ZIP64 end record, where ZIPFoundation looks for it (just before its locator, just before
///   the end record), when its version is 4.5 or later: its directory offset inside the file;
/// - each directory record while their signatures hold (ZIPFoundation stops at the first that does
///   not), at most `maxEntries` + 1: the local header's offset, 32-bit or ZIP64, inside the file,
///   and the ZIP64 sizes under 2⁵⁰; a directory of more than `maxEntries` records is refused.
enum ZipDirectoryCheck {
    /// The end record's size, and the most bytes it can end before the file's end (its comment).
    static let endRecordSize = 22
    static let longestTail = 22 + 0xFFFF
    /// A size no file here reaches (1 PiB): a ZIP64 size above it is a lie.
    static let largestSize: UInt64 = 1 << 50

    static func check(_ file: RegularFile, maxEntries: Int) throws(ActivityFileError) {
        let size = file.size
        let tailLength = Int(min(size, UInt64(longestTail)))
        let tailStart = size - UInt64(tailLength)
        let tail = try file.bytes(tailLength, at: tailStart)
        guard let end = lastEndRecord(in: tail) else {
            throw .unreadableZip(reason: "it has no end of central directory record in its last 64 KiB")
        }
        let endOffset = tailStart + UInt64(end)
        // The 32-bit end record's directory, and the ZIP64 record's where ZIPFoundation takes it: a
        // locator 20 bytes before the end record and a record 56 bytes before that, all after the
        // file's first byte (ZIPFoundation: 20 < end and 56 < end − 20).
        let narrow = (entries: tail.littleEndian(at: end + 10, bytes: 2), offset: tail.littleEndian(at: end + 16, bytes: 4))
        var wide: (entries: UInt64, offset: UInt64)?
        if endOffset > 20 + 56 {
            let locator = try file.bytes(20, at: endOffset - 20)
            let record = try file.bytes(56, at: endOffset - 20 - 56)
            if locator.littleEndian(at: 0, bytes: 4) == 0x0706_4B50, record.littleEndian(at: 0, bytes: 4) == 0x0606_4B50,
                record.littleEndian(at: 14, bytes: 2) >= 45
            {
                wide = (entries: record.littleEndian(at: 32, bytes: 8), offset: record.littleEndian(at: 48, bytes: 8))
            }
        }
        guard let wide else { return try walk(file, entries: narrow.entries, from: narrow.offset, maxEntries: maxEntries) }
        // ZIPFoundation walks the ZIP64 record's; the 32-bit record's too where it can be one (a
        // ZIP64 archive's holds 0xFFFFFFFF), should any reader ever prefer it.
        try walk(file, entries: wide.entries, from: wide.offset, maxEntries: maxEntries)
        if narrow.offset <= file.size, narrow != wide {
            try walk(file, entries: narrow.entries, from: narrow.offset, maxEntries: maxEntries)
        }
    }

    /// Checks the directory records from `offset` on while their signatures hold, at most
    /// `entries` and `maxEntries` + 1 of them.
    private static func walk(_ file: RegularFile, entries: UInt64, from offset: UInt64, maxEntries: Int) throws(ActivityFileError) {
        let size = file.size
        guard offset <= size else { throw pastTheEnd }
        var position = offset
        var checked = 0
        while UInt64(checked) < entries, checked <= maxEntries, position <= size - min(size, 46) {
            let record = try file.bytes(46, at: position)
            guard record.littleEndian(at: 0, bytes: 4) == 0x0201_4B50 else { return }
            let nameLength = record.littleEndian(at: 28, bytes: 2)
            let extraLength = record.littleEndian(at: 30, bytes: 2)
            let commentLength = record.littleEndian(at: 32, bytes: 2)
            let extra = try file.bytes(Int(extraLength), at: position + 46 + nameLength)
            // The ZIP64 values stand for the fields that hold their largest value, in this order.
            let offset32 = record.littleEndian(at: 42, bytes: 4)
            let markers = [
                (record.littleEndian(at: 24, bytes: 4) == 0xFFFF_FFFF, 8, false),
                (record.littleEndian(at: 20, bytes: 4) == 0xFFFF_FFFF, 8, false),
                (offset32 == 0xFFFF_FFFF, 8, true), (record.littleEndian(at: 34, bytes: 2) == 0xFFFF, 4, false),
            ]
            if let field = zip64Field(in: extra) {
                var at = field.lowerBound
                for (present, width, isOffset) in markers where present {
                    guard at + width <= field.upperBound else { break }
                    let value = extra.littleEndian(at: at, bytes: width)
                    if isOffset ? value > size : width == 8 && value > largestSize { throw pastTheEnd }
                    at += width
                }
            }
            if offset32 != 0xFFFF_FFFF, offset32 > size { throw pastTheEnd }
            position += 46 + nameLength + extraLength + commentLength
            checked += 1
        }
        // ZIPFoundation would list at least this many entries (it reads records while their
        // signatures hold): refused here, before it builds one object per entry (201,000 entries
        // took 11 s and 314 MB to list).
        if checked > maxEntries { throw .tooManyZipEntries(limit: maxEntries) }
    }

    private static var pastTheEnd: ActivityFileError {
        .unreadableZip(reason: "its directory gives an offset past the end of the file or an impossible size")
    }

    /// Where the last end record's signature starts with a whole record after it, if anywhere.
    private static func lastEndRecord(in tail: [UInt8]) -> Int? {
        guard tail.count >= endRecordSize else { return nil }
        for start in stride(from: tail.count - endRecordSize, through: 0, by: -1)
        where tail[start] == 0x50 && tail[start + 1] == 0x4B && tail[start + 2] == 0x05 && tail[start + 3] == 0x06 {
            return start
        }
        return nil
    }

    /// The body of the extra field's ZIP64 entry (header 0x0001), as ZIPFoundation finds it.
    static func zip64Field(in extra: [UInt8]) -> Range<Int>? {
        var index = 0
        while index + 4 <= extra.count {
            let id = extra.littleEndian(at: index, bytes: 2)
            let length = Int(extra.littleEndian(at: index + 2, bytes: 2))
            guard index + 4 + length <= extra.count else { return nil }
            if id == 1 { return (index + 4)..<(index + 4 + length) }
            index += 4 + length
        }
        return nil
    }
}

extension [UInt8] {
    /// The little-endian value of `bytes` bytes at `at`; 0 where the array ends.
    func littleEndian(at: Int, bytes: Int) -> UInt64 {
        (0..<bytes).reduce(UInt64(0)) { result, index in
            at + index < count ? result | UInt64(self[at + index]) << (8 * UInt64(index)) : result
        }
    }
}
