import DustKit
import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import DustActivity

/// A one-entry zip written byte by byte, so each test can break one field: the local header, the
/// entry's bytes as stored, the central directory and its end record.
struct HandMadeZip {
    var name = "apple_health_export/export.xml"
    /// The entry's bytes as they lie in the file (deflated or stored).
    var data: [UInt8]
    /// 0 stored, 8 deflated.
    var method = 0
    /// The local header's flags (the directory's stay 0: ZIPFoundation stops listing at an
    /// entry the directory calls encrypted).
    var flags = 0
    var crc: UInt32
    var uncompressedSize: Int
    /// The compressed size the local header and the directory declare (`data.count` when nil).
    var declaredCompressedSize: Int?
    /// The directory gives the local header's offset in a ZIP64 extra field (0xFFFFFFFF in its own):
    /// the true one, or this.
    var zip64Offset = false
    var zip64OffsetValue: UInt64?
    /// The directory gives the compressed size in a ZIP64 extra field, this one.
    var zip64CompressedSize: UInt64?
    /// A ZIP64 end record and locator before the end record, giving the directory's offset: the
    /// true one, or this.
    var zip64End = false
    var zip64EndDirectoryOffset: UInt64?
    /// Bytes before the local header (a self-extractor's stub, say).
    var preamble = 0
    /// The sizes and checksum in a data descriptor after the data (flag bit 3; zeros in the local
    /// header), the descriptor's compressed size this much larger than the truth.
    var dataDescriptor: Int?

    /// A stored entry holding `content`, its checksum right.
    init(stored content: [UInt8]) {
        data = content
        crc = Data(content).crc32(checksum: 0)
        uncompressedSize = content.count
    }

    init(data: [UInt8], method: Int, crc: UInt32, uncompressedSize: Int) {
        self.data = data
        self.method = method
        self.crc = crc
        self.uncompressedSize = uncompressedSize
    }

    static func le(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8((value >> (8 * $0)) & 0xFF) } }
    static func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }

    var bytes: [UInt8] {
        let le = Self.le
        let name = Array(self.name.utf8)
        let compressed = declaredCompressedSize ?? data.count
        let described = dataDescriptor != nil
        let local =
            le(0x0403_4B50, 4) + le(20, 2) + le(flags | (described ? 8 : 0), 2) + le(method, 2) + le(0, 4)
            + le(described ? 0 : Int(crc), 4) + le(described ? 0 : compressed, 4) + le(described ? 0 : uncompressedSize, 4)
            + le(name.count, 2) + le(0, 2) + name
        let descriptor =
            dataDescriptor.map { lie in
                le(0x0807_4B50, 4) + le(Int(crc), 4) + le(compressed + lie, 4) + le(uncompressedSize, 4)
            } ?? []
        let wide = zip64Offset || zip64CompressedSize != nil
        let values = (zip64CompressedSize.map(Self.le64) ?? []) + (zip64Offset ? Self.le64(zip64OffsetValue ?? UInt64(preamble)) : [])
        let extra = wide ? le(1, 2) + le(values.count, 2) + values : []
        let central =
            le(0x0201_4B50, 4) + le(wide ? 45 : 20, 2) + le(wide ? 45 : 20, 2) + le(described ? 8 : 0, 2)
            + le(method, 2) + le(0, 4) + le(Int(crc), 4) + le(zip64CompressedSize != nil ? 0xFFFF_FFFF : compressed, 4)
            + le(uncompressedSize, 4)
            + le(name.count, 2) + le(extra.count, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0o644 << 16, 4)
            + le(zip64Offset ? 0xFFFF_FFFF : preamble, 4) + name + extra
        let directoryOffset = preamble + local.count + data.count + descriptor.count
        // ZIP64: the end record (56 bytes) and its locator (20) between the directory and the end record.
        let zip64 =
            zip64End
            ? le(0x0606_4B50, 4) + Self.le64(44) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + Self.le64(1) + Self.le64(1)
                + Self.le64(UInt64(central.count)) + Self.le64(zip64EndDirectoryOffset ?? UInt64(directoryOffset))
                + le(0x0706_4B50, 4) + le(0, 4) + Self.le64(UInt64(directoryOffset + central.count)) + le(1, 4)
            : []
        let end =
            le(0x0605_4B50, 4) + le(0, 2) + le(0, 2) + le(zip64End ? 0xFFFF : 1, 2) + le(zip64End ? 0xFFFF : 1, 2)
            + le(zip64End ? 0xFFFF_FFFF : central.count, 4) + le(zip64End ? 0xFFFF_FFFF : directoryOffset, 4) + le(0, 2)
        return [UInt8](repeating: 0, count: preamble) + local + data + descriptor + central + zip64 + end
    }

    func write(in directory: TemporaryDirectory, name: String = "hand.zip") throws -> String {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes the zip and finds its entry's data as the archive does (the entry called "x" in errors).
    func located(in directory: TemporaryDirectory, name: String = "hand.zip") throws -> ZipEntryData {
        let path = try write(in: directory, name: name)
        let entry = try #require(try Archive(url: URL(fileURLWithPath: path), accessMode: .read)[self.name])
        return try ZipEntryData.locate(entry, in: RegularFile.zip(path: path), name: "x")
    }
}

