import CLibXML2
import DustKit
import Foundation

/// What one Apple Health export held, besides the distances handed out one by one.
public struct HealthExportSummary: Sendable, Hashable {
    /// `HKQuantityTypeIdentifierDistanceWalkingRunning` records turned into samples.
    public var distanceRecords = 0
    /// Every other top-level record, counted by its `type`; past
    /// `ActivityReaderLimits.maxSkippedTypesNamed` distinct types, and a type longer than
    /// `maxTypeNameBytes`, under `otherTypesKey`.
    public var skippedRecordsByType: [String: Int] = [:]
    /// `FileReference` paths of `WorkoutRoute`s, as written (`/workout-routes/route_….gpx`), each cut to
    /// `maxRoutePathBytes`.
    public var workoutRoutePaths: [String] = []
    /// Bytes read from the input.
    public var bytesRead: Int64 = 0
    /// C0 control characters XML forbids, replaced by spaces (iOS 16 writes U+000B in values).
    public var controlCharactersReplaced = 0
    /// Distance records skipped because they cannot be placed in time: ending before they start,
    /// covering more than `DistanceSample.isPlausible` allows (150 km at one instant), or spanning more
    /// than `ActivityReaderLimits.maxSampleDuration` (a week).
    public var recordsDropped = 0
    /// Distance records dated before 2000 or more than a day after the import, skipped
    /// (`SupportedPeriod.isPlausible`).
    public var recordsOutsidePeriod = 0

    /// The key counting record types beyond the named ones.
    public static let otherTypesKey = "(other types)"
    /// The key counting records without a `type`.
    public static let noTypeKey = "(no type)"
    /// The longest `type` named: HealthKit's identifiers are at most about 60 bytes; a type of up to an
    /// attribute's 1 MiB, 512 of them, would be half a GiB kept and megabytes printed by the import.
    public static let maxTypeNameBytes = 128
    /// The most bytes of a route's path kept: a real one is about 50.
    public static let maxRoutePathBytes = 1024

    public init() {}
}

/// Streams Apple Health's `export.xml` in bounded memory and hands out its walking distances.
///
/// Reads only top-level `Record`s of type `HKQuantityTypeIdentifierDistanceWalkingRunning`
/// (units `km`, `m`, `mi`, `ft`; `startDate`/`endDate` with their own offsets), each as a
/// `DistanceSample` whose source is `health:<sourceName>`; records nested in a `Correlation`
/// repeat top-level ones and are not read. Collects `WorkoutRoute/FileReference` paths, so the
/// routes' GPX files can be found in `export.zip`. Any other record is skipped and counted, and so
/// is a distance record dated outside `SupportedPeriod` or one that cannot be placed in time
/// (`DistanceSample.isPlausible`: ending before it starts, faster than 30 m/s, more than 30 m at
/// one instant).
///
/// Given a `HealthPhysiology` to fill, it also reads heart rate, resting heart rate and sleep
/// (docs/REFERENCE.md §18, "Heart rate and sleep"); without one, those records are skipped and
/// counted like any other type.
public struct HealthExportReader: Sendable {
    public static let distanceType: StaticString = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    public static let heartRateType: StaticString = "HKQuantityTypeIdentifierHeartRate"
    public static let restingHeartRateType: StaticString = "HKQuantityTypeIdentifierRestingHeartRate"
    public static let sleepType: StaticString = "HKCategoryTypeIdentifierSleepAnalysis"
    /// The sleep values that are time asleep: before iOS 16 `Asleep`, since then `AsleepUnspecified`
    /// and the Watch's stages. `InBed` and `Awake` are not.
    public static let asleepValues: [StaticString] = [
        "HKCategoryValueSleepAnalysisAsleep", "HKCategoryValueSleepAnalysisAsleepUnspecified", "HKCategoryValueSleepAnalysisAsleepCore",
        "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM",
    ]

    public let limits: ActivityReaderLimits
    /// The time of the import: records dated more than a day after it are skipped.
    public let now: Date

    public init(limits: ActivityReaderLimits = ActivityReaderLimits(), now: Date) {
        self.limits = limits
        self.now = now
    }

