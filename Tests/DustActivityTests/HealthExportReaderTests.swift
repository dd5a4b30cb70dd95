import DustActivity
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("HealthExportReader", .timeLimit(.minutes(10)))
struct HealthExportReaderTests {
    @Test("The fixture export: two distance records, three skipped by type, one workout route, 800 m at 08:00 KST")
    func fixture() throws {
        let path = TestFixtures.url("activity/health-export-small.xml").path
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var samples: [DistanceSample] = []
        var progress: [Int64] = []
        let summary = try HealthExportReader(now: Date()).read(
            FileDescriptorByteStream(fileDescriptor: descriptor),
            onProgress: { progress.append($0) },
            onSample: { samples.append($0) }
        )
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(summary.bytesRead == Int64(size))
        #expect(progress.last == Int64(size))
        #expect(summary.distanceRecords == 2)
        // Records inside the Correlation repeat top-level ones and are not counted.
        #expect(summary.skippedRecordsByType == ["HKQuantityTypeIdentifierStepCount": 2, "HKQuantityTypeIdentifierHeartRate": 1])
        #expect(summary.workoutRoutePaths == ["/workout-routes/route_2024-01-01_8.20am.gpx"])
        let start = instant("2023-12-31T23:20:00Z")
        let end = instant("2023-12-31T23:30:00Z")
        #expect(
            samples == [
                DistanceSample(source: "health:iPhone", start: start, end: end, metres: 650),
                DistanceSample(source: "health:Apple Watch", start: start, end: end, metres: 800),
            ])
        var apportioner = SlotApportioner()
        for item in samples { apportioner.add(item) }
        let eleven = slot("2023-12-31T23:00:00Z")
        #expect(apportioner.metresBySource == ["health:iPhone": [eleven: 650], "health:Apple Watch": [eleven: 800]])
    }

    @Test("Read one byte at a time, the export gives the same samples and summary")
    func oneByteAtATime() throws {
        let xml = try String(contentsOf: TestFixtures.url("activity/health-export-small.xml"), encoding: .utf8)
        let whole = try readHealth(xml)
        let bytewise = try readHealth(xml, chunkSize: 1)
        #expect(bytewise.samples == whole.samples)
        #expect(bytewise.summary == whole.summary)
    }

    @Test("Dates with +0900 and -0500 are absolute instants: 08:20 +0900 is 23:20Z the day before, 08:20 -0500 is 13:20Z")
    func offsets() throws {
        let xml = healthExport(
            distanceRecord(value: "0.5", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
                + distanceRecord(value: "0.5", start: "2024-01-01 08:20:00 -0500", end: "2024-01-01 08:30:00 -0500"))
        let samples = try readHealth(xml).samples
        #expect(samples.map(\.start.timeIntervalSince1970) == [1_704_064_800, 1_704_115_200])
        #expect(samples.map(\.end.timeIntervalSince1970) == [1_704_065_400, 1_704_115_800])
        #expect(samples.map(\.start) == [instant("2023-12-31T23:20:00Z"), instant("2024-01-01T13:20:00Z")])
    }

    @Test("A leap second ends a UTC day (2017-01-01 08:59:60 +0900) and is the next day's first instant; 08:58:60 is a damaged date")
    func leapSecond() throws {
        let leap = healthExport(distanceRecord(value: "0.5", start: "2017-01-01 08:50:00 +0900", end: "2017-01-01 08:59:60 +0900"))
        #expect(try readHealth(leap).samples.map(\.end) == [instant("2017-01-01T00:00:00Z")])
        let damaged = healthExport(distanceRecord(value: "0.5", start: "2017-01-01 08:50:00 +0900", end: "2017-01-01 08:58:60 +0900"))
        do {
            _ = try readHealth(damaged)
            Issue.record("08:58:60 was read as a time")
        } catch {
            #expect("\(error)".contains("startDate or endDate not of the form"), "\(error)")
        }
    }

    @Test("Miles, feet, metres and kilometres become metres: 1.5 mi = 2,414.016 m, 1,000 ft = 304.8 m")
    func units() throws {
        let times = (start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
        let xml = healthExport(
            distanceRecord(unit: "mi", value: "1.5", start: times.start, end: times.end)
                + distanceRecord(unit: "ft", value: "1000", start: times.start, end: times.end)
                + distanceRecord(unit: "m", value: "412", start: times.start, end: times.end)
                + distanceRecord(unit: "km", value: "0.25", start: times.start, end: times.end))
        let metres = try readHealth(xml).samples.map(\.metres)
        #expect(metres.count == 4)
        #expect(abs(metres[0] - 2414.016) < 1e-9)
        #expect(abs(metres[1] - 304.8) < 1e-9)
        #expect(metres[2] == 412 && metres[3] == 250)
    }

    @Test("Overlapping iPhone and Watch records: each slot takes the larger source, never the sum")
    func overlappingSources() throws {
        // iPhone 1,200 m 08:40–09:20 KST: 600 m in each hour. Watch 900 m 08:45–09:00: all in the first.
        let xml = healthExport(
            distanceRecord(source: "iPhone", value: "1.2", start: "2024-01-01 08:40:00 +0900", end: "2024-01-01 09:20:00 +0900")
                + distanceRecord(source: "Apple Watch", value: "0.9", start: "2024-01-01 08:45:00 +0900", end: "2024-01-01 09:00:00 +0900"))
        var apportioner = SlotApportioner()
        for item in try readHealth(xml).samples { apportioner.add(item) }
        let eight = slot("2023-12-31T23:00:00Z")
        let nine = slot("2024-01-01T00:00:00Z")
        #expect(apportioner.metresBySource == ["health:iPhone": [eight: 600, nine: 600], "health:Apple Watch": [eight: 900]])
    }

    @Test("Apple's iOS 16 subset, which is not well-formed (an unclosed ATTLIST, stray lines), is still read")
    func brokenAppleSubset() throws {
        let subset =
            appleSubset + """
                <!ATTLIST VisionPrescription
                  type             CDATA #REQUIRED
                  brand            CDATA #IMPLIED
                <!ELEMENT RightEye EMPTY>
                  device           CDATA #IMPLIED
                <!ELEMENT MetadataEntry EMPTY>
                >
                """
        let xml = healthExport(
            distanceRecord(value: "0.3", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"), subset: subset)
        #expect(try readHealth(xml).samples.map(\.metres) == [300])
    }

    @Test("A device name of 300,000 bytes names its source by its first 256, cut after a whole character")
    func longSourceName() throws {
        let times = (start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
        let long = String(repeating: "A", count: 300_000)
        let korean = "AB" + String(repeating: "걷", count: 100_000)  // 3 bytes each: bytes 255 and 256 begin the 85th
        let xml = healthExport(
            distanceRecord(source: long, value: "0.3", start: times.start, end: times.end)
                + distanceRecord(source: korean, value: "0.2", start: times.start, end: times.end))
        #expect(
            try readHealth(xml).samples.map(\.source) == [
                "health:" + String(repeating: "A", count: 256), "health:AB" + String(repeating: "걷", count: 84),
            ])
    }

    @Test("An export whose distance comes from more sourceNames than the bound is refused naming it; names repeated are one")
    func tooManyHealthSources() throws {
        func export(_ names: [String]) -> String {
            var xml = "<HealthData>\n"
            for (index, name) in names.enumerated() {
                xml +=
                    "<Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"\(name)\" unit=\"m\" value=\"10\" startDate=\"2026-10-01 0\(index % 10):00:00 +0900\" endDate=\"2026-10-01 0\(index % 10):10:00 +0900\"/>\n"
            }
            return xml + "</HealthData>\n"
        }
        let reader = HealthExportReader(limits: ActivityReaderLimits(maxHealthSources: 3), now: Date())
        // Three names, each met again after the others.
        var count = 0
        _ = try reader.read(MemoryByteStream(export(["iPhone", "Watch", "Nike", "iPhone", "Nike", "Watch"]))) { _ in count += 1 }
        #expect(count == 6)
        #expect(throws: ActivityFileError.tooManyHealthSources(limit: 3)) {
            try reader.read(MemoryByteStream(export(["iPhone", "Watch", "Nike", "iPhone", "Strava"]))) { _ in }
        }
        #expect(ActivityReaderLimits().maxHealthSources == 500)
        #expect("\(ActivityFileError.tooManyHealthSources(limit: 500))".contains("more than 500"))
    }

    @Test("A vertical tab (U+000B) in a value, as iOS 16 writes, becomes a space and is counted")
    func verticalTab() throws {
        let xml = healthExport(
            distanceRecord(
                source: "Jisoo\u{0B}s Apple Watch", value: "0.3", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"))
        let result = try readHealth(xml)
        #expect(result.samples.map(\.source) == ["health:Jisoo s Apple Watch"])
        #expect(result.summary.controlCharactersReplaced == 1)
    }

    @Test("A distance record in an unknown unit is a typed error naming its line")
    func unknownUnit() throws {
        let xml = healthExport(
            distanceRecord(unit: "cm", value: "30000", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"))
        let line = lineNumber(of: "unit=\"cm\"", in: xml)
        #expect(throws: ActivityFileError.invalidRecord(line: line, record: .distance, problem: "has the unit \"cm\", not km, m, mi or ft"))
        {
            try readHealth(xml)
        }
    }

    @Test("A skipped type longer than 128 bytes is counted among other types, never kept or printed (512 of 1 MiB were half a GiB)")
    func longSkippedType() throws {
        func record(_ type: String) -> String {
            "<Record type=\"\(type)\" sourceName=\"Apple Watch\" unit=\"count\" startDate=\"2024-01-01 08:20:00 +0900\" "
                + "endDate=\"2024-01-01 08:30:00 +0900\" value=\"5\"/>\n"
        }
        let long = "HKQuantityTypeIdentifier" + String(repeating: "X", count: 200_000)
        let longest = "HKQuantityTypeIdentifier" + String(repeating: "Y", count: HealthExportSummary.maxTypeNameBytes - 24)
        let xml = healthExport(record(long) + record(long + "Z") + record("HKQuantityTypeIdentifierStepCount") + record(longest))
        #expect(
            try readHealth(xml).summary.skippedRecordsByType == [
                HealthExportSummary.otherTypesKey: 2, "HKQuantityTypeIdentifierStepCount": 1, longest: 1,
            ])
    }

    @Test("A workout route's path of 500,000 bytes is kept as its first 1,024")
    func longRoutePath() throws {
        let path = "/workout-routes/" + String(repeating: "r", count: 500_000) + ".gpx"
        let xml = healthExport(
            "<Workout workoutActivityType=\"HKWorkoutActivityTypeWalking\"><WorkoutRoute sourceName=\"Apple Watch\">"
                + "<FileReference path=\"\(path)\"/></WorkoutRoute></Workout>\n")
        #expect(try readHealth(xml).summary.workoutRoutePaths == [String(path.prefix(1024))])
    }

    @Test("A unit of one character with 200,000 combining marks is left out of the error, not quoted whole")
    func combiningMarksInUnit() throws {
        let unit = "c" + "m" + String(repeating: "\u{0301}", count: 200_000)
        let xml = healthExport(distanceRecord(unit: unit, value: "1", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"))
        let line = lineNumber(of: "unit=\"c", in: xml)
        #expect(throws: ActivityFileError.invalidRecord(line: line, record: .distance, problem: "has the unit \"c\", not km, m, mi or ft"))
        {
            try readHealth(xml)
        }
    }

    @Test("A value past 18,144 km (30 m/s for 7 days) is a typed error; 1e308 km was an infinite distance")
    func hugeValue() throws {
        let times = (start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
        let huge = healthExport(distanceRecord(unit: "km", value: "1e308", start: times.start, end: times.end))
        #expect(
            throws: ActivityFileError.invalidRecord(
                line: lineNumber(of: "value=\"1e308\"", in: huge), record: .distance,
                problem: "has the value \"1e308\" km, more than 18144 km")
        ) {
            try readHealth(huge)
        }
        // 1e306 m was finite, but across the hour its first share was not: 1e306 × 600 s overflows before ÷ 1,200 s.
        let large = healthExport(
            distanceRecord(unit: "m", value: "1e306", start: "2024-01-01 08:50:00 +0900", end: "2024-01-01 09:10:00 +0900"))
        #expect(
            throws: ActivityFileError.invalidRecord(
                line: lineNumber(of: "value=\"1e306\"", in: large), record: .distance,
                problem: "has the value \"1e306\" m, more than 18144 km")
        ) {
            try readHealth(large)
        }
        // The bound itself is a distance: 18,144 km = 30 m/s × 604,800 s, kept over 7 days.
        #expect(
            try readHealth(healthExport(distanceRecord(unit: "km", value: "18144", start: times.start, end: "2024-01-08 08:20:00 +0900")))
                .samples.map(\.metres)
                == [18_144_000])
    }

    @Test("A record ending before it starts cannot be placed in time: skipped and counted, the others kept")
    func endsBeforeStart() throws {
        let xml = healthExport(
            distanceRecord(value: "0.3", start: "2024-01-01 08:30:00 +0900", end: "2024-01-01 08:20:00 +0900") + "\n"
                + distanceRecord(value: "0.4", start: "2024-01-01 08:30:00 +0900", end: "2024-01-01 08:40:00 +0900"))
        let (samples, summary) = try readHealth(xml)
        #expect(samples.map(\.metres) == [400])
        #expect(summary.recordsDropped == 1)
        #expect(summary.distanceRecords == 1)
    }

    @Test("20,000 records stream through in pieces: every 10-minute record lands in its hour, 600 m an hour")
    func streaming() throws {
        var source = GeneratedExport(records: 20_000)
        var apportioner = SlotApportioner()
        var samples = 0
        let summary = try withUnsafeMutablePointer(to: &source) { pointer throws(ActivityFileError) in
            try HealthExportReader(now: Date()).read(ByteStreamReference(pointer)) { sample in
                samples += 1
                apportioner.add(sample)
            }
        }
        #expect(summary.distanceRecords == 20_000 && samples == 20_000)
        let hours = apportioner.metresBySource["health:Apple Watch"] ?? [:]
        // 20,000 records of 10 minutes are 3,333 whole hours and 2 records of the next.
        #expect(hours.count == 3_334)
        #expect(hours.values.filter { abs($0 - 600) < 1e-9 }.count == 3_333)
        #expect(abs(hours.values.reduce(0, +) - 2_000_000) < 1e-6)
        #expect(source.largestRequest <= 64 * 1024)
    }

    @Test("Elements nested deeper than 64 are refused")
    func deepNesting() {
        let xml = healthExport(String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100))
        #expect(throws: ActivityFileError.nestingTooDeep(line: lineNumber(of: "<a>", in: xml), limit: 64)) { try readHealth(xml) }
    }

    // MARK: hostile input

    @Test("<!ENTITY in the internal subset is refused before any record is read")
    func entityInSubset() {
        let subset = appleSubset + "\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">"
        let xml = healthExport(
            distanceRecord(value: "0.3", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"), subset: subset)
        var samples = 0
        #expect(throws: ActivityFileError.entityInDocumentType(line: lineNumber(of: "<!ENTITY", in: xml))) {
            _ = try HealthExportReader(now: Date()).read(MemoryByteStream(xml)) { _ in samples += 1 }
        }
        #expect(samples == 0)
    }

    @Test("A control character before the DOCTYPE hides nothing: its entity is refused by the guard, on its line")
    func controlCharacterBeforeDoctype() {
        // The pipe hands libxml2 U+0017 as a space. The guard took it for the root element and
        // stopped, so the DOCTYPE after it reached libxml2 unchecked (scripts/fuzz.sh gpx).
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            \u{17}<!DOCTYPE HealthData [
            <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <HealthData locale="ko_KR"><Record type="&xxe;" sourceName="iPhone" startDate="" endDate=""/></HealthData>
            """
        var samples = 0
        #expect(throws: ActivityFileError.entityInDocumentType(line: 3)) {
            _ = try HealthExportReader(now: Date()).read(MemoryByteStream(xml)) { _ in samples += 1 }
        }
        #expect(samples == 0)
        #expect(throws: ActivityFileError.entityInDocumentType(line: 3)) { try ActivityFileFormat.sniff(Array(xml.utf8)) }
    }

    @Test("A byte libxml2 would skip hides no DOCTYPE: the guard refuses the text before it, on its line")
    func undecodableByteBeforeDoctype() {
        // With encoding="UT-F8" libxml2 skipped 0xA6 and parsed the DOCTYPE and its entity
        // ("Attribute references external entity 'xxe'"); the guard had stopped at 0xA6.
        let xml =
            Array("<?xml version=\"1.0\" encoding=\"UT-F8\"?>\n".utf8) + [0xA6]
            + Array("<!DOCTYPE HealthData [\n<!ENTITY xxe SYSTEM \"file:///etc/passwd\">\n]>\n<HealthData locale=\"&xxe;\"/>\n".utf8)
        #expect(throws: ActivityFileError.malformedXML(line: 2, reason: "the file has text before its root element")) {
            try HealthExportReader(now: Date()).read(MemoryByteStream(xml)) { _ in }
        }
    }

    @Test("A billion-laughs internal entity and a parameter entity are refused")
    func internalAndParameterEntities() {
        let laughs = healthExport("", subset: "<!ENTITY lol \"lol\">\n<!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">")
        #expect(throws: ActivityFileError.entityInDocumentType(line: 3)) { try readHealth(laughs) }
        let parameter = healthExport("", subset: "%remote;")
        #expect(throws: ActivityFileError.entityInDocumentType(line: 3)) { try readHealth(parameter) }
    }

    @Test("An external DTD (SYSTEM or PUBLIC) is refused")
    func externalDTD() {
        let system = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData SYSTEM "http://example.com/healthdata.dtd">
            <HealthData locale="ko_KR"/>
            """
        #expect(throws: ActivityFileError.externalIdentifier(line: 2)) { try readHealth(system) }
        let publicID = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData PUBLIC "-//Example//DTD Health//EN" "file:///etc/passwd" [
            ]>
            <HealthData locale="ko_KR"/>
            """
        #expect(throws: ActivityFileError.externalIdentifier(line: 2)) { try readHealth(publicID) }
        let notation = healthExport("", subset: "<!NOTATION gif SYSTEM \"image/gif\">")
        #expect(throws: ActivityFileError.externalIdentifier(line: 3)) { try readHealth(notation) }
    }

    @Test("An entity reference in the body, with no entity declared, is a malformed-XML error")
    func undeclaredEntityReference() {
        let xml = healthExport("<Record type=\"&xxe;\" sourceName=\"iPhone\" startDate=\"\" endDate=\"\"/>")
        #expect {
            try readHealth(xml)
        } throws: { error in
            guard case .malformedXML = error as? ActivityFileError else { return false }
            return true
        }
    }

    @Test("A 10 MB attribute is refused once it passes 1 MiB, before libxml2 buffers it")
    func hugeAttribute() {
        let xml = healthExport(
            distanceRecord(
                source: String(repeating: "x", count: 10_000_000), value: "0.3",
                start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"))
        var progress: Int64 = 0
        #expect(throws: ActivityFileError.attributeTooLong(line: lineNumber(of: "<Record", in: xml), limit: 1 << 20)) {
            _ = try HealthExportReader(now: Date()).read(MemoryByteStream(xml), onProgress: { progress = $0 }, onSample: { _ in })
        }
        #expect(progress < 2 << 20)
    }

    @Test("An element with 140,000 attributes (under 1 MiB) is refused at the 1,001st, before libxml2 spends minutes on it; 20 are read")
    func manyAttributes() throws {
        let record = distanceRecord(
            source: "Watch", value: "0.3", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
        let many = (0..<140_000).map { "a\($0)=\"\"" }.joined(separator: " ")
        let xml = healthExport(record.replacingOccurrences(of: "<Record ", with: "<Record " + many + " "))
        #expect(throws: ActivityFileError.tooManyAttributes(line: lineNumber(of: "<Record", in: xml), limit: 1_000)) {
            _ = try HealthExportReader(now: Date()).read(MemoryByteStream(xml), onProgress: { _ in }, onSample: { _ in })
        }
        // A record with 20 more attributes than usual is read as any other.
        let twenty = (0..<20).map { "x\($0)=\"1\"" }.joined(separator: " ")
        var samples = 0
        _ = try HealthExportReader(now: Date()).read(
            MemoryByteStream(healthExport(record.replacingOccurrences(of: "<Record ", with: "<Record " + twenty + " "))),
            onProgress: { _ in }, onSample: { _ in samples += 1 })
        #expect(samples == 1)
    }

    @Test("A file that is not a Health export names its root; an empty file says so")
    func notAnExport() {
        #expect(throws: ActivityFileError.notAHealthExport(root: "gpx")) {
            try readHealth("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"/>")
        }
        #expect(throws: ActivityFileError.emptyFile) { try readHealth(" \n") }
        #expect(throws: ActivityFileError.emptyFile) { try readHealth("") }
    }

    @Test("A file cut off inside its DOCTYPE or its body is an error, never a partial success")
    func truncated() throws {
        let xml = try String(contentsOf: TestFixtures.url("activity/health-export-small.xml"), encoding: .utf8)
        let bytes = Array(xml.utf8)
        #expect(throws: ActivityFileError.self) { try readHealth(String(decoding: bytes[..<500], as: UTF8.self)) }
        #expect(throws: ActivityFileError.self) { try readHealth(String(decoding: bytes[..<(bytes.count - 40)], as: UTF8.self)) }
    }
}

extension HealthExportReaderTests {
    @Test("Records in years 1 and 9999, before 2000 or more than a day after now are skipped and counted; the rest are read")
    func recordsOutsidePeriod() throws {
        let now = instant("2024-01-01T12:00:00Z")
        let xml = healthExport(
            [
                distanceRecord(value: "0.5", start: "0001-01-01 08:20:00 +0900", end: "0001-01-01 08:30:00 +0900"),
                distanceRecord(value: "0.5", start: "9999-12-31 08:20:00 +0900", end: "9999-12-31 08:30:00 +0900"),
                distanceRecord(value: "0.5", start: "1999-12-31 09:50:00 +0000", end: "1999-12-31 09:59:59 +0000"),
                // ends past now + 1 day
                distanceRecord(value: "0.5", start: "2024-01-02 21:00:00 +0900", end: "2024-01-02 21:10:01 +0900"),
                distanceRecord(value: "0.6", start: "2000-01-01 00:00:00 +0900", end: "2000-01-01 00:10:00 +0900"),
                distanceRecord(value: "0.7", start: "2024-01-02 20:50:00 +0900", end: "2024-01-02 20:59:59 +0900"),
            ].joined(separator: "\n"))
        var samples: [DistanceSample] = []
        let summary = try HealthExportReader(now: now).read(MemoryByteStream(xml)) { samples.append($0) }
        #expect(summary.recordsOutsidePeriod == 4)
        #expect(summary.distanceRecords == 2)
        #expect(samples.map(\.metres) == [600, 700])
        #expect(samples.map(\.start) == [instant("1999-12-31T15:00:00Z"), instant("2024-01-02T11:50:00Z")])
    }

    @Test(
        "A record that cannot be placed in time is skipped and counted: 150 km at one instant, 20 km in 10 minutes, eight days; 5 m at one instant and 18 km in 10 minutes are kept"
    )
    func implausibleRecords() throws {
        let at = "2024-01-01 08:20:00 +0900"
        let xml = healthExport(
            [
                distanceRecord(value: "150", start: at, end: at),  // was 223 km in one hour
                distanceRecord(unit: "m", value: "31", start: at, end: at),  // more than 30 m in no time
                distanceRecord(value: "20", start: at, end: "2024-01-01 08:30:00 +0900"),  // 33.3 m/s
                distanceRecord(unit: "m", value: "5", start: at, end: at),  // a tap of 5 m: kept
                distanceRecord(unit: "m", value: "30", start: at, end: at),  // 30 m in the one-second resolution: kept
                distanceRecord(value: "18", start: at, end: "2024-01-01 08:30:00 +0900"),  // exactly 30 m/s: kept
                // An app's backlog synced as one record of eight days: skipped, the export still read.
                distanceRecord(value: "41.2", start: "2023-12-24 00:00:00 +0900", end: "2024-01-01 09:00:00 +0900"),
            ].joined(separator: "\n"))
        let (samples, summary) = try readHealth(xml)
        #expect(summary.recordsDropped == 4)
        #expect(summary.distanceRecords == 3)
        #expect(samples.map(\.metres) == [5, 30, 18_000])
    }
}