@Suite("Zip entry data", .timeLimit(.minutes(10)))
struct ZipEntryDataTests {
    /// A Health export of three distance records of 100, 200 and 300 m at 08:00 KST.
    static let export = Array(
        healthExport(
            (1...3).map {
                distanceRecord(
                    unit: "m", value: "\($0 * 100)", start: "2024-01-01 08:0\($0):00 +0900", end: "2024-01-01 08:0\($0):30 +0900")
            }.joined(separator: "\n")
        ).utf8)

    static func readOnlyExport(_ path: String) throws(ActivityFileError) -> [String: [Slot: Double]] {
        try readZip(path).metres
    }

    @Test("A stored (uncompressed) export is read whole, its checksum checked: 600 m in the 08:00 slot")
    func stored() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let metres = try Self.readOnlyExport(HandMadeZip(stored: Self.export).write(in: directory))
        #expect(metres == ["health:Apple Watch": [slot("2023-12-31T23:00:00Z"): 600]])
    }

    @Test("The local header's offset given in a ZIP64 extra field is found there")
    func zip64Offset() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        var zip = HandMadeZip(stored: Self.export)
        zip.zip64Offset = true
        zip.preamble = 100
        let metres = try Self.readOnlyExport(zip.write(in: directory))
        #expect(metres == ["health:Apple Watch": [slot("2023-12-31T23:00:00Z"): 600]])
        // The extra field parsed alone: its 8-byte values in order, after any other field; none when cut short.
        let field =
            HandMadeZip.le(0x9901, 2) + HandMadeZip.le(2, 2) + [0, 0] + HandMadeZip.le(1, 2) + HandMadeZip.le(16, 2)
            + HandMadeZip.le(7, 8) + HandMadeZip.le(123_456_789_012, 8)
        #expect(ZipEntryData.zip64Values(extra: field) == [7, 123_456_789_012])
        #expect(ZipEntryData.zip64Values(extra: HandMadeZip.le(1, 2) + HandMadeZip.le(8, 2) + [1, 2, 3]) == [])
    }

    @Test("A ZIP64 end record's directory offset is followed; ZIP64 sizes and offsets past the file are refused before ZIPFoundation seeks")
    func zip64Directory() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        var zip = HandMadeZip(stored: Self.export)
        zip.zip64End = true
        #expect(try Self.readOnlyExport(zip.write(in: directory)) == ["health:Apple Watch": [slot("2023-12-31T23:00:00Z"): 600]])
        let refused = ActivityFileError.unreadableZip(
            reason: "its directory gives an offset past the end of the file or an impossible size")
        for value: UInt64 in [1 << 63, UInt64.max, 10_000] {
            var end = HandMadeZip(stored: Self.export)
            end.zip64End = true
            end.zip64EndDirectoryOffset = value
            #expect(throws: refused, "directory at \(value)") { try Self.readOnlyExport(end.write(in: directory)) }
            var offset = HandMadeZip(stored: Self.export)
            offset.zip64Offset = true
            offset.zip64OffsetValue = value
            #expect(throws: refused, "local header at \(value)") { try Self.readOnlyExport(offset.write(in: directory)) }
        }
        for value: UInt64 in [1 << 63, UInt64.max - 10] {
            var size = HandMadeZip(stored: Self.export)
            size.zip64CompressedSize = value
            #expect(throws: refused, "compressed size \(value)") { try Self.readOnlyExport(size.write(in: directory)) }
        }
    }

    @Test("A ZIP64 record that ZIPFoundation does not take (the end record at byte 76) leaves the 32-bit directory checked")
    func zip64AtTheBoundary() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        // 157 bytes (found by review): a ZIP64 end record at byte 0 giving no entries, its locator,
        // then the end record at byte 76, giving one entry whose directory record, inside the end
        // record's comment, puts its local header at 2⁶³ in a ZIP64 extra field. ZIPFoundation uses a
        // ZIP64 record only when the end record starts after byte 76, so it walks the 32-bit
        // directory, and trapped on that offset while the check walked the empty ZIP64 one.
        let bytes = try #require(
            Data(
                base64Encoded:
                    "UEsGBiwAAAAAAAAALQAtAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABQSwYHAAAAAAAAAAAAAAAAAQAAAFBLBQYAAAAAAQABADsAAABiAAAAOwBQSwECLQAtAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAMAAAAAAAAAAAApAH/////YQEACAAAAAAAAAAAgA=="
            ))
        let path = directory.path("boundary.zip")
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(
            throws: ActivityFileError.unreadableZip(reason: "its directory gives an offset past the end of the file or an impossible size")
        ) { try Self.readOnlyExport(path) }
    }

    @Test("Without an end record in its last 64 KiB a file is refused at once, not searched back to its start")
    func noEndRecord() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        // A zip, then 70,000 bytes of anything: its end record is too far from the end.
        let bytes = HandMadeZip(stored: Self.export).bytes + [UInt8](repeating: 0x20, count: 70_000)
        let path = directory.path("far.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: ActivityFileError.unreadableZip(reason: "it has no end of central directory record in its last 64 KiB")) {
            try Self.readOnlyExport(path)
        }
    }

    @Test("An entry with a data descriptor is read by the directory's size and checksum, whatever the descriptor says")
    func dataDescriptor() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        for lie in [0, 5_000] {
            var zip = HandMadeZip(stored: Self.export)
            zip.dataDescriptor = lie
            let metres = try Self.readOnlyExport(zip.write(in: directory))
            #expect(metres == ["health:Apple Watch": [slot("2023-12-31T23:00:00Z"): 600]], "descriptor \(lie) bytes off")
        }
    }

    /// A raw deflate stream of 249 bytes that inflates to 1,029 (XML-like words, zlib level 1): with
    /// 1 KiB pieces zlib takes its last byte just as the output fills, and ends the stream only on
    /// the next call, with no input left (found by review: the first loop called that damaged).
    static let endsAfterTheLastByte: [UInt8] = Array(
        Data(
            base64Encoded:
                "fVNNC8IwDL37K8Luw3QIvajgTfCkF89jDhSGDtkE/71rWT6WFg8bbZq+95KXFuv9CgGOp/NYP4fH8C2mgMPwr7DalOjKuJGEQ993LVzroblzBi8kLb9UQQ+fuhvbXbG9tM3rfQMF7CgGS25ZpdQzmlMwQDCSxcg+IMtW3crp0DG1DhhUhmjzVhMSjOSAY3GsSE6ZNxCEzxvS6NKMHkV4x6TgGVHdIimc5rOWpkozhyksM9rSbZFiBPllh8+WztCI2gWqBxiajLAS4L/HPCNzuvXMdD6+BozqMNNfpyyWXmvhfpp8pOLS4dGpaiBSpjSyfCsu4tv+Z4l+"
        )!)

    @Test("A deflated entry whose last input byte fills the output is read whole, in any piece size")
    func endsAfterTheLastByte() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let stream = Self.endsAfterTheLastByte
        // What the stream inflates to, in 64 KiB pieces, gives the checksum the zip declares.
        var whole = HandMadeZip(data: stream, method: 8, crc: 0, uncompressedSize: 1_029)
        let probe = try whole.located(in: directory, name: "probe.zip")
        var inflated = Data()
        #expect(throws: ActivityFileError.damagedZipEntry(name: "x", reason: "its checksum does not match its data")) {
            try probe.inflate(bufferSize: 64 * 1024, stop: {}, consumer: { inflated += $0 })
        }
        #expect(inflated.count == 1_029)
        whole.crc = inflated.crc32(checksum: 0)
        let data = try whole.located(in: directory)
        for pieceSize in [1_024, 1_029, 4_096, 64 * 1024] {
            var pieces = Data()
            try data.inflate(bufferSize: pieceSize, stop: {}, consumer: { pieces += $0 })
            #expect(pieces == inflated, "\(pieceSize)-byte pieces")
        }
    }

    @Test("Empty entries, stored and deflated (03 00), inflate to nothing; bytes after a deflate stream's end are left")
    func emptyAndTrailing() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let cases: [(String, HandMadeZip)] = [
            ("stored", HandMadeZip(stored: [])),
            ("deflated", HandMadeZip(data: [0x03, 0x00], method: 8, crc: 0, uncompressedSize: 0)),
            ("deflated, then junk", HandMadeZip(data: [0x03, 0x00, 0xDE, 0xAD, 0xBE, 0xEF], method: 8, crc: 0, uncompressedSize: 0)),
        ]
        for (label, zip) in cases {
            var bytes = 0
            try zip.located(in: directory).inflate(bufferSize: 1_024, stop: {}, consumer: { bytes += $0.count })
            #expect(bytes == 0, "\(label)")
        }
    }

    @Test(
        "Each damaged entry gives its own reason at once, and the inflate ends",
        arguments: [
            ("a deflate stream that never ends", "its compressed data ends before its deflate stream does"),
            ("a checksum that does not match", "its checksum does not match its data"),
            ("a directory declaring more than the file holds", "its compressed data would end past the end of the file"),
            ("an encrypted entry", "it is encrypted"),
            ("bzip2", "compression method 12, neither stored nor deflated"),
        ])
    func damaged(_ damage: String, _ reason: String) throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        var zip = HandMadeZip(stored: Self.export)
        switch damage {
        case "a deflate stream that never ends":
            // A non-final stored block claiming 65,535 bytes, followed by only 12.
            let block = [0x00] + HandMadeZip.le(0xFFFF, 2) + HandMadeZip.le(0, 2) + Array("<HealthData>".utf8)
            zip = HandMadeZip(data: block, method: 8, crc: 0, uncompressedSize: 100_000)
        case "a checksum that does not match": zip.crc ^= 1
        case "a directory declaring more than the file holds": zip.declaredCompressedSize = 1_000_000
        case "an encrypted entry": zip.flags = 1
        default: zip.method = 12
        }
        let path = try zip.write(in: directory)
        let started = Date()
        #expect(throws: ActivityFileError.damagedZipEntry(name: "apple_health_export/export.xml", reason: reason)) {
            try Self.readOnlyExport(path)
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test("A zip replaced while it is read: renamed over, the open file is still read; rewritten in place, a clear error")
    func replaced() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let path = try HandMadeZip(stored: Self.export).write(in: directory)
        var moved = HandMadeZip(stored: Self.export)
        moved.preamble = 3
        let file = try RegularFile.zip(path: path)
        let archive = try Archive(url: URL(fileURLWithPath: file.pathForLibrary(path)), accessMode: .read)
        let entry = try #require(archive["apple_health_export/export.xml"])
        // Renamed over the path: the descriptor still holds the file that was opened.
        try Data(moved.bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        var bytes: [UInt8] = []
        try ZipEntryData.locate(entry, in: file, name: "x").inflate(bufferSize: 1_024, stop: {}, consumer: { bytes += $0 })
        #expect(bytes == Self.export)
        // Rewritten in place: the same file, other bytes.
        let rewritten = try RegularFile.zip(path: path)
        let entry2 = try #require(try Archive(url: URL(fileURLWithPath: rewritten.pathForLibrary(path)), accessMode: .read)[entry.path])
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: [UInt8](repeating: 0x55, count: 8))
        try handle.close()
        #expect(throws: ActivityFileError.damagedZipEntry(name: "x", reason: "no local header where the directory says it starts")) {
            try ZipEntryData.locate(entry2, in: rewritten, name: "x")
        }
        // Not a regular file: refused before anything is read.
        #expect(throws: ActivityFileError.unreadableZip(reason: "not a regular file")) { try RegularFile.zip(path: directory.path(".")) }
    }

    @Test("The inflate asks before every read whether to stop, and ends with what stopping throws")
    func stops() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        struct Stopped: Error {}
        let content = [UInt8](repeating: 0x41, count: 300_000)
        let data = try HandMadeZip(stored: content).located(in: directory)
        var reads = 0
        var bytes = 0
        #expect(throws: Stopped.self) {
            try data.inflate(
                bufferSize: 64 * 1024,
                stop: {
                    reads += 1
                    if reads == 3 { throw Stopped() }
                }, consumer: { bytes += $0.count })
        }
        #expect(reads == 3 && bytes == 2 * 64 * 1024)
        var whole = Data()
        try data.inflate(bufferSize: 64 * 1024, stop: {}, consumer: { whole += $0 })
        #expect([UInt8](whole) == content)
    }
}

