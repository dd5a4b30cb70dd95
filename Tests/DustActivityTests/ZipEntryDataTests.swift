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
    /// The directory gives the local header's offset in a ZIP64 extra field (0xFFFFFFFF in its own).
    var zip64Offset = false
    /// Bytes before the local header (a self-extractor's stub, say).
    var preamble = 0

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

    var bytes: [UInt8] {
        let le = Self.le
        let name = Array(self.name.utf8)
        let compressed = declaredCompressedSize ?? data.count
        let local =
            le(0x0403_4B50, 4) + le(20, 2) + le(flags, 2) + le(method, 2) + le(0, 4) + le(Int(crc), 4)
            + le(compressed, 4) + le(uncompressedSize, 4) + le(name.count, 2) + le(0, 2) + name
        let extra = zip64Offset ? le(1, 2) + le(8, 2) + le(preamble, 8) : []
        let central =
            le(0x0201_4B50, 4) + le(zip64Offset ? 45 : 20, 2) + le(zip64Offset ? 45 : 20, 2) + le(0, 2)
            + le(method, 2) + le(0, 4) + le(Int(crc), 4) + le(compressed, 4) + le(uncompressedSize, 4)
            + le(name.count, 2) + le(extra.count, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0o644 << 16, 4)
            + le(zip64Offset ? 0xFFFF_FFFF : preamble, 4) + name + extra
        let end =
            le(0x0605_4B50, 4) + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) + le(central.count, 4)
            + le(preamble + local.count + data.count, 4) + le(0, 2)
        return [UInt8](repeating: 0, count: preamble) + local + data + central + end
    }

    func write(in directory: TemporaryDirectory, name: String = "hand.zip") throws -> String {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

@Suite("Zip entry data")
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
        // The extra field parsed alone: the offset after the two sizes the directory left at 0xFFFFFFFF.
        let archive = try Archive(url: URL(fileURLWithPath: zip.write(in: directory)), accessMode: .read)
        let entry = try #require(archive["apple_health_export/export.xml"])
        let field =
            HandMadeZip.le(0x9901, 2) + HandMadeZip.le(2, 2) + [0, 0] + HandMadeZip.le(1, 2) + HandMadeZip.le(8, 2)
            + HandMadeZip.le(123_456_789_012, 8)
        #expect(ZipEntryData.zip64Offset(extra: field, entry: entry) == 123_456_789_012)
        #expect(ZipEntryData.zip64Offset(extra: HandMadeZip.le(1, 2) + HandMadeZip.le(8, 2) + [1, 2, 3], entry: entry) == nil)
    }

    @Test(
        "Each damaged entry gives its own reason at once, and the inflate ends",
        arguments: [
            ("a deflate stream that never ends", "its compressed data ends before its deflate stream does"),
            ("a checksum that does not match", "its checksum does not match its data"),
            ("a file cut off inside the entry", "the file ends inside its compressed data"),
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
        case "a file cut off inside the entry": zip.declaredCompressedSize = 1_000_000
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

    @Test("A zip replaced after its directory was read: no local header where the directory said, and nothing read")
    func replaced() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        let path = try HandMadeZip(stored: Self.export).write(in: directory)
        let entry = try #require(try Archive(url: URL(fileURLWithPath: path), accessMode: .read)["apple_health_export/export.xml"])
        var moved = HandMadeZip(stored: Self.export)
        moved.preamble = 3
        _ = try moved.write(in: directory)
        #expect(throws: ActivityFileError.damagedZipEntry(name: "x", reason: "no local header where the directory says it starts")) {
            try ZipEntryData.locate(entry, in: path, name: "x")
        }
    }

    @Test("The inflate asks before every read whether to stop, and ends with what stopping throws")
    func stops() throws {
        let directory = try TemporaryDirectory("finedust-zipdata")
        defer { directory.remove() }
        struct Stopped: Error {}
        let content = [UInt8](repeating: 0x41, count: 300_000)
        let path = try HandMadeZip(stored: content).write(in: directory)
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        let entry = try #require(archive["apple_health_export/export.xml"])
        let data = try ZipEntryData.locate(entry, in: path, name: entry.path)
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
