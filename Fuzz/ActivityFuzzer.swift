// libFuzzer entry point for the activity CSV importer (scripts/fuzz.sh).
import Foundation

/// The instant the importer takes as now: rows after it plus a day are skipped, not stored.
private let now = Date(timeIntervalSince1970: 1_795_186_800)  // 2026-11-21T00:00:00+09:00
/// A zone with daylight saving time: its repeated and skipped local hours.
private let parser = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivity(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        let rows = try parser.parse(data, now: now)
        precondition(rows.datedOutsidePeriod >= 0)
        for (slot, distance) in rows.distances {
            precondition(distance >= 0 && distance.isFinite, "a distance of \(distance)")
            precondition(SupportedPeriod.isPlausible(slot.start, now: now), "a slot outside the supported period: \(slot.start)")
        }
    } catch {
        // The line's problem quotes at most 40 characters of the line (and counts the rest): safe to
        // print, and short whatever the line held (40 characters are at most 160 scalars, 640 bytes).
        precondition(!TerminalSafeText.needsSanitizing(error.description), "a control character in \(error.description.debugDescription)")
        precondition(error.description.utf8.count <= 1_000, "a message of \(error.description.utf8.count) bytes")
        precondition(error.line >= 1)
    }
    return 0
}
