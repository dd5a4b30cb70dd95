import DustKit
import DustServices
import Foundation
import Testing

@Suite("Activity CSV")
struct ActivityCSVTests {
    let parser = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!))

    func slot(_ iso: String) -> Slot { Slot(containing: ISO8601DateFormatter().date(from: iso)!) }

    @Test("Local times and ISO 8601 instants name the slot that starts then")
    func valid() throws {
        let csv = "start,distance_m\r\n2026-11-20 08:00,1800\n2026-11-20T09:00:00Z,250.5\n\n2026-11-20T19:00:00+09:00,0\n"
        let distances = try parser.parse(Data(csv.utf8))
        #expect(distances == [
            slot("2026-11-20T08:00:00+09:00"): 1800,
            slot("2026-11-20T18:00:00+09:00"): 250.5,
            slot("2026-11-20T19:00:00+09:00"): 0,
        ])
    }

    @Test("Every bad row is refused with its line number", arguments: [
        ("start,distance\n", 1, "header"),
        ("start,distance_m\n2026-11-20 08:00,-5\n", 2, "distance_m"),
        ("start,distance_m\n2026-11-20 08:00,1800\n2026-11-20 08:30,10\n", 3, "not on the hour"),
        ("start,distance_m\n2026-11-20 08:00,1800\n2026-11-20 08:00,10\n", 3, "line 2"),
        ("start,distance_m\n2026-11-31 08:00,1\n", 2, "ISO 8601"),
        ("start,distance_m\n2026-11-20 08:00\n", 2, "2 fields"),
        ("start,distance_m\n2026-11-20 08:00,lots\n", 2, "lots"),
        ("", 1, "empty"),
    ])
    func invalid(csv: String, line: Int, fragment: String) {
        do {
            _ = try parser.parse(Data(csv.utf8))
            Issue.record("accepted \(csv)")
        } catch {
            #expect(error.line == line)
            #expect(error.description.contains(fragment), "\(error)")
        }
    }

    @Test("A local time skipped by DST is refused; a repeated one takes its first occurrence")
    func daylightSavingTime() throws {
        let newYork = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!))
        #expect(throws: ActivityImportError.self) { try newYork.parse(Data("start,distance_m\n2026-03-08 02:00,100\n".utf8)) }
        let repeated = try newYork.parse(Data("start,distance_m\n2026-11-01 01:00,100\n".utf8))
        #expect(repeated.keys.first == slot("2026-11-01T05:00:00Z"))
    }
}
