import DustActivity
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Heart rate and sleep from a Health export", .timeLimit(.minutes(10)))
struct HealthPhysiologyTests {
    @Test("The generated Watch export: 128 heart-rate samples 06:50–20:43 KST, two resting rates, the night asleep around a 4-minute Awake")
    func generatedWatchExport() throws {
        let path = TestFixtures.url("activity/generated-watch/export.zip").path
        let archive = try HealthExportArchive(path: path, limits: ActivityReaderLimits())
        var physiology = HealthPhysiology()
        var metres = 0.0
        let summary = try archive.read(archive.export) { source throws(ActivityFileError) in
            try HealthExportReader(now: instant("2026-11-20T12:00:00Z")).read(source, physiology: &physiology) { metres += $0.metres }
        }
        let beats = physiology.heartRate.map(\.beatsPerMinute)
        #expect(beats.count == 128 && beats.reduce(0, +) == 10_267 && beats.max() == 128)
        #expect(physiology.heartRate.first?.at == instant("2026-11-19T21:50:00Z"))
        #expect(physiology.heartRate.last?.at == instant("2026-11-20T11:43:00Z"))
        #expect(
            physiology.restingHeartRates == [
                RestingHeartRateSample(at: instant("2026-11-18T15:00:12Z"), beatsPerMinute: 58),
                RestingHeartRateSample(at: instant("2026-11-19T15:00:12Z"), beatsPerMinute: 57),
            ])
        // Asleep 23:20–02:10 and 02:14–06:40 KST; the iPhone's InBed and the Watch's Awake are not sleep.
        #expect(
            physiology.sleep == [
                SleepInterval(start: instant("2026-11-19T14:20:00Z"), end: instant("2026-11-19T17:10:00Z")),
                SleepInterval(start: instant("2026-11-19T17:14:00Z"), end: instant("2026-11-19T21:40:00Z")),
            ])
        #expect(physiology.asleepRecords == 13 && physiology.notAsleepRecords == 2 && physiology.sleepOverlapsMerged == 0)
        // The distances are the plain fixture's: 2,400 + 2,011.68 + 1,200 + 1,000.00003 m.
        #expect(summary.distanceRecords == 4)
        #expect(abs(metres - 6611.68003) < 1e-3)
        #expect(summary.skippedRecordsByType["HKQuantityTypeIdentifierHeartRate"] == nil)
    }

    @Test("Heart-rate samples with their MetadataEntry child are read at their instants, between distance records")
    func heartRate() throws {
        let xml = healthExport(
            heartRateRecord("72", at: "2024-01-01 08:25:31 +0900", context: 1)
                + distanceRecord(value: "0.5", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900")
                + heartRateRecord("118.5", at: "2024-01-01 08:21:04 +0900", context: 2)
                + heartRateRecord("64", at: "2024-01-01 08:40:00 -0500"))
        let result = try readPhysiology(xml)
        // In time order: 08:21:04 and 08:25:31 KST (23:21:04Z, 23:25:31Z), then 08:40 -0500 (13:40Z).
        #expect(
            Array(result.physiology.heartRate) == [
                HeartRateSample(at: instant("2023-12-31T23:21:04Z"), beatsPerMinute: 118.5),
                HeartRateSample(at: instant("2023-12-31T23:25:31Z"), beatsPerMinute: 72),
                HeartRateSample(at: instant("2024-01-01T13:40:00Z"), beatsPerMinute: 64),
            ])
        #expect(result.physiology.heartRateRecords == 3)
        #expect(result.samples.map(\.metres) == [500])
        #expect(result.summary.distanceRecords == 1)
        #expect(result.summary.skippedRecordsByType.isEmpty)
    }

    @Test(
        "Samples of one second (a record repeated, two apps) are one sample, the higher rate, as stored; resting rates of one instant the last"
    )
    func oneSampleASecond() throws {
        let xml = healthExport(
            heartRateRecord("72", at: "2024-01-01 08:25:31 +0900") + heartRateRecord("80", at: "2024-01-01 08:25:31 +0900")
                + heartRateRecord("64", at: "2024-01-01 08:26:00 +0900") + heartRateRecord("72", at: "2024-01-01 08:25:31 +0900")
                + restingHeartRateRecord("61", start: "2024-01-02 00:04:10 +0900", end: "2024-01-02 23:55:02 +0900")
                + restingHeartRateRecord("59", start: "2024-01-02 00:04:10 +0900", end: "2024-01-02 23:50:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(
            Array(physiology.heartRate) == [
                HeartRateSample(at: instant("2023-12-31T23:25:31Z"), beatsPerMinute: 80),
                HeartRateSample(at: instant("2023-12-31T23:26:00Z"), beatsPerMinute: 64),
            ])
        #expect(physiology.heartRateRecords == 4)
        #expect(physiology.restingHeartRates == [RestingHeartRateSample(at: instant("2024-01-01T15:04:10Z"), beatsPerMinute: 59)])

        // Across the series' chunks of 65,536: 150,000 seconds, each given twice (the second time 1 faster).
        var series = HeartRateSeries()
        let start = instant("2024-01-01T00:00:00Z")
        for second in 0..<150_000 {
            for rate in [60.0, 61.0] { series.append(HeartRateSample(at: start.addingTimeInterval(Double(second)), beatsPerMinute: rate)) }
        }
        series.removeRepeatedSeconds()
        #expect(series.count == 150_000)
        #expect(series.allSatisfy { $0.beatsPerMinute == 61 })
        #expect(series.last?.at == start.addingTimeInterval(149_999))
        series.append(HeartRateSample(at: start.addingTimeInterval(150_000), beatsPerMinute: 70))
        #expect(series.count == 150_001 && series.last?.beatsPerMinute == 70)
    }

    @Test("Resting heart rate is read at its day's start, in time order")
    func restingHeartRate() throws {
        let xml = healthExport(
            restingHeartRateRecord("61", start: "2024-01-02 00:04:10 +0900", end: "2024-01-02 23:55:02 +0900")
                + restingHeartRateRecord("58", start: "2024-01-01 00:03:29 +0900", end: "2024-01-01 23:57:40 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(
            physiology.restingHeartRates == [
                RestingHeartRateSample(at: instant("2023-12-31T15:03:29Z"), beatsPerMinute: 58),
                RestingHeartRateSample(at: instant("2024-01-01T15:04:10Z"), beatsPerMinute: 61),
            ])
        #expect(physiology.restingHeartRateRecords == 2)
        #expect(physiology.heartRate.isEmpty)
    }

    @Test(
        "Each asleep value is time asleep; InBed and Awake are not",
        arguments: ["Asleep", "AsleepUnspecified", "AsleepCore", "AsleepDeep", "AsleepREM"])
    func asleepValue(_ value: String) throws {
        let xml = healthExport(
            sleepRecord("InBed", start: "2024-01-01 22:50:00 +0900", end: "2024-01-02 07:10:00 +0900", source: "iPhone")
                + sleepRecord(value, start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 01:30:00 +0900")
                + sleepRecord("Awake", start: "2024-01-02 01:30:00 +0900", end: "2024-01-02 01:40:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(physiology.sleep == [SleepInterval(start: instant("2024-01-01T14:00:00Z"), end: instant("2024-01-01T16:30:00Z"))])
        #expect(physiology.asleepRecords == 1)
        #expect(physiology.notAsleepRecords == 2)
    }

    @Test("A Watch night of Core, Deep and REM segments that touch is one interval, 23:00–06:45, with no overlap counted")
    func touchingSegments() throws {
        let xml = healthExport(
            sleepRecord("AsleepCore", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 00:20:00 +0900")
                + sleepRecord("AsleepDeep", start: "2024-01-02 00:20:00 +0900", end: "2024-01-02 01:05:00 +0900")
                + sleepRecord("AsleepREM", start: "2024-01-02 01:05:00 +0900", end: "2024-01-02 01:35:00 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-02 01:35:00 +0900", end: "2024-01-02 06:45:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(physiology.sleep == [SleepInterval(start: instant("2024-01-01T14:00:00Z"), end: instant("2024-01-01T21:45:00Z"))])
        #expect(physiology.asleepRecords == 4)
        #expect(physiology.sleepOverlapsMerged == 0)
    }

    @Test(
        "Overlapping sleep from two sources is merged and counted: 23:00–07:00, 01:00–03:00 and 06:30–08:00 are 23:00–08:00, two overlaps"
    )
    func overlappingSleep() throws {
        let xml = healthExport(
            sleepRecord("AsleepCore", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 07:00:00 +0900")
                + sleepRecord("Asleep", start: "2024-01-02 01:00:00 +0900", end: "2024-01-02 03:00:00 +0900", source: "AutoSleep")
                + sleepRecord("Asleep", start: "2024-01-02 06:30:00 +0900", end: "2024-01-02 08:00:00 +0900", source: "AutoSleep")
                + sleepRecord("AsleepCore", start: "2024-01-02 23:10:00 +0900", end: "2024-01-03 06:00:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(
            physiology.sleep == [
                SleepInterval(start: instant("2024-01-01T14:00:00Z"), end: instant("2024-01-01T23:00:00Z")),
                SleepInterval(start: instant("2024-01-02T14:10:00Z"), end: instant("2024-01-02T21:00:00Z")),
            ])
        #expect(physiology.sleepOverlapsMerged == 2)
        #expect(physiology.asleepRecords == 4)
    }

    @Test("Heart rates outside 25–250 beats/min are dropped and counted; 25 and 250 are kept")
    func heartRateBounds() throws {
        let xml = healthExport(
            heartRateRecord("24.9", at: "2024-01-01 08:00:00 +0900")
                + heartRateRecord("25", at: "2024-01-01 08:05:00 +0900")
                + heartRateRecord("250", at: "2024-01-01 08:10:00 +0900")
                + heartRateRecord("250.01", at: "2024-01-01 08:15:00 +0900")
                + heartRateRecord("0", at: "2024-01-01 08:20:00 +0900")
                + heartRateRecord("nan", at: "2024-01-01 08:25:00 +0900")
                + restingHeartRateRecord("12", start: "2024-01-01 00:00:00 +0900", end: "2024-01-01 23:59:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(physiology.heartRate.map(\.beatsPerMinute) == [25, 250])
        #expect(physiology.heartRateRecords == 6)
        #expect(physiology.restingHeartRateRecords == 1)
        #expect(physiology.restingHeartRates.isEmpty)
        #expect(physiology.heartRateOutOfRange == 5)
    }

    @Test("Sleep longer than 24 hours is clipped to 24 and counted; ending at or before its start, dropped and counted")
    func sleepBounds() throws {
        let xml = healthExport(
            sleepRecord("AsleepUnspecified", start: "2024-01-01 22:00:00 +0900", end: "2024-01-03 04:00:00 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-05 07:00:00 +0900", end: "2024-01-04 23:00:00 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-05 07:00:00 +0900", end: "2024-01-05 07:00:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        // 30 hours from 22:00 KST (13:00Z): the first 24.
        #expect(physiology.sleep == [SleepInterval(start: instant("2024-01-01T13:00:00Z"), end: instant("2024-01-02T13:00:00Z"))])
        #expect(physiology.sleepClipped == 1)
        #expect(physiology.sleepDropped == 2)
        #expect(physiology.asleepRecords == 3)
    }

    @Test(
        "Records joined to more than 24 hours (two of 20 h overlapping by one; a chain touching end to start) are held to their first 24, counted once"
    )
    func joinedSleepBounded() throws {
        let xml = healthExport(
            sleepRecord("Asleep", start: "2024-01-01 00:00:00 +0900", end: "2024-01-01 20:00:00 +0900")
                + sleepRecord("Asleep", start: "2024-01-01 19:00:00 +0900", end: "2024-01-02 15:00:00 +0900", source: "AutoSleep")
                + sleepRecord("AsleepCore", start: "2024-01-05 00:00:00 +0900", end: "2024-01-05 12:00:00 +0900")
                + sleepRecord("AsleepDeep", start: "2024-01-05 12:00:00 +0900", end: "2024-01-06 00:00:00 +0900")
                + sleepRecord("AsleepREM", start: "2024-01-06 00:00:00 +0900", end: "2024-01-06 06:00:00 +0900"))
        let physiology = try readPhysiology(xml).physiology
        #expect(
            physiology.sleep == [
                SleepInterval(start: instant("2023-12-31T15:00:00Z"), end: instant("2024-01-01T15:00:00Z")),
                SleepInterval(start: instant("2024-01-04T15:00:00Z"), end: instant("2024-01-05T15:00:00Z")),
            ])
        #expect(physiology.sleepClipped == 2)
        #expect(physiology.sleepOverlapsMerged == 1)
    }

    @Test("Heart rate, resting rate and sleep dated before 2000 or more than a day after the import are skipped and counted")
    func outsidePeriod() throws {
        let now = instant("2024-01-02T00:00:00Z")
        let xml = healthExport(
            heartRateRecord("70", at: "1999-12-31 08:00:00 +0900")
                + heartRateRecord("71", at: "2024-01-03 08:59:00 +0900")
                + heartRateRecord("72", at: "2024-01-03 09:01:00 +0900")
                + restingHeartRateRecord("60", start: "1970-01-01 00:00:00 +0900", end: "1970-01-01 23:00:00 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-04 23:00:00 +0900", end: "2024-01-05 06:00:00 +0900"))
        let physiology = try readPhysiology(xml, now: now).physiology
        // 2024-01-03 08:59 KST is 23:59Z on the 2nd, within a day of now; 09:01 KST is past it.
        #expect(physiology.heartRate.map(\.beatsPerMinute) == [71])
        #expect(physiology.recordsOutsidePeriod == 4)
        #expect(physiology.restingHeartRates.isEmpty && physiology.sleep.isEmpty)
    }

    @Test("Without a HealthPhysiology to fill, heart rate and sleep are skipped and counted by type, as before")
    func notAsked() throws {
        let xml = healthExport(
            heartRateRecord("72", at: "2024-01-01 08:25:31 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 06:00:00 +0900")
                + restingHeartRateRecord("58", start: "2024-01-01 00:03:29 +0900", end: "2024-01-01 23:57:40 +0900"))
        #expect(
            try readHealth(xml).summary.skippedRecordsByType == [
                "HKQuantityTypeIdentifierHeartRate": 1, "HKCategoryTypeIdentifierSleepAnalysis": 1,
                "HKQuantityTypeIdentifierRestingHeartRate": 1,
            ])
    }

    @Test("A heart rate in another unit, without a value or with a value that is no number is a typed error naming its line")
    func invalidHeartRate() throws {
        let hertz = healthExport(heartRateRecord("1.2", at: "2024-01-01 08:25:31 +0900", unit: "count/s"))
        #expect(
            throws: ActivityFileError.invalidRecord(
                line: lineNumber(of: "unit=\"count/s\"", in: hertz), record: .heartRate, problem: "has the unit \"count/s\", not count/min")
        ) {
            try readPhysiology(hertz)
        }
        let word = healthExport(heartRateRecord("fast", at: "2024-01-01 08:25:31 +0900"))
        #expect(
            throws: ActivityFileError.invalidRecord(
                line: lineNumber(of: "value=\"fast\"", in: word), record: .heartRate, problem: "has the value \"fast\", not a heart rate")
        ) {
            try readPhysiology(word)
        }
        let noValue = healthExport(
            sleepRecord("AsleepCore", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 06:00:00 +0900").replacingOccurrences(
                of: " value=\"HKCategoryValueSleepAnalysisAsleepCore\"", with: ""))
        #expect(
            throws: ActivityFileError.invalidRecord(
                line: lineNumber(of: "HKCategoryTypeIdentifierSleepAnalysis", in: noValue), record: .sleep, problem: "has no value")
        ) {
            try readPhysiology(noValue)
        }
    }

    @Test("A heart rate in hex (0x48), inf or nan is no heart rate: dropped and counted; one that is no number names its record kind")
    func hexHeartRate() throws {
        let odd = ["0x48", "inf", "nan", "0X1p6"].map { heartRateRecord($0, at: "2024-01-01 08:25:31 +0900") }
        let read = try readPhysiology(healthExport(odd.joined(separator: "\n")))
        #expect(read.physiology.heartRate.isEmpty)
        #expect(read.physiology.heartRateOutOfRange == 4)
        for value in ["1_0", "٧٢"] {
            let xml = healthExport(heartRateRecord(value, at: "2024-01-01 08:25:31 +0900"))
            do {
                _ = try readPhysiology(xml)
                Issue.record("\(value) was read as a heart rate")
            } catch {
                #expect(
                    error
                        == .invalidRecord(
                            line: lineNumber(of: "value=\"\(value)\"", in: xml), record: .heartRate,
                            problem: "has the value \"\(value)\", not a heart rate"))
                #expect(error.description.contains("a heart-rate record"), "\(error.description)")
            }
        }
    }

    @Test("Heart rate and sleep inside a Correlation repeat top-level records and are not read")
    func nestedRecords() throws {
        let xml = healthExport(
            " <Correlation type=\"HKCorrelationTypeIdentifierFood\" sourceName=\"Health\" "
                + "startDate=\"2024-01-01 08:00:00 +0900\" endDate=\"2024-01-01 08:00:00 +0900\">\n"
                + heartRateRecord("80", at: "2024-01-01 08:00:00 +0900") + "\n </Correlation>\n")
        let physiology = try readPhysiology(xml).physiology
        #expect(physiology.heartRate.isEmpty)
        #expect(physiology.heartRateRecords == 0)
    }

    @Test("From export.zip, heart rate, resting rate and sleep are read as from the bare export.xml")
    func fromZip() throws {
        let xml = healthExport(
            heartRateRecord("72", at: "2024-01-01 08:25:31 +0900")
                + restingHeartRateRecord("58", start: "2024-01-01 00:03:29 +0900", end: "2024-01-01 23:57:40 +0900")
                + sleepRecord("AsleepDeep", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 07:00:00 +0900")
                + distanceRecord(value: "0.5", start: "2024-01-01 08:20:00 +0900", end: "2024-01-01 08:30:00 +0900"))
        let directory = try TemporaryDirectory("finedust-zip")
        defer { directory.remove() }
        let path = try makeZip([("apple_health_export/export.xml", Array(xml.utf8))], in: directory)
        let archive = try HealthExportArchive(path: path, limits: ActivityReaderLimits())
        var physiology = HealthPhysiology()
        var metres: [Double] = []
        let summary = try archive.read(archive.export) { source throws(ActivityFileError) in
            try HealthExportReader(now: Date()).read(source, physiology: &physiology) { metres.append($0.metres) }
        }
        let bare = try readPhysiology(xml)
        #expect(physiology == bare.physiology)
        #expect(summary == bare.summary)
        #expect(metres == [500])
        #expect(physiology.heartRate.map(\.beatsPerMinute) == [72] && physiology.restingHeartRates.count == 1)
        #expect(physiology.sleep == [SleepInterval(start: instant("2024-01-01T14:00:00Z"), end: instant("2024-01-01T22:00:00Z"))])
    }

    @Test("Read one byte at a time, heart rate, resting rate and sleep are the same as read whole")
    func oneByteAtATime() throws {
        let xml = healthExport(
            heartRateRecord("72", at: "2024-01-01 08:25:31 +0900")
                + restingHeartRateRecord("58", start: "2024-01-01 00:03:29 +0900", end: "2024-01-01 23:57:40 +0900")
                + sleepRecord("AsleepCore", start: "2024-01-01 23:00:00 +0900", end: "2024-01-02 07:00:00 +0900")
                + sleepRecord("Asleep", start: "2024-01-02 01:00:00 +0900", end: "2024-01-02 03:00:00 +0900")
                + heartRateRecord("300", at: "2024-01-01 08:26:31 +0900"))
        let whole = try readPhysiology(xml)
        let bytewise = try readPhysiology(xml, chunkSize: 1)
        #expect(bytewise.physiology == whole.physiology)
        #expect(bytewise.summary == whole.summary)
        #expect(whole.physiology.heartRate.count == 1 && whole.physiology.sleep.count == 1)
    }

    @Test("250,000 heart-rate samples stream through in 64 KiB pieces and are kept in about 8 bytes each")
    func manySamples() throws {
        var export = GeneratedExport(records: 250_000, heartRate: true)
        var physiology = HealthPhysiology()
        let summary = try withUnsafeMutablePointer(to: &export) { pointer in
            try HealthExportReader(now: instant("2025-01-01T00:00:00Z")).read(ByteStreamReference(pointer), physiology: &physiology) { _ in
            }
        }
        #expect(export.largestRequest <= 64 * 1024)
        #expect(summary.bytesRead > 100_000_000)
        let series = physiology.heartRate
        #expect(series.count == 250_000)
        // One a minute from 2023-12-30 15:00Z, 60 to 119 beats/min in turn: the last, 249,999 % 60 = 39, is 99.
        #expect(series.first == HeartRateSample(at: instant("2023-12-30T15:00:00Z"), beatsPerMinute: 60))
        #expect(series.last == HeartRateSample(at: instant("2023-12-30T15:00:00Z").addingTimeInterval(249_999 * 60), beatsPerMinute: 99))
        // Four chunks of 65,536: 8.4 bytes a sample. malloc may round each up, to a whole page when it maps a
        // chunk of its own (whether it does depends on what the process freed before), so up to one page more.
        #expect(series.storageBytes >= 4 * 65_536 * 8 && series.storageBytes <= 4 * (65_536 * 8 + 4096))
    }

    @Test("Samples out of order across several chunks (150,000 in a permuted order) are sorted in place by time, then rate")
    func sortsAcrossChunks() {
        let base = instant("2024-01-01T00:00:00Z")
        // 7,919 is prime and divides no factor of 150,000, so i × 7,919 mod 150,000 visits every second once.
        var samples: [HeartRateSample] = []
        for index in 0..<150_000 {
            let second = Double(index * 7_919 % 150_000)
            samples.append(HeartRateSample(at: base.addingTimeInterval(second), beatsPerMinute: Double(60 + index % 90)))
        }
        var series = HeartRateSeries(samples)
        series.sort()
        #expect(series.count == 150_000)
        #expect(zip(series.dropFirst(), series).allSatisfy { $0.at.timeIntervalSince($1.at) == 1 })
        #expect(series.first?.at == base && series.last?.at == base.addingTimeInterval(149_999))
        // Second 7,919 came from index 1, rate 61; second 0 from index 0, rate 60.
        #expect(series[7_919].beatsPerMinute == 61 && series[0].beatsPerMinute == 60)
    }

    @Test("A series keeps a rate to the hundredth and an instant to the second, and leaves out what cannot be a heart rate")
    func series() {
        let at = instant("2024-01-01T00:00:00Z")
        let series = HeartRateSeries([
            HeartRateSample(at: at, beatsPerMinute: 72.125), HeartRateSample(at: at.addingTimeInterval(59.7), beatsPerMinute: 61.1),
            HeartRateSample(at: at, beatsPerMinute: 251), HeartRateSample(at: instant("1999-12-31T00:00:00Z"), beatsPerMinute: 60),
        ])
        #expect(
            Array(series) == [
                HeartRateSample(at: at, beatsPerMinute: 72.13), HeartRateSample(at: at.addingTimeInterval(59), beatsPerMinute: 61.1),
            ])
    }
}
