import DustActivity
import DustKit
import Foundation
import TestSupport

/// The slot starting at a whole UTC hour given in ISO 8601.
func slot(_ text: String) -> Slot { Slot(containing: instant(text)) }

/// A Health export with Apple's prolog around `body` (Records and other elements).
func healthExport(_ body: String, subset: String = appleSubset) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    \(subset)
    ]>
    <HealthData locale="ko_KR">
     <ExportDate value="2024-01-02 21:00:00 +0900"/>
     <Me HKCharacteristicTypeIdentifierDateOfBirth="" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexNotSet" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
    \(body)
    </HealthData>
    """
}

/// The start of Apple's internal subset: enough of its shape for inline exports.
let appleSubset = """
    <!-- HealthKit Export Version: 13 -->
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
    <!ATTLIST HealthData
      locale CDATA #REQUIRED
    >
    <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
    <!ATTLIST Record
      type          CDATA #REQUIRED
      unit          CDATA #IMPLIED
      value         CDATA #IMPLIED
      sourceName    CDATA #REQUIRED
      startDate     CDATA #REQUIRED
      endDate       CDATA #REQUIRED
    >
    """

/// One distance record in Apple's shape.
func distanceRecord(source: String = "Apple Watch", unit: String = "km", value: String, start: String, end: String) -> String {
    let device =
        source == "iPhone"
        ? "&lt;&lt;HKDevice: 0x283f1a3c0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.2&gt;"
        : "&lt;&lt;HKDevice: 0x283f1a500&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,14, software:10.2&gt;"
    return """
         <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="\(source)" sourceVersion="10.2" device="\(device)" unit="\(unit)" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="\(value)"/>
        """
}

/// The Watch's device description, as Health writes it in every record.
let watchDevice =
    "&lt;&lt;HKDevice: 0x283f1a500&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,14, software:10.2&gt;"

/// One heart-rate sample in Apple's shape: an instant, `count/min`, the motion context as a child.
func heartRateRecord(_ value: String, at time: String, unit: String = "count/min", context: Int = 0) -> String {
    """
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" sourceVersion="10.2" device="\(watchDevice)" unit="\(unit)" creationDate="\(time)" startDate="\(time)" endDate="\(time)" value="\(value)">
      <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="\(context)"/>
     </Record>
    """
}

/// One day's resting heart rate in Apple's shape: the day's span, `count/min`.
func restingHeartRateRecord(_ value: String, start: String, end: String) -> String {
    """
     <Record type="HKQuantityTypeIdentifierRestingHeartRate" sourceName="Apple Watch" sourceVersion="10.2" device="\(watchDevice)" unit="count/min" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="\(value)"/>
    """
}

/// One sleep record in Apple's shape: no unit, the value `HKCategoryValueSleepAnalysis<value>`, the time zone as a child.
func sleepRecord(_ value: String, start: String, end: String, source: String = "Apple Watch") -> String {
    """
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="\(source)" sourceVersion="10.2" device="\(watchDevice)" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="HKCategoryValueSleepAnalysis\(value)">
      <MetadataEntry key="HKTimeZone" value="Asia/Seoul"/>
     </Record>
    """
}

/// Reads a Health export from memory with its heart rate and sleep, `chunkSize` bytes at a time.
func readPhysiology(
    _ xml: String, chunkSize: Int = Int.max, now: Date = Date()
) throws(ActivityFileError) -> (physiology: HealthPhysiology, samples: [DistanceSample], summary: HealthExportSummary) {
    var samples: [DistanceSample] = []
    var physiology = HealthPhysiology()
    let summary = try HealthExportReader(now: now).read(MemoryByteStream(xml, chunkSize: chunkSize), physiology: &physiology) {
        samples.append($0)
    }
    return (physiology, samples, summary)
}

/// Reads a Health export from memory, `chunkSize` bytes at a time.
func readHealth(
    _ xml: String, chunkSize: Int = Int.max
) throws(ActivityFileError) -> (samples: [DistanceSample], summary: HealthExportSummary) {
    var samples: [DistanceSample] = []
    let summary = try HealthExportReader(now: Date()).read(MemoryByteStream(xml, chunkSize: chunkSize)) { samples.append($0) }
    return (samples, summary)
}

/// Reads a GPX track from memory.
func readGPX(
    _ xml: String, fileName: String = "walk.gpx", chunkSize: Int = Int.max
) throws(ActivityFileError) -> (samples: [DistanceSample], summary: GPXSummary) {
    var samples: [DistanceSample] = []
    let summary = try GPXReader(now: Date()).read(MemoryByteStream(xml, chunkSize: chunkSize), fileName: fileName) { samples.append($0) }
    return (samples, summary)
}

/// The 1-based line of the first occurrence of `needle` in `text`.
func lineNumber(of needle: String, in text: String) -> Int {
    guard let range = text.range(of: needle) else { return 0 }
    return text[..<range.lowerBound].filter { $0 == "\n" }.count + 1
}

/// An export of `records` distance records, generated piece by piece as it is read, never whole
/// in memory: one Watch record of 100 m every 10 minutes from 2024-01-01 00:00 KST; with
/// `heartRate`, one heart-rate sample every minute instead, 60 to 119 beats/min in turn.
struct GeneratedExport: ByteStream {
    let records: Int
    var heartRate = false
    private var produced = 0
    private var buffered: [UInt8] = Array(healthExport("").utf8.dropLast("</HealthData>".utf8.count))
    private var bufferedOffset = 0
    private var finished = false
    /// The largest piece a reader asked for.
    private(set) var largestRequest = 0

    init(records: Int, heartRate: Bool = false) {
        self.records = records
        self.heartRate = heartRate
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        largestRequest = max(largestRequest, buffer.count)
        if bufferedOffset == buffered.count {
            guard !finished else { return 0 }
            buffered = Array(nextText().utf8)
            bufferedOffset = 0
        }
        let count = min(buffer.count, buffered.count - bufferedOffset)
        buffered.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + bufferedOffset, byteCount: count) }
        bufferedOffset += count
        return count
    }

    private mutating func nextText() -> String {
        guard produced < records else {
            finished = true
            return "</HealthData>\n"
        }
        var text = ""
        for _ in 0..<min(100, records - produced) {
            if heartRate {
                let at = Date(timeIntervalSince1970: 1_703_948_400 + Double(produced) * 60)
                text += heartRateRecord("\(60 + produced % 60)", at: healthDate(at)) + "\n"
                produced += 1
                continue
            }
            let start = Date(timeIntervalSince1970: 1_703_948_400 + Double(produced) * 600)
            produced += 1
            text += distanceRecord(value: "0.1", start: healthDate(start), end: healthDate(start.addingTimeInterval(600))) + "\n"
        }
        return text
    }

    private func healthDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 9 * 3600)!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year!)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):00 +0900"
    }
}

/// Reads through a pointer to a stream, so a test can inspect the stream after the reader is done.
struct ByteStreamReference<Stream: ByteStream>: ByteStream {
    let pointer: UnsafeMutablePointer<Stream>

    init(_ pointer: UnsafeMutablePointer<Stream>) { self.pointer = pointer }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        try pointer.pointee.read(into: buffer)
    }
}