    /// Reads the whole export; `onSample` gets each distance in document order, `onProgress` the
    /// bytes read so far whenever more were read.
    public func read(
        _ input: some ByteStream, onProgress: (Int64) -> Void = { _ in },
        onSample: (DistanceSample) -> Void
    ) throws(ActivityFileError) -> HealthExportSummary {
        var physiology: HealthPhysiology?
        return try read(input, onProgress: onProgress, physiology: &physiology, onSample: onSample)
    }

    /// Reads the whole export as `read(_:onProgress:onSample:)` does, and adds its heart rate,
    /// resting heart rate and sleep to `physiology`, in time order once the document is read.
    public func read(
        _ input: some ByteStream, onProgress: (Int64) -> Void = { _ in }, physiology: inout HealthPhysiology,
        onSample: (DistanceSample) -> Void
    ) throws(ActivityFileError) -> HealthExportSummary {
        // Moved, not copied: a second reference to the samples' storage would copy it at the first append.
        var filling: HealthPhysiology? = physiology
        physiology = HealthPhysiology()
        defer { physiology = filling ?? HealthPhysiology() }
        return try read(input, onProgress: onProgress, physiology: &filling, onSample: onSample)
    }

    private func read(
        _ input: some ByteStream, onProgress: (Int64) -> Void, physiology: inout HealthPhysiology?,
        onSample: (DistanceSample) -> Void
    ) throws(ActivityFileError) -> HealthExportSummary {
        var state: State?
        var summary = HealthExportSummary()
        let totals = try ActivityXMLDriver(limits: limits).run(input, documentName: "export.xml", onProgress: onProgress) {
            reader throws(ActivityFileError) in
            if state == nil { state = State(reader: reader) }
            try state!.handleNode(reader, limits: limits, now: now, summary: &summary, physiology: &physiology, onSample: onSample)
        }
        physiology?.finish()
        summary.bytesRead = totals.bytesRead
        summary.controlCharactersReplaced = totals.controlCharactersReplaced
        return summary
    }

    /// Where the reader is in the document, and the names it compares by pointer.
    private struct State {
        let names: Names
        /// The depth of the open `WorkoutRoute`, whose `FileReference` children are collected.
        var routeDepth: Int?
        /// The last skipped type, so a run of records of one type costs no String each.
        var lastSkippedType: [UInt8] = []
        var lastSkippedKey = ""
        /// The last `sourceName` as written and as its source keeps it: an export's records repeat a
        /// handful of device names, and composing one outside `NameForm`'s short path (kana, Cyrillic)
        /// costs Foundation's normalization, 20 times the short path.
        var lastSourceBytes: [UInt8] = []
        var lastSourceName = ""
        /// The distinct sources of distance seen, at most `ActivityReaderLimits.maxHealthSources`.
        var distanceSources: Set<String> = []
        var lastDistanceSource = ""

        init(reader: xmlTextReaderPtr) { names = Names(reader: reader) }

        mutating func handleNode(
            _ reader: xmlTextReaderPtr, limits: ActivityReaderLimits, now: Date, summary: inout HealthExportSummary,
            physiology: inout HealthPhysiology?, onSample: (DistanceSample) -> Void
        ) throws(ActivityFileError) {
            let depth = Int(xmlTextReaderDepth(reader))
            switch UInt32(xmlTextReaderNodeType(reader)) {
            case XML_READER_TYPE_ELEMENT.rawValue:
                let name = xmlTextReaderConstLocalName(reader)
                if depth == 0 {
                    guard name == names.healthData else { throw .notAHealthExport(root: XMLText.string(name)) }
                } else if depth == 1, name == names.record {
                    try record(reader, limits: limits, now: now, summary: &summary, physiology: &physiology, onSample: onSample)
                } else if name == names.workoutRoute, xmlTextReaderIsEmptyElement(reader) == 0 {
                    routeDepth = depth
                } else if name == names.fileReference, let routeDepth, depth == routeDepth + 1,
                    let path = attribute(reader, names.path)
                {
                    guard summary.workoutRoutePaths.count < limits.maxWorkoutRoutes else {
                        throw .tooManyWorkoutRoutes(limit: limits.maxWorkoutRoutes)
                    }
                    // Cut: a path is an attribute of up to 1 MiB, and 20,000 of them are kept.
                    summary.workoutRoutePaths.append(String(decoding: path.prefix(HealthExportSummary.maxRoutePathBytes), as: UTF8.self))
                }
            case XML_READER_TYPE_END_ELEMENT.rawValue:
                if depth == routeDepth { routeDepth = nil }
            default:
                break
            }
        }

