// libFuzzer entry point for the activity CSV importer (scripts/fuzz.sh).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivity(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let parser = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!))
    if let distances = try? parser.parse(data) {
        precondition(distances.values.allSatisfy { $0 >= 0 && $0.isFinite })
    }
    return 0
}
