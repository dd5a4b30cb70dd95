import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("Activity CSV", .timeLimit(.minutes(10)))
struct ActivityCSVTests {
    let parser = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!))

    /// 2026-11-21 00:20 KST, when the demo's data ends.
    let now = DemoReplay.now

    func slot(_ iso: String) -> Slot { Slot(containing: ISO8601DateFormatter().date(from: iso)!) }

    @Test("Local times and ISO 8601 instants name the slot that starts then")
    func valid() async throws {
        let csv = "start,distance_m\r\n2026-11-20 08:00,1800\n2026-11-20T09:00:00Z,250.5\n\n2026-11-20T19:00:00+09:00,0\n"
        let distances = try parser.parse(Data(csv.utf8), now: now).distances
        #expect(
            distances == [
                slot("2026-11-20T08:00:00+09:00"): 1800,
                slot("2026-11-20T18:00:00+09:00"): 250.5,
                slot("2026-11-20T19:00:00+09:00"): 0,
            ])
    }

    @Test(
        "Every bad row is refused with its line number",
        arguments: [
            ("start,distance\n", 1, "header"),
            ("start,distance_m\n2026-11-20 08:00,-5\n", 2, "distance_m"),
            ("start,distance_m\n2026-11-20 08:00,1800\n2026-11-20 08:30,10\n", 3, "not on the hour"),
            ("start,distance_m\n2026-11-20 08:00,1800\n2026-11-20 08:00,10\n", 3, "line 2"),
            ("start,distance_m\n2026-11-31 08:00,1\n", 2, "ISO 8601"),
            ("start,distance_m\n2026-11-20 08:00\n", 2, "2 fields"),
            ("start,distance_m\n2026-11-20 08:00,lots\n", 2, "lots"),
            ("start,distance_m\n2026-11-20 08:00,0x10\n", 2, "\"0x10\""),
            ("start,distance_m\n2026-11-20 08:00,inf\n", 2, "\"inf\""),
            ("", 1, "empty"),
        ])
    func invalid(csv: String, line: Int, fragment: String) {
        do {
            _ = try parser.parse(Data(csv.utf8), now: now).distances
            Issue.record("accepted \(csv)")
        } catch {
            #expect(error.line == line)
            #expect(error.description.contains(fragment), "\(error)")
        }
    }

    @Test(
        "A 900-character field is quoted by its first 40 characters and the count of the rest; a 15 MB one refused by its line's length; control characters replaced"
    )
    func hugeField() {
        for (count, said) in [(900, "more characters"), (15 << 20, "line 2: longer than 1024 bytes")] {
            let field = "\u{1B}]0;pwned\u{07}" + String(repeating: "9", count: count)
            do {
                _ = try parser.parse(Data("start,distance_m\n2026-11-20 08:00,\(field)\n".utf8), now: now)
                Issue.record("accepted")
            } catch {
                #expect(error.description.count < 300, "\(error.description.prefix(300))")
                #expect(error.description.contains(said), "\(error.description.prefix(300))")
                #expect(!error.description.contains("\u{1B}") && !error.description.contains("\u{07}"))
            }
        }
    }

    @Test("A field of one character with a million combining marks is not written back: the quote is bounded in bytes")
    func combiningMarks() {
        // Within a line's 1 KiB: one character of 500 combining marks (1,001 bytes).
        let field = "e" + String(repeating: "\u{0301}", count: 500)
        do {
            _ = try parser.parse(Data("start,distance_m\n2026-11-20 08:00,\(field)\n".utf8), now: now)
            Issue.record("accepted")
        } catch {
            #expect(error.description.utf8.count < 400, "\(error.description.utf8.count) bytes")
            #expect(error.description.hasSuffix("\"…\" (1 more characters)"), "\(error.description.prefix(200))")
        }
    }

    @Test("A line over 1 KiB is refused by its length before its fields are split, named and cut; a sign in a time is refused")
    func longLineAndSigns() {
        let commas = "2026-11-20 08:00,1" + String(repeating: ",", count: 2_000_000)
        do {
            _ = try parser.parse(Data("start,distance_m\n\(commas)\n".utf8), now: now)
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("line 2: longer than 1024 bytes"), "\(error.description.prefix(200))")
            #expect(error.description.utf8.count < 300)
        }
        for time in ["2026-11-20 +8:00", "2026-11-20 08:+0", "2026-11-20 -8:00"] {
            #expect(throws: ActivityCSVError.self, "\(time)") { try parser.parse(Data("start,distance_m\n\(time),100\n".utf8), now: now) }
        }
    }

    @Test("A local time skipped by DST is refused; a repeated one takes its first occurrence")
    func daylightSavingTime() async throws {
        let newYork = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!))
        #expect(throws: ActivityCSVError.self) { try newYork.parse(Data("start,distance_m\n2026-03-08 02:00,100\n".utf8), now: now) }
        let repeated = try newYork.parse(Data("start,distance_m\n2026-11-01 01:00,100\n".utf8), now: now).distances
        #expect(repeated.keys.first == slot("2026-11-01T05:00:00Z"))
    }

    @Test(
        "Rows dated before 2000 or more than a day ahead are skipped and counted, alike for 0001-01-01 and 9999-12-31, local or with an offset"
    )
    func datesOutsidePeriod() async throws {
        let csv = """
            start,distance_m
            0001-01-01 00:00,1
            0001-01-01T00:00:00Z,2
            1999-12-31 23:00,3
            1999-12-31T09:00:00Z,4
            2000-01-01 00:00,5
            2026-11-20 08:00,1800
            2026-11-22 00:00,6
            2026-11-22T01:00:00+09:00,7
            2100-01-01 00:00,8
            9999-12-31 00:00,9
            9999-12-31T00:00:00Z,10
            """
        let rows = try parser.parse(Data(csv.utf8), now: now)
        // 2026-11-22 00:00 KST is 23 h 40 min after now: within the day's allowance; 01:00 is not.
        #expect(
            rows.distances == [
                slot("2000-01-01T00:00:00+09:00"): 5, slot("2026-11-20T08:00:00+09:00"): 1800,
                slot("2026-11-22T00:00:00+09:00"): 6,
            ])
        #expect(rows.datedOutsidePeriod == 8)
        // A row skipped for its date is not an error, but a malformed one still is.
        #expect(throws: ActivityCSVError.self) { try parser.parse(Data("start,distance_m\n0000-01-01 00:00,1\n".utf8), now: now) }
        #expect(throws: ActivityCSVError.self) { try parser.parse(Data("start,distance_m\n1900-01-01 00:00,-1\n".utf8), now: now) }
    }

    @Test("activity import of a CSV counts its skipped rows in the summary and stores the rest")
    func summaryCounts() async throws {
        let directory = try TemporaryDirectory("finedust-csv")
        defer { directory.remove() }
        let store = SQLiteStore.scratch()
        let path = directory.path("walks.csv")
        try Data("start,distance_m\n1900-01-01 00:00,700\n2026-11-20 18:00,1500\n9999-12-31T00:00:00Z,9\n".utf8).write(
            to: URL(fileURLWithPath: path))
        let summary = try await ActivityService(store: store, calendar: parser.calendar, clock: FixedClock(now)).importFile(atPath: path)
        #expect(summary.recordsUsed == 1 && summary.datedOutsidePeriod == 2)
        #expect(try await store.activity(source: ActivitySourceBatch.csvSource) == [slot("2026-11-20T18:00:00+09:00"): 1500])
    }
}