        private mutating func record(
            _ reader: xmlTextReaderPtr, limits: ActivityReaderLimits, now: Date, summary: inout HealthExportSummary,
            physiology: inout HealthPhysiology?, onSample: (DistanceSample) -> Void
        ) throws(ActivityFileError) {
            let line = XMLText.line(reader)
            guard let type = attribute(reader, names.type) else {
                summary.skippedRecordsByType[HealthExportSummary.noTypeKey, default: 0] += 1
                return
            }
            guard Self.equals(type, HealthExportReader.distanceType) else {
                if physiology != nil {
                    if Self.equals(type, HealthExportReader.heartRateType) {
                        return try heartRate(reader, line: line, now: now, resting: false, physiology: &physiology!)
                    } else if Self.equals(type, HealthExportReader.restingHeartRateType) {
                        return try heartRate(reader, line: line, now: now, resting: true, physiology: &physiology!)
                    } else if Self.equals(type, HealthExportReader.sleepType) {
                        return try sleep(reader, line: line, now: now, physiology: &physiology!)
                    }
                }
                count(skipped: type, limits: limits, summary: &summary)
                return
            }
            guard let unitText = attribute(reader, names.unit) else {
                throw .invalidRecord(line: line, record: .distance, problem: "has no unit")
            }
            let metresPerUnit: Double
            let unit = String(decoding: unitText, as: UTF8.self)
            switch unit {
            case "km": metresPerUnit = 1000
            case "m": metresPerUnit = 1
            case "mi": metresPerUnit = 1609.344
            case "ft": metresPerUnit = 0.3048
            case let other:
                throw .invalidRecord(
                    line: line, record: .distance, problem: "has the unit \"\(XMLText.short(other))\", not km, m, mi or ft")
            }
            guard let valueText = attribute(reader, names.value) else {
                throw .invalidRecord(line: line, record: .distance, problem: "has no value")
            }
            let valueString = String(decoding: valueText, as: UTF8.self)
            guard let value = DecimalText.parse(valueString), value >= 0 else {
                throw .invalidRecord(
                    line: line, record: .distance, problem: "has the value \"\(XMLText.short(valueString))\", not a distance")
            }
            // No farther than a GPX track may go in the longest sample (30 m/s for 7 days, 18,144 km):
            // a larger value, 1e308 km, made the sample or its hours' sums infinite.
            let maxMetres = DistanceSample.maxSpeed * limits.maxSampleDuration
            guard value * metresPerUnit <= maxMetres else {
                throw .invalidRecord(
                    line: line, record: .distance,
                    problem: "has the value \"\(XMLText.short(valueString))\" \(unit), more than \(Int(maxMetres / 1000)) km")
            }
            guard let startText = attribute(reader, names.startDate), let start = ActivityTime.healthDate(startText),
                let endText = attribute(reader, names.endDate), let end = ActivityTime.healthDate(endText)
            else {
                throw .invalidRecord(
                    line: line, record: .distance, problem: "has a startDate or endDate not of the form 2024-01-01 08:20:00 +0900")
            }
            // Years 1 and 9999 parse; stored, they would be hours nobody can ask about.
            guard SupportedPeriod.isPlausible(start, now: now), SupportedPeriod.isPlausible(end, now: now) else {
                summary.recordsOutsidePeriod += 1
                return
            }
            let metres = value * metresPerUnit
            let seconds = end.timeIntervalSince(start)
            // A record over a week (another app syncing its backlog as one, 41 km from the 10th to the 18th) cannot
            // be placed in the hours it was walked: skipped and counted like the others. It refused the whole
            // export, and exporting again, as the error said, gave the same record.
            guard seconds <= limits.maxSampleDuration else {
                summary.recordsDropped += 1
                return
            }
            // A manual entry of 150 km at one instant would otherwise land whole in one hour.
            guard DistanceSample.isPlausible(metres: metres, seconds: seconds) else {
                summary.recordsDropped += 1
                return
            }
            // Stored, shown and typed back (`activity forget`): no control character or bidi override in it,
            // and no longer than a name.
            var sourceName = ""
            if let bytes = attribute(reader, names.sourceName) {
                if !bytes.elementsEqual(lastSourceBytes) {
                    lastSourceBytes = Array(bytes)
                    lastSourceName = DistanceSample.sourceName(bytes)
                }
                sourceName = lastSourceName
            }
            // Each source holds its own slots while the file is read (about 1 KB) and its rows after.
            if sourceName != lastDistanceSource || distanceSources.isEmpty {
                if !distanceSources.contains(sourceName) {
                    guard distanceSources.count < limits.maxHealthSources else {
                        throw .tooManyHealthSources(limit: limits.maxHealthSources)
                    }
                    distanceSources.insert(sourceName)
                }
                lastDistanceSource = sourceName
            }
            summary.distanceRecords += 1
            onSample(DistanceSample(source: "health:\(sourceName)", start: start, end: end, metres: metres))
        }

