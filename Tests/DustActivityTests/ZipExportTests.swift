import DustKit
import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import DustActivity

/// Reads every entry FineDust reads from a zip, as the import does: samples per source and slot.
func readZip(
    _ path: String, limits: ActivityReaderLimits = ActivityReaderLimits()
) throws(ActivityFileError) -> (metres: [String: [Slot: Double]], health: HealthExportSummary, routes: [GPXSummary]) {
    let archive = try HealthExportArchive(path: path, limits: limits)
    var apportioner = SlotApportioner()
    let health = try archive.read(archive.export) { source throws(ActivityFileError) in
        try HealthExportReader(limits: limits, now: Date()).read(source) { apportioner.add($0) }
    }
    var routes: [GPXSummary] = []
    for route in archive.routes {
        routes.append(
            try archive.read(route) { source throws(ActivityFileError) in
                try GPXReader(limits: limits, now: Date()).read(source, fileName: String(route.path.split(separator: "/").last!)) {
                    apportioner.add($0)
                }
            })
    }
    return (apportioner.metresBySource, health, routes)
}

/// 0.01° of latitude on FineDust's sphere: R × 0.01 × π / 180 m.
let hundredthDegree = 6_371_008.8 * 0.01 * Double.pi / 180

@Suite("export.zip", .timeLimit(.minutes(10)))
struct ZipExportTests {
    @Test("A Hangul name in UTF-8 without the zip's UTF-8 flag (macOS and Windows re-zips) is read as UTF-8, not as code page 437")
    func utf8NameWithoutFlag() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let xml = healthExport(distanceRecord(value: "1", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:10:00 +0900"))
        let route = "apple_health_export/workout-routes/route_2024-01-01_산책 08.00.gpx"
        let path = try makeZip(
            [("apple_health_export/내보내기.xml", Array(xml.utf8)), (route, Array("<gpx><trk><trkseg></trkseg></trk></gpx>".utf8))],
            in: directory)
        // Bit 11 of the general purpose flag cleared in every local header (offset 6) and central directory entry (offset 8).
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var cleared = 0
        for index in 0..<(bytes.count - 10) where bytes[index] == 0x50 && bytes[index + 1] == 0x4B {
            let flag =
                bytes[index + 2] == 3 && bytes[index + 3] == 4
                ? index + 6 : bytes[index + 2] == 1 && bytes[index + 3] == 2 ? index + 8 : nil
            if let flag {
                bytes[flag + 1] &= ~0x08
                cleared += 1
            }
        }
        #expect(cleared == 4)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let archive = try HealthExportArchive(path: path, limits: ActivityReaderLimits())
        #expect(archive.export.path == "apple_health_export/내보내기.xml")
        #expect(archive.routes.map(\.path) == [route])
    }

    @Test("Two entries of one name (two export.xml, or a route twice) are refused: which one is meant cannot be told")
    func duplicateEntryNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let export = Array(healthExport("").utf8)
        let twice = try makeZip(
            [("apple_health_export/export.xml", export), ("apple_health_export/export.xml", export)], in: directory, name: "twice.zip")
        #expect(throws: ActivityFileError.duplicateZipEntry(name: "apple_health_export/export.xml")) { try readZip(twice) }
        let route = Array("<gpx><trk><trkseg></trkseg></trk></gpx>".utf8)
        let routeTwice = try makeZip(
            [
                ("apple_health_export/export.xml", export), ("apple_health_export/workout-routes/a.gpx", route),
                ("apple_health_export/workout-routes/a.gpx", route),
            ], in: directory, name: "routes.zip")
        #expect(throws: ActivityFileError.duplicateZipEntry(name: "apple_health_export/workout-routes/a.gpx")) { try readZip(routeTwice) }
        // A file FineDust never reads may repeat.
        let otherTwice = try makeZip(
            [
                ("apple_health_export/export.xml", export), ("apple_health_export/electrocardiograms/ecg.csv", Array("a\n".utf8)),
                ("apple_health_export/electrocardiograms/ecg.csv", Array("b\n".utf8)),
            ], in: directory, name: "other.zip")
        #expect(throws: Never.self) { try readZip(otherTwice) }
    }