@Suite("Zip entry hand-over", .timeLimit(.minutes(10)))
struct ZipEntryPipeTests {
    /// A 1 MB stored entry, located.
    static func megabyte(in directory: TemporaryDirectory) throws -> ZipEntryData {
        try HandMadeZip(stored: [UInt8](repeating: 0x41, count: 1 << 20)).located(in: directory)
    }

    @Test("A reader that stops after 10 bytes of a 1 MB entry stops the helper at once")
    func readerStopsEarly() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let limits = ActivityReaderLimits()
        let pipe = ZipEntryPipe(name: "x", bound: 2 << 20, limits: limits, budget: ArchiveBudget(compressedBytes: 2 << 20, limits: limits))
        pipe.start(try Self.megabyte(in: directory))
        var buffer = [UInt8](repeating: 0, count: 10)
        let count = try buffer.withUnsafeMutableBytes { bytes throws(ActivityFileError) in try pipe.read(into: bytes) }
        #expect(count == 10 && buffer == [UInt8](repeating: 0x41, count: 10))
        let started = Date()
        pipe.stopAndWait()
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test("The helper's failure reaches a reader waiting for bytes: past the entry's bound")
    func helperFails() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let limits = ActivityReaderLimits()
        let pipe = ZipEntryPipe(name: "x", bound: 100_000, limits: limits, budget: ArchiveBudget(compressedBytes: 2 << 20, limits: limits))
        pipe.start(try Self.megabyte(in: directory))
        defer { pipe.stopAndWait() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var read = 0
        #expect(throws: ActivityFileError.zipEntryTooLarge(name: "x", limit: limits.maxZipEntryBytes, ratio: limits.maxCompressionRatio)) {
            while true {
                let count = try buffer.withUnsafeMutableBytes { bytes throws(ActivityFileError) in try pipe.read(into: bytes) }
                if count == 0 { break }
                read += count
            }
        }
        #expect(read < 100_000)
    }
}