        /// A heart-rate or resting heart-rate record: `count/min`, dated in `SupportedPeriod`, its
        /// value within `HeartRateSample.plausibleBeatsPerMinute` or dropped and counted.
        private func heartRate(
            _ reader: xmlTextReaderPtr, line: Int, now: Date, resting: Bool, physiology: inout HealthPhysiology
        ) throws(ActivityFileError) {
            if resting { physiology.restingHeartRateRecords += 1 } else { physiology.heartRateRecords += 1 }
            guard let unitText = attribute(reader, names.unit) else {
                throw .invalidRecord(line: line, record: resting ? .restingHeartRate : .heartRate, problem: "has no unit")
            }
            guard Self.equals(unitText, "count/min") else {
                let unit = String(decoding: unitText, as: UTF8.self)
                throw .invalidRecord(
                    line: line, record: resting ? .restingHeartRate : .heartRate,
                    problem: "has the unit \"\(XMLText.short(unit))\", not count/min")
            }
            guard let valueText = attribute(reader, names.value) else {
                throw .invalidRecord(line: line, record: resting ? .restingHeartRate : .heartRate, problem: "has no value")
            }
            let valueString = String(decoding: valueText, as: UTF8.self)
            // `nan`, `inf` and hex (`0x48`) are numbers only to a C library: no heart rate, dropped below.
            guard let value = DecimalText.parse(valueString) ?? Double(valueString).map({ _ in Double.nan }) else {
                throw .invalidRecord(
                    line: line, record: resting ? .restingHeartRate : .heartRate,
                    problem: "has the value \"\(XMLText.short(valueString))\", not a heart rate")
            }
            let (start, end) = try dates(reader, line: line, record: resting ? .restingHeartRate : .heartRate)
            guard SupportedPeriod.isPlausible(start, now: now), SupportedPeriod.isPlausible(end, now: now) else {
                physiology.recordsOutsidePeriod += 1
                return
            }
            // NaN is outside too.
            guard HeartRateSample.plausibleBeatsPerMinute.contains(value) else {
                physiology.heartRateOutOfRange += 1
                return
            }
            if resting {
                physiology.add(restingHeartRate: RestingHeartRateSample(at: start, beatsPerMinute: value))
            } else {
                physiology.add(heartRate: HeartRateSample(at: start, beatsPerMinute: value))
            }
        }