    @Test("A zip with more workout routes than the limit is refused before any is read, naming the limit (issue 36, W5)")
    func tooManyRoutes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let route = Array("<gpx><trk><trkseg></trkseg></trk></gpx>".utf8)
        let entries =
            [("apple_health_export/export.xml", Array(healthExport("").utf8))]
            + (0..<12).map { ("apple_health_export/workout-routes/route_\($0).gpx", route) }
        let path = try makeZip(entries, in: directory)
        var limits = ActivityReaderLimits()
        limits.maxWorkoutRoutes = 10
        #expect(throws: ActivityFileError.tooManyWorkoutRoutes(limit: 10)) { try readZip(path, limits: limits) }
        limits.maxWorkoutRoutes = 12
        #expect(try readZip(path, limits: limits).routes.count == 12)
        #expect(ActivityReaderLimits().maxWorkoutRoutes == 20_000)
    }

    @Test("A zip of more entries than the limit is refused from its directory, before ZIPFoundation lists them; at the limit it is read")
    func tooManyEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let entries =
            [("apple_health_export/export.xml", Array(healthExport("").utf8))]
            + (0..<7).map { ("apple_health_export/electrocardiograms/ecg_\($0).csv", Array("a\n".utf8)) }
        let path = try makeZip(entries, in: directory)
        var limits = ActivityReaderLimits()
        limits.maxZipEntries = 7
        #expect(throws: ActivityFileError.tooManyZipEntries(limit: 7)) {
            try ZipDirectoryCheck.check(RegularFile.zip(path: path), maxEntries: 7)
        }
        #expect(throws: ActivityFileError.tooManyZipEntries(limit: 7)) { try readZip(path, limits: limits) }
        limits.maxZipEntries = 8
        #expect(throws: Never.self) { try ZipDirectoryCheck.check(RegularFile.zip(path: path), maxEntries: 8) }
        #expect(try readZip(path, limits: limits).health.distanceRecords == 0)
        #expect(ActivityReaderLimits().maxZipEntries == 200_000)
    }

    @Test("The generated export.zip: export.xml and its workout route read without unpacking, hand-computed per source and slot")
    func generatedExport() throws {
        let path = TestFixtures.url("activity/generated/export.zip").path
        let (metres, health, routes) = try readZip(path)
        let noon = slot("2026-11-20T03:00:00Z")  // 12:00 KST
        let one = slot("2026-11-20T04:00:00Z")
        let two = slot("2026-11-20T05:00:00Z")
        #expect(metres["health:Apple Watch"] == [noon: 2400, one: 600, two: 600])
        let iPhone = try #require(metres["health:iPhone"])
        #expect(abs(iPhone[noon]! - 1.25 * 1609.344) < 1e-9)  // 2011.68 m
        #expect(abs(iPhone[one]! - 3280.84 * 0.3048) < 1e-9)  // -0500 offset: 13:40 KST, 1000.000032 m
        let route = try #require(metres["gpx:route_2026-11-20_12.10pm.gpx"])
        #expect(abs(route[noon]! - 3 * hundredthDegree) < 1e-6)  // 3335.85 m
        #expect(health.distanceRecords == 4)
        #expect(
            health.skippedRecordsByType == [
                "HKQuantityTypeIdentifierStepCount": 1, "HKQuantityTypeIdentifierHeartRate": 1,
                "HKQuantityTypeIdentifierActiveEnergyBurned": 1,
            ])
        #expect(health.workoutRoutePaths == ["/workout-routes/route_2026-11-20_12.10pm.gpx"])
        #expect(routes.map(\.steps) == [3])
        // Three sources in the noon slot, each kept whole for the store to take the largest (the route's 3335.85 m).
        #expect(metres.values.filter { $0[noon] != nil }.count == 3)
    }

    @Test("Bytes of a zip are inflated piece by piece: 20,000 records in a 64 KiB-bounded hand-over land in their hours")
    func manyRecords() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        // Records of 100 m each, one every 3 minutes from 2024-01-01 00:00 +0900: 20 per hour.
        var body = ""
        for index in 0..<20_000 {
            let start = Date(timeIntervalSince1970: 1_704_034_800 + Double(index) * 180)
            body +=
                distanceRecord(
                    unit: "m", value: "100", start: ActivityTestTime.health(start),
                    end: ActivityTestTime.health(start.addingTimeInterval(180))) + "\n"
        }
        let path = try makeZip([("apple_health_export/export.xml", Array(healthExport(body).utf8))], in: directory)
        let (metres, health, _) = try readZip(path)
        #expect(health.distanceRecords == 20_000)
        let watch = try #require(metres["health:Apple Watch"])
        #expect(watch.count == 1000)
        #expect(watch.values.allSatisfy { $0 == 2000 })
    }

    @Test("A zip bomb is refused by the size its directory declares: 40 MB of records in a few KB")
    func declaredBomb() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let record = distanceRecord(unit: "m", value: "100", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:00:00 +0900") + "\n"
        let xml = healthExport(String(repeating: record, count: 40_000_000 / record.utf8.count))
        let path = try makeZip([("apple_health_export/export.xml", Array(xml.utf8))], in: directory)
        let compressed = try #require(try Archive(url: URL(fileURLWithPath: path), accessMode: .read)["apple_health_export/export.xml"])
            .compressedSize
        #expect(compressed * 200 < 40_000_000, "the test's bomb must compress more than 200:1")
        #expect(throws: ActivityFileError.zipEntryTooLarge(name: "apple_health_export/export.xml", limit: 32 << 30, ratio: 200)) {
            try readZip(path)
        }
        // An absolute bound below the entry's size refuses it too, whatever the ratio.
        #expect(throws: ActivityFileError.zipEntryTooLarge(name: "apple_health_export/export.xml", limit: 1 << 20, ratio: 100_000)) {
            try readZip(path, limits: ActivityReaderLimits(maxZipEntryBytes: 1 << 20, maxCompressionRatio: 100_000))
        }
    }

    @Test("A zip bomb whose directory lies about its size is stopped while inflating, within a piece of the bound")
    func lyingBomb() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let record = distanceRecord(unit: "m", value: "100", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:00:00 +0900") + "\n"
        let xml = healthExport(String(repeating: record, count: 20_000_000 / record.utf8.count))
        let path = try makeZip([("apple_health_export/export.xml", Array(xml.utf8))], in: directory)
        // Claim 1,000 bytes uncompressed in the local header and the central directory.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var patched = 0
        for index in 0..<(bytes.count - 4) {
            if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x03, bytes[index + 3] == 0x04 {
                bytes.replaceSubrange((index + 22)..<(index + 26), with: [0xE8, 0x03, 0, 0])
                patched += 1
            } else if bytes[index] == 0x50, bytes[index + 1] == 0x4B, bytes[index + 2] == 0x01, bytes[index + 3] == 0x02 {
                bytes.replaceSubrange((index + 24)..<(index + 28), with: [0xE8, 0x03, 0, 0])
                patched += 1
            }
        }
        #expect(patched == 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // The whole archive's ratio (100 by default) stops it first; lifted, the entry's own bound does.
        #expect(throws: ActivityFileError.zipEntryTooLarge(name: "apple_health_export/export.xml", limit: 32 << 30, ratio: 200)) {
            try readZip(path, limits: ActivityReaderLimits(maxArchiveCompressionRatio: 400))
        }
        #expect(throws: ActivityFileError.zipArchiveTooLarge(.compressionRatio(100))) { try readZip(path) }
    }

    @Test(
        "An entry named ../../x is refused before anything is read, and nothing is written anywhere",
        arguments: [
            "../../x", "apple_health_export/../../x", "/etc/x", "apple_health_export\\..\\x",
            // A slash or dot followed by a combining mark is one character that is neither; a file system reads bytes.
            "/\u{301}etc/x", "../\u{301}x", "C:\u{301}/x",
        ])
    func climbingEntry(name: String) throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let xml = healthExport(distanceRecord(value: "1", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:10:00 +0900"))
        let path = try makeZip([("apple_health_export/export.xml", Array(xml.utf8)), (name, Array("x".utf8))], in: directory)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(throws: ActivityFileError.unsafeZipEntry(name: name)) { try readZip(path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == before)
        #expect(
            !FileManager.default.fileExists(
                atPath: directory.url.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("x").path))
    }

    @Test("An unsafe entry's name is shown short: a character of 2,000 combining marks is left out of the error")
    func combiningMarksInEntryName() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let xml = healthExport(distanceRecord(value: "1", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:10:00 +0900"))
        let name = "../e" + String(repeating: "\u{0301}", count: 2_000)
        let path = try makeZip([("apple_health_export/export.xml", Array(xml.utf8)), (name, Array("x".utf8))], in: directory)
        #expect(throws: ActivityFileError.unsafeZipEntry(name: "../")) { try readZip(path) }
    }

    @Test("A truncated zip is a clear error, whatever the cut")
    func truncated() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let bytes = try TestFixtures.data("activity/generated/export.zip")
        for cut in [bytes.count / 2, bytes.count - 10, 30] {
            let path = directory.path("cut-\(cut).zip")
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            #expect {
                try readZip(path)
            } throws: { error in
                guard case .unreadableZip = error as? ActivityFileError else { return false }
                return true
            }
        }
    }

    @Test("A damaged entry (bytes flipped in its deflated data) fails its checksum or its inflate, never reads as data")
    func damagedEntry() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        var records = ""
        for minute in 0..<600 {
            let start = ActivityTestTime.health(Date(timeIntervalSince1970: 1_704_034_800 + Double(minute) * 60))
            records += distanceRecord(unit: "m", value: "\(minute)", start: start, end: start) + "\n"
        }
        let path = try makeZip([("apple_health_export/export.xml", Array(healthExport(records).utf8))], in: directory)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for offset in 200..<210 { bytes[offset] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect {
            try readZip(path)
        } throws: { error in
            switch error as? ActivityFileError {
            case .damagedZipEntry, .malformedXML, .invalidRecord: true
            default: false
            }
        }
    }

    @Test("Hostile export.xml inside a zip: <!ENTITY, an external DTD, a 10 MB attribute — each its typed error")
    func hostileXMLInZip() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let entity = healthExport("", subset: appleSubset + "\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">")
        let entityZip = try makeZip([("apple_health_export/export.xml", Array(entity.utf8))], in: directory, name: "entity.zip")
        #expect(throws: ActivityFileError.entityInDocumentType(line: lineNumber(of: "<!ENTITY", in: entity))) { try readZip(entityZip) }
        // Beside Apple's clinical document, the one candidate that could not be read still names its error.
        let besideCDA = try makeZip(
            [
                ("apple_health_export/export.xml", Array(entity.utf8)),
                ("apple_health_export/export_cda.xml", Array("<ClinicalDocument/>".utf8)),
            ], in: directory, name: "cda.zip")
        #expect(throws: ActivityFileError.entityInDocumentType(line: lineNumber(of: "<!ENTITY", in: entity))) { try readZip(besideCDA) }

        let external = "<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData SYSTEM \"http://example.com/health.dtd\">\n<HealthData/>\n"
        let externalZip = try makeZip([("apple_health_export/export.xml", Array(external.utf8))], in: directory, name: "external.zip")
        #expect(throws: ActivityFileError.externalIdentifier(line: 2)) { try readZip(externalZip) }

        // 10 MB of letters that do not repeat (they deflate about 1.6:1, so no bomb bound applies).
        var state: UInt64 = 12
        var huge = [UInt8](repeating: 0, count: 10_000_000)
        for index in huge.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            huge[index] = UInt8(ascii: "a") + UInt8((state >> 33) % 26)
        }
        let prefix = healthExport("<Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"", subset: appleSubset)
        let split = prefix.range(of: "sourceName=\"")!.upperBound
        var xml = Array(prefix[..<split].utf8)
        xml += huge
        xml += Array("\"/>\n</HealthData>\n".utf8)
        let hugeZip = try makeZip([("apple_health_export/export.xml", xml)], in: directory, name: "huge.zip")
        #expect(throws: ActivityFileError.attributeTooLong(line: lineNumber(of: "<Record", in: prefix), limit: 1 << 20)) {
            try readZip(hugeZip)
        }
    }

    @Test("A zip without apple_health_export/export.xml says what it expected; one renamed top folder is still read")
    func noExport() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let path = try makeZip([("photos/cat.jpg", [0xFF, 0xD8, 0xFF])], in: directory)
        #expect(throws: ActivityFileError.noHealthExportInZip) { try readZip(path) }
        let xml = healthExport(
            distanceRecord(unit: "m", value: "700", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:10:00 +0900"))
        let gpx =
            "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"37.5\" lon=\"127\"><time>2023-12-31T23:00:00Z</time></trkpt>"
            + "<trkpt lat=\"37.51\" lon=\"127\"><time>2023-12-31T23:10:00Z</time></trkpt></trkseg></trk></gpx>"
        let renamed = try makeZip(
            [("건강 내보내기/export.xml", Array(xml.utf8)), ("건강 내보내기/workout-routes/route.gpx", Array(gpx.utf8))],
            in: directory, name: "renamed.zip")
        let (metres, _, routes) = try readZip(renamed)
        #expect(metres["health:Apple Watch"] == [slot("2023-12-31T23:00:00Z"): 700])
        #expect(routes.map(\.steps) == [1])
        #expect(abs(metres["gpx:route.gpx"]![slot("2023-12-31T23:00:00Z")]! - hundredthDegree) < 1e-6)
        let two = try makeZip([("a/export.xml", Array(xml.utf8)), ("b/export.xml", Array(xml.utf8))], in: directory, name: "two.zip")
        #expect(throws: ActivityFileError.severalHealthExports(names: ["a/export.xml", "b/export.xml"])) { try readZip(two) }
    }

    @Test("Formats are told from content: zip, HealthData, gpx (any prefix), the CSV header; anything else is refused")
    func sniffing() throws {
        #expect(try ActivityFileFormat.sniff([UInt8](try TestFixtures.data("activity/generated/export.zip"))) == .healthZip)
        #expect(try ActivityFileFormat.sniff([UInt8](try TestFixtures.data("activity/generated/export.xml"))) == .healthXML)
        #expect(try ActivityFileFormat.sniff([UInt8](try TestFixtures.data("activity/generated/route-strava-evening.gpx"))) == .gpx)
        #expect(
            try ActivityFileFormat.sniff(Array("<?xml version=\"1.0\"?>\n<g:gpx xmlns:g=\"http://www.topografix.com/GPX/1/0\"/>".utf8))
                == .gpx)
        #expect(try ActivityFileFormat.sniff(Array("\u{FEFF}start, distance_m\r\n2026-11-20 08:00,100\n".utf8)) == .csv)
        #expect(throws: ActivityFileError.unrecognizedFormat) { try ActivityFileFormat.sniff(Array("date,steps\n".utf8)) }
        #expect(throws: ActivityFileError.unrecognizedFormat) { try ActivityFileFormat.sniff(Array("<kml/>".utf8)) }
        #expect(throws: ActivityFileError.unrecognizedFormat) { try ActivityFileFormat.sniff([]) }
        #expect(throws: ActivityFileError.entityInDocumentType(line: 2)) {
            try ActivityFileFormat.sniff(Array("<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [<!ENTITY a \"b\">]>\n<HealthData/>".utf8))
        }
    }
}

