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

    @Test("A file a spreadsheet saved: quoted fields, a distance grouped by thousands (\"1,200\"), a doubled quote, a BOM and CRLF")
    func spreadsheet() throws {
        let csv =
            "\u{FEFF}\"start\",\"distance_m\"\r\n\"2026-11-20 08:00\",\"1,200\"\r\n"
            + " 2026-11-20 09:00 , \"12,345.5\" \r\n2026-11-20 10:00,\"700\"\r\n"
        let distances = try parser.parse(Data(csv.utf8), now: now).distances
        #expect(
            distances == [
                slot("2026-11-20T08:00:00+09:00"): 1200,
                slot("2026-11-20T09:00:00+09:00"): 12345.5,
                slot("2026-11-20T10:00:00+09:00"): 700,
            ])
    }

    @Test(
        "A comma is a thousands separator only in groups of three, and a quote left open is refused: never a decimal comma read as thousands",
        arguments: [
            ("start,distance_m\n2026-11-20 08:00,\"1,2\"\n", "\"1,2\""),
            ("start,distance_m\n2026-11-20 08:00,\"1,2000\"\n", "\"1,2000\""),
            ("start,distance_m\n2026-11-20 08:00,\",100\"\n", "\",100\""),
            ("start,distance_m\n2026-11-20 08:00,\"1234,567\"\n", "\"1234,567\""),
            ("start,distance_m\n2026-11-20 08:00,\"1,200.5.5\"\n", "\"1,200.5.5\""),
            // A decimal comma after a point (German 1.234,5), a comma in the fraction, a leading zero: never thousands.
            ("start,distance_m\n2026-11-20 08:00,\"1.234,5\"\n", "\"1.234,5\""),
            ("start,distance_m\n2026-11-20 08:00,\"1,200.5,5\"\n", "\"1,200.5,5\""),
            ("start,distance_m\n2026-11-20 08:00,\"0,500\"\n", "\"0,500\""),
            ("start,distance_m\n2026-11-20 08:00,\"1,200\n", "not closed"),
            ("start,distance_m\n2026-11-20 08:00,1,200\n", "found 3"),
        ])
    func groupedOrNot(csv: String, fragment: String) {
        do {
            _ = try parser.parse(Data(csv.utf8), now: now)
            Issue.record("accepted \(csv)")
        } catch {
            #expect(error.line == 2)
            #expect(error.description.contains(fragment), "\(error)")
        }
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

    @Test(
        "An ISO start that is no time is refused with its line, as the local form and the indoor CSV refuse it: no 30 February, no +99:00, nothing after the offset",
        arguments: [
            "2026-02-30T08:00:00+09:00", "2026-11-31T08:00:00+09:00", "2026-02-29T08:00:00Z", "2026-11-20T08:00:00+99:00",
            "2026-11-20T08:00:00-99:00", "2026-11-20T08:00:00+09:60", "2026-11-20T08:00:00+15:00", "2026-11-20T08:00:00-14:01",
            "2026-11-20T08:00:00+09:00junk", "2026-11-20T08:00:00Z+09:00", "2026-11-20T08:00:00 +09:00", "2026-11-20T24:00:00+09:00",
            "2026-11-20T08:60:00+09:00", "2026-11-20T08:00:60+09:00", "2026-11-20T08:00:61+09:00", "2026-11-20T08:00:00.+09:00",
            "2026-11-20T08:00:00+0900x",
            "2026-11-20T08:00:00", "2026-11-20T08:00+09:00", "2026-11-20 08::00", "2026-11-20  08:00",
        ])
    func impossibleISOTimes(start: String) {
        expectRefused(start, saying: "start must be")
    }

    /// A file whose second row starts at `start` is refused on line 3, its problem saying `problem`.
    private func expectRefused(_ start: String, saying problem: String) {
        do {
            let rows = try parser.parse(Data("start,distance_m\n2026-11-19 08:00,5\n\(start),1234\n".utf8), now: now)
            Issue.record("accepted \(start) as \(rows.distances)")
        } catch {
            #expect(error.line == 3, "\(error)")
            #expect(error.description.contains(problem), "\(error)")
        }
    }

    @Test("The ISO form still takes every real offset, Z and fractional seconds: ±14:00, +05:45, -09:30")
    func realOffsets() throws {
        let csv =
            "start,distance_m\n2026-11-20T22:00:00+14:00,1\n2026-11-20T18:45:00.000+05:45,2\n2026-11-19T13:30:00-09:30,3\n2026-11-19T10:00:00-14:00,4\n"
        let distances = try parser.parse(Data(csv.utf8), now: now).distances
        #expect(
            distances == [
                slot("2026-11-20T08:00:00Z"): 1, slot("2026-11-20T13:00:00Z"): 2, slot("2026-11-19T23:00:00Z"): 3,
                slot("2026-11-19T23:00:00Z").advanced(by: 1): 4,
            ])
    }

    @Test(
        "A leap second (08:59:60 in Seoul, the last of a UTC day) ends an hour, so no row names it: refused as not on the hour, not stored as 09:00"
    )
    func leapSecondStart() {
        for start in ["2026-11-20T08:59:60+09:00", "2026-11-19T23:59:60Z"] {
            expectRefused(start, saying: "is not on the hour")
        }
    }

    @Test(
        "In a zone whose offset is not whole hours a local row names the hour by the time it begins there (Kolkata 08:30, Kathmandu 08:45); 08:00 is refused saying when the hours begin"
    )
    func halfHourZones() throws {
        let kolkata = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Kolkata")!))
        let rows = try kolkata.parse(Data("start,distance_m\n2026-11-20 08:30,1234\n2026-11-20 00:30,7\n".utf8), now: now)
        #expect(rows.distances == [slot("2026-11-20T03:00:00Z"): 1234, slot("2026-11-19T19:00:00Z"): 7])
        let kathmandu = ActivityCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Kathmandu")!))
        #expect(
            try kathmandu.parse(Data("start,distance_m\n2026-11-20 08:45,5\n".utf8), now: now).distances == [
                slot("2026-11-20T03:00:00Z"): 5
            ])
        do {
            _ = try kolkata.parse(Data("start,distance_m\n2026-11-20 08:00,1234\n".utf8), now: now)
            Issue.record("08:00 accepted in Kolkata")
        } catch {
            #expect(error.line == 2)
            #expect(
                error.description
                    == "line 2: start \"2026-11-20 08:00\" is not on the hour; each row is the hour that starts then (in Asia/Kolkata the hours around it begin at 2026-11-20 07:30 and 2026-11-20 08:30)"
            )
        }
    }

    @Test(
        "Re-importing a corrected CSV removes the hour it no longer has (its first to its last hour replaced); a CSV of another day keeps the first's hours"
    )
    func correctedReimport() async throws {
        let directory = try TemporaryDirectory("finedust-csv")
        defer { directory.remove() }
        let store = SQLiteStore.scratch()
        let service = ActivityService(store: store, calendar: parser.calendar, clock: FixedClock(now))
        let (first, corrected, other) = (directory.path("walks.csv"), directory.path("walks-fixed.csv"), directory.path("nov19.csv"))
        try Data("start,distance_m\n2026-11-20 08:00,1000\n2026-11-20 09:00,2000\n2026-11-20 10:00,3000\n".utf8).write(
            to: URL(fileURLWithPath: first))
        try Data("start,distance_m\n2026-11-20 08:00,1000\n2026-11-20 10:00,3000\n".utf8).write(to: URL(fileURLWithPath: corrected))
        try Data("start,distance_m\n2026-11-19 18:00,400\n".utf8).write(to: URL(fileURLWithPath: other))
        _ = try await service.importFile(atPath: other)
        _ = try await service.importFile(atPath: first)
        _ = try await service.importFile(atPath: corrected)
        #expect(
            try await store.activity(source: ActivitySourceBatch.csvSource) == [
                slot("2026-11-19T18:00:00+09:00"): 400, slot("2026-11-20T08:00:00+09:00"): 1000, slot("2026-11-20T10:00:00+09:00"): 3000,
            ])
    }
}