        /// A sleep record: time asleep when its value is one of `asleepValues`, dated in
        /// `SupportedPeriod`, ending after it starts (else dropped), at most 24 hours (else clipped).
        private func sleep(
            _ reader: xmlTextReaderPtr, line: Int, now: Date, physiology: inout HealthPhysiology
        ) throws(ActivityFileError) {
            guard let value = attribute(reader, names.value) else {
                throw .invalidRecord(line: line, record: .sleep, problem: "has no value")
            }
            guard HealthExportReader.asleepValues.contains(where: { Self.equals(value, $0) }) else {
                physiology.notAsleepRecords += 1
                return
            }
            physiology.asleepRecords += 1
            var (start, end) = try dates(reader, line: line, record: .sleep)
            guard SupportedPeriod.isPlausible(start, now: now), SupportedPeriod.isPlausible(end, now: now) else {
                physiology.recordsOutsidePeriod += 1
                return
            }
            guard end > start else {
                physiology.sleepDropped += 1
                return
            }
            if end.timeIntervalSince(start) > SleepInterval.maxDuration {
                physiology.sleepClipped += 1
                end = start.addingTimeInterval(SleepInterval.maxDuration)
            }
            physiology.add(sleep: SleepInterval(start: start, end: end))
        }

        /// The record's `startDate` and `endDate`, each with its own offset.
        private func dates(
            _ reader: xmlTextReaderPtr, line: Int, record: HealthRecordKind
        ) throws(ActivityFileError) -> (start: Date, end: Date) {
            guard let startText = attribute(reader, names.startDate), let start = ActivityTime.healthDate(startText),
                let endText = attribute(reader, names.endDate), let end = ActivityTime.healthDate(endText)
            else {
                throw .invalidRecord(
                    line: line, record: record, problem: "has a startDate or endDate not of the form 2024-01-01 08:20:00 +0900")
            }
            return (start, end)
        }

        /// Whether the bytes libxml2 handed out are `name`'s.
        private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
            guard bytes.count == name.utf8CodeUnitCount, let base = bytes.baseAddress else { return false }
            return memcmp(base, name.utf8Start, bytes.count) == 0
        }

        private mutating func count(
            skipped type: UnsafeBufferPointer<UInt8>, limits: ActivityReaderLimits, summary: inout HealthExportSummary
        ) {
            if !type.elementsEqual(lastSkippedType) {
                lastSkippedType = Array(type)
                if type.count > HealthExportSummary.maxTypeNameBytes {
                    lastSkippedKey = HealthExportSummary.otherTypesKey
                } else {
                    let name = String(decoding: type, as: UTF8.self)
                    let isKnown = summary.skippedRecordsByType[name] != nil
                    let hasRoom = summary.skippedRecordsByType.count < limits.maxSkippedTypesNamed
                    lastSkippedKey = isKnown || hasRoom ? name : HealthExportSummary.otherTypesKey
                }
            }
            summary.skippedRecordsByType[lastSkippedKey, default: 0] += 1
        }

        /// The value of the current element's attribute `name`, valid until the reader moves on.
        private func attribute(_ reader: xmlTextReaderPtr, _ name: UnsafePointer<xmlChar>?) -> UnsafeBufferPointer<UInt8>? {
            guard let name else { return nil }
            defer { xmlTextReaderMoveToElement(reader) }
            guard xmlTextReaderMoveToFirstAttribute(reader) == 1 else { return nil }
            repeat {
                if xmlTextReaderConstLocalName(reader) == name, let value = xmlTextReaderConstValue(reader) {
                    return XMLText.bytes(value)
                }
            } while xmlTextReaderMoveToNextAttribute(reader) == 1
            return nil
        }
    }

    /// Names interned in the reader's dictionary, compared by pointer.
    private struct Names {
        let healthData, record, workoutRoute, fileReference, path: UnsafePointer<xmlChar>?
        let type, unit, value, startDate, endDate, sourceName: UnsafePointer<xmlChar>?

        init(reader: xmlTextReaderPtr) {
            func intern(_ text: String) -> UnsafePointer<xmlChar>? { xmlTextReaderConstString(reader, text) }
            healthData = intern("HealthData")
            record = intern("Record")
            workoutRoute = intern("WorkoutRoute")
            fileReference = intern("FileReference")
            path = intern("path")
            type = intern("type")
            unit = intern("unit")
            value = intern("value")
            startDate = intern("startDate")
            endDate = intern("endDate")
            sourceName = intern("sourceName")
        }
    }
}