/// Health's date format for a UTC instant written in +0900.
enum ActivityTestTime {
    static func health(_ instant: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 9 * 3600)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter.string(from: instant)
    }
}

/// A route of `points` points standing still: text that deflates more than 500:1.
private func stillRoute(points: Int) -> [UInt8] {
    let point = "<trkpt lat=\"37.5665\" lon=\"126.978\"><ele>38.0</ele><time>2024-01-01T08:20:00Z</time></trkpt>\n"
    return Array(("<gpx version=\"1.1\"><trk><trkseg>\n" + String(repeating: point, count: points) + "</trkseg></trk></gpx>\n").utf8)
}

/// The export's records, in a zip of whatever layout a phone or a person gave it.
private let oneRecordExport = healthExport(
    distanceRecord(unit: "m", value: "700", start: "2024-01-01 08:00:00 +0900", end: "2024-01-01 08:10:00 +0900"))
private let oneStepRoute =
    "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"37.5\" lon=\"127\"><time>2023-12-31T23:00:00Z</time></trkpt>"
    + "<trkpt lat=\"37.51\" lon=\"127\"><time>2023-12-31T23:10:00Z</time></trkpt></trkseg></trk></gpx>"
/// Apple's clinical document, the other .xml beside the export: not a Health export.
private let clinicalDocument =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ClinicalDocument xmlns=\"urn:hl7-org:v3\">\n</ClinicalDocument>\n"

