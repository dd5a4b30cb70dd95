import DustActivity
import DustKit
import Foundation

/// The instant of an ISO 8601 time with offset, for expectations.
func instant(_ text: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: text) else { fatalError("bad test time \(text)") }
    return date
}

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
    let device = source == "iPhone"
        ? "&lt;&lt;HKDevice: 0x283f1a3c0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone15,2, software:17.2&gt;"
        : "&lt;&lt;HKDevice: 0x283f1a500&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,14, software:10.2&gt;"
    return """
     <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="\(source)" sourceVersion="10.2" device="\(device)" unit="\(unit)" creationDate="\(end)" startDate="\(start)" endDate="\(end)" value="\(value)"/>
    """
}

/// Reads a Health export from memory, `chunkSize` bytes at a time.
func readHealth(_ xml: String, chunkSize: Int = Int.max) throws(ActivityFileError) -> (samples: [DistanceSample], summary: HealthExportSummary) {
    var samples: [DistanceSample] = []
    let summary = try HealthExportReader().read(MemoryByteSource(xml, chunkSize: chunkSize)) { samples.append($0) }
    return (samples, summary)
}

/// Reads a GPX track from memory.
func readGPX(_ xml: String, fileName: String = "walk.gpx", chunkSize: Int = Int.max) throws(ActivityFileError) -> (samples: [DistanceSample], summary: GPXSummary) {
    var samples: [DistanceSample] = []
    let summary = try GPXReader().read(MemoryByteSource(xml, chunkSize: chunkSize), fileName: fileName) { samples.append($0) }
    return (samples, summary)
}

/// The 1-based line of the first occurrence of `needle` in `text`.
func lineNumber(of needle: String, in text: String) -> Int {
    guard let range = text.range(of: needle) else { return 0 }
    return text[..<range.lowerBound].filter { $0 == "\n" }.count + 1
}