extension ZipExportTests {
    @Test(
        "The export is found by its content: Spanish exportar.xml, Norwegian eksport.xml, export.xml at the root, each beside export_cda.xml",
        arguments: [
            ("apple_health_export/", "exportar.xml"), ("apple_health_export/", "eksport.xml"), ("", "export.xml"), ("", "my health.XML"),
        ])
    func localisedExport(folder: String, name: String) throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let cda = folder + (name.hasPrefix("export") ? "export_cda.xml" : String(name.dropLast(4)) + "_cda.xml")
        let path = try makeZip(
            [
                (cda, Array(clinicalDocument.utf8)), (folder + name, Array(oneRecordExport.utf8)),
                (folder + "workout-routes/route.gpx", Array(oneStepRoute.utf8)),
            ], in: directory)
        let archive = try HealthExportArchive(path: path)
        #expect(archive.export.path == folder + name)
        #expect(archive.routes.map(\.path) == [folder + "workout-routes/route.gpx"])
        let (metres, health, routes) = try readZip(path)
        #expect(health.distanceRecords == 1)
        #expect(metres["health:Apple Watch"] == [slot("2023-12-31T23:00:00Z"): 700])
        #expect(routes.map(\.steps) == [1])
    }

    @Test("Two Health exports in one zip are an error naming both; a HealthData file among the routes is no candidate")
    func twoExports() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let two = try makeZip(
            [("apple_health_export/exportar.xml", Array(oneRecordExport.utf8)), ("export.xml", Array(oneRecordExport.utf8))],
            in: directory, name: "two.zip")
        #expect(throws: ActivityFileError.severalHealthExports(names: ["apple_health_export/exportar.xml", "export.xml"])) {
            try readZip(two)
        }
        #expect(
            ActivityFileError.severalHealthExports(names: ["apple_health_export/exportar.xml", "export.xml"]).description
                .hasPrefix("the zip holds more than one Health export (\"apple_health_export/exportar.xml\" and \"export.xml\")"))
        // Deeper than one folder, or under workout-routes/, an XML file is never taken for the export.
        let routes = try makeZip(
            [
                ("apple_health_export/workout-routes/export.xml", Array(oneRecordExport.utf8)),
                ("a/b/export.xml", Array(oneRecordExport.utf8)),
            ], in: directory, name: "routes.zip")
        #expect(throws: ActivityFileError.noHealthExportInZip) { try readZip(routes) }
    }

    @Test("Finding the export inflates only the start of each candidate: a 4 MB export_cda.xml costs under 1 MB of a 1.5 MB archive budget")
    func peeksOnlyTheStart() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let filler = String(repeating: " <component><section><text>Nothing to see here.</text></section></component>\n", count: 55_000)
        let cda = clinicalDocument.replacingOccurrences(of: "</ClinicalDocument>", with: filler + "</ClinicalDocument>")
        #expect(cda.utf8.count > 4_000_000)
        let path = try makeZip(
            [
                ("apple_health_export/export_cda.xml", Array(cda.utf8)),
                ("apple_health_export/export.xml", Array(oneRecordExport.utf8)),
            ], in: directory)
        let limits = ActivityReaderLimits(maxArchiveInflatedBytes: 1_500_000, maxArchiveCompressionRatio: 1_000_000)
        let (metres, _, _) = try readZip(path, limits: limits)
        #expect(metres["health:Apple Watch"] == [slot("2023-12-31T23:00:00Z"): 700])
    }

    @Test(
        "3,000-route bombs in small: 40 routes, each inside its own 1 MiB allowance, break the archive's ratio or byte budget, and the error says which"
    )
    func archiveBudget() throws {
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let route = stillRoute(points: 3_000)  // 276,055 bytes each, 11.04 MB in all
        var entries = [("apple_health_export/export.xml", Array(oneRecordExport.utf8))]
        for index in 0..<40 { entries.append(("apple_health_export/workout-routes/route_\(index).gpx", route)) }
        #expect(route.count == 276_055)
        let path = try makeZip(entries, in: directory)
        let zipBytes = Int64(try Data(contentsOf: URL(fileURLWithPath: path)).count)
        // Every entry passes its own checks (under 200 times its size, or within 1 MiB)...
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        #expect(archive.allSatisfy { Int64($0.uncompressedSize) <= 1 << 20 })
        // ...but 40 × 276 KB is more than 100 times the whole zip, plus one 1 MiB allowance.
        let inflated = Int64(oneRecordExport.utf8.count + 40 * route.count)
        #expect(inflated > 100 * zipBytes + (1 << 20), "the test's zip must inflate more than 100:1 in all (\(zipBytes) bytes)")
        #expect(throws: ActivityFileError.zipArchiveTooLarge(.compressionRatio(100))) { try readZip(path) }
        // The byte budget (activity.maxInflatedBytes) is the other bound: 5 MB here, the ratio lifted.
        let bytes = ActivityReaderLimits(maxArchiveInflatedBytes: 5_000_000, maxArchiveCompressionRatio: 100_000)
        #expect(throws: ActivityFileError.zipArchiveTooLarge(.inflatedBytes(5_000_000))) { try readZip(path, limits: bytes) }
        #expect(
            ActivityFileError.zipArchiveTooLarge(.inflatedBytes(64 << 30)).description.contains(
                "more than 64 GiB together, the limit activity.maxInflatedBytes sets"))
        #expect(
            ActivityFileError.zipArchiveTooLarge(.compressionRatio(100)).description.contains(
                "more than 100 times the zip's compressed size"))
        // With both bounds above it, the same zip is read: 40 routes standing still.
        let roomy = ActivityReaderLimits(maxArchiveInflatedBytes: 12_000_000, maxArchiveCompressionRatio: 100_000)
        #expect(try readZip(path, limits: roomy).routes.count == 40)
    }

    @Test("Entries whose directory understates their size are held to the archive's budget as they inflate, across entries")
    func budgetWhileInflating() throws {
        let budget = ArchiveBudget(
            compressedBytes: 10_000, limits: ActivityReaderLimits(zipRatioAllowance: 1_000, maxArchiveCompressionRatio: 100))
        // 100 × 10,000 + 1,000 = 1,001,000 bytes, over any number of entries.
        for _ in 0..<10 { try budget.add(100_000) }
        try budget.add(1_000)
        #expect(throws: ActivityFileError.zipArchiveTooLarge(.compressionRatio(100))) { try budget.add(1) }
        let small = ArchiveBudget(compressedBytes: 10_000, limits: ActivityReaderLimits(maxArchiveInflatedBytes: 50_000))
        try small.add(50_000)
        #expect(throws: ActivityFileError.zipArchiveTooLarge(.inflatedBytes(50_000))) { try small.add(1) }
    }
}
