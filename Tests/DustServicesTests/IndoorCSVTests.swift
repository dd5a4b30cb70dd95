import DustKit
import DustServices
import Foundation
import Testing

/// `dustctl indoor import`'s reader (docs/REFERENCE.md §21) against what a file may cost and what its
/// times may say: a line's length, a zone's repeated hour, rows out of order, signs in a time.
@Suite("Indoor CSV: bounded lines, repeated local times, minutes given again, digits only", .timeLimit(.minutes(10)))
struct IndoorCSVTests {
    /// `HH:mm` written with two digits each.
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    @Test("An indoor CSV line over 1 KiB is refused by its length before its fields are split, the line named and cut; 1 KiB is read")
    func longLine() throws {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        let now = DemoReplay.now
        // A row padded with blanks to exactly 1,024 bytes is a row; one byte more is refused, as is a line of two million commas.
        let padded = "2026-11-20 10:01,9" + String(repeating: " ", count: 1024 - 18)
        #expect(try parser.parse(Data("time,pm25\n\(padded)\r\n".utf8), now: now).series.count == 1)
        let commas = "2026-11-20 10:01,9" + String(repeating: ",", count: 2_000_000)
        for line in [padded + " ", commas, commas + "\r"] {
            for file in ["time,pm25\n2026-11-20 10:00,9\n\(line)\n", "time,pm25\n2026-11-20 10:00,9\n\(line)"] {
                do {
                    _ = try parser.parse(Data(file.utf8), now: now)
                    Issue.record("a line of \(line.utf8.count) bytes was accepted")
                } catch {
                    #expect(error.line == 3)
                    #expect(error.description.hasPrefix("line 3: longer than 1024 bytes"), "\(error.description.prefix(200))")
                    #expect(error.description.contains("\"2026-11-20 10:01,9"), "\(error.description.prefix(200))")
                    #expect(error.description.utf8.count < 300)
                }
            }
        }
        // The header's line too.
        #expect(throws: IndoorCSVError.self) { try parser.parse(Data(("time,pm25" + String(repeating: ",", count: 5000)).utf8), now: now) }
    }

    @Test("An indoor CSV in New York across the autumn repeat: the second 01:00–01:59 is the later occurrence, so 240 rows are 240 minutes")
    func repeatedLocalHour() throws {
        let parser = IndoorCSVParser(calendar: DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!), sensor: "old-monitor")
        // 2026-11-01 00:00–00:59 EDT, 01:00–01:59 EDT, 01:00–01:59 EST, 02:00–02:59 EST: 04:00Z–07:59Z.
        let rows = (0..<240).map { row in
            "2026-11-01 \(two(row < 60 ? 0 : row < 180 ? 1 : 2)):\(two(row % 60)),\(row % 100)"
        }
        let parsed = try parser.parse(Data(("time,pm25\n" + rows.joined(separator: "\n") + "\n").utf8), now: DemoReplay.now)
        let start = Int64(LocalDate(year: 2026, month: 11, day: 1).daysSinceEpoch * 86_400 + 4 * 3600)
        #expect(parsed.series.minutes == (0..<240).map { start + Int64($0 * 60) })
        #expect(parsed.series.pm25 == (0..<240).map { Double($0 % 100) })
        #expect(parsed.series.count == 240 && parsed.sameMinute == 0)
        // A file that begins in the repeated hour reads its first occurrence; one that comes back to it after 02:00 the
        // later (time would otherwise go backwards).
        let first = try parser.parse(Data("time,pm25\n2026-11-01 01:30,4\n".utf8), now: DemoReplay.now)
        #expect(first.series.minutes == [start + 90 * 60])
        let back = try parser.parse(Data("time,pm25\n2026-11-01 02:10,4\n2026-11-01 01:30,5\n".utf8), now: DemoReplay.now)
        #expect(back.series.minutes == [start + 150 * 60, start + 190 * 60])
    }

    @Test("An indoor CSV a spreadsheet saved: quoted times with a comma inside quotes kept in its field, values grouped by thousands")
    func spreadsheet() throws {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        let rows = try parser.parse(
            Data("\"time\",\"pm25\",\"pm10\"\r\n\"2026-11-20 10:00\",\"12.5\",\"1,000\"\r\n\"2026-11-20 10:01\",\"\",7\r\n".utf8),
            now: DemoReplay.now)
        #expect(rows.series.samples.map(\.value.ultraFineDust) == [12.5, nil])
        #expect(rows.series.samples.map(\.value.fineDust) == [1000, 7])
        #expect(throws: IndoorCSVError.self) { try parser.parse(Data("time,pm25\n2026-11-20 10:00,\"1,5\"\n".utf8), now: DemoReplay.now) }
    }

    @Test("Indoor CSV rows out of order: a minute given again replaces the earlier row wherever it was, and is counted")
    func minuteGivenAgain() throws {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        let rows = try parser.parse(
            Data("time,pm25\n2026-11-20 10:00,5\n2026-11-20 10:01,6\n2026-11-20 10:00,7\n2026-11-20 10:01:30,8\n".utf8), now: DemoReplay.now
        )
        let ten = Scratch.slot(november20, hour: 10).start
        #expect(rows.series.samples.map(\.at) == [ten, ten.addingTimeInterval(60)])
        #expect(rows.series.samples.map(\.value.ultraFineDust) == [7, 8])
        #expect(rows.series.count == 2 && rows.sameMinute == 2)
    }

    @Test(
        "A leap second (the last of a UTC day: 08:59:60 in Seoul) in an indoor CSV is the next minute, local or with an offset; other :60s and :61 are refused"
    )
    func leapSecond() throws {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        // 2026-11-19 09:00 KST = 00:00 UTC, before the demo's clock (a row more than a day ahead of it is skipped).
        let nine = Int64(LocalDate(year: 2026, month: 11, day: 19).daysSinceEpoch * 86_400)
        for time in ["2026-11-19 08:59:60", "2026-11-19T08:59:60+09:00", "2026-11-18T23:59:60Z"] {
            let rows = try parser.parse(Data("time,pm25\n2026-11-19 08:59,4\n\(time),5\n".utf8), now: DemoReplay.now)
            #expect(rows.series.minutes == [nine - 60, nine], "\(time)")
            #expect(rows.series.pm25 == [4, 5], "\(time)")
        }
        for time in ["2026-11-19 23:59:60", "2026-11-19T23:59:60+09:00", "2026-11-19 08:59:61", "2026-11-18T23:59:61Z"] {
            #expect(throws: IndoorCSVError.self, "\(time)") {
                try parser.parse(Data("time,pm25\n\(time),5\n".utf8), now: DemoReplay.now)
            }
        }
    }

    @Test("A CSV time is ASCII digits in fixed places: a sign or a blank is refused, not read as a number")
    func signedTimes() {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        for time in [
            "2026-12-01 +1:+5", "2026-12-01 01:+5", "2026-12-01 -0:05", "2026-12-01 +1:05", "2026-12-01 01:05:+9", "2026-12-01  1:05",
        ] {
            #expect(throws: IndoorCSVError.self, "\(time)") {
                try parser.parse(Data("time,pm25\n\(time),5\n".utf8), now: DemoReplay.now)
            }
        }
    }

    @Test(
        "An indoor CSV of more rows than a year of minutes and two months (600,000) is refused before any is held, saying to split it; 32 MiB is the file limit"
    )
    func tooManyRows() {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        #expect(IndoorCSVParser.maxBytes == 32 * 1024 * 1024)
        // 600,001 minutes from 2024-01-01, 19 bytes a row: 11 MB, well inside the byte limit.
        var file = "time,pm25\n"
        file.reserveCapacity(20 * 600_001 + 10)
        let start = LocalDate(year: 2024, month: 1, day: 1)
        for row in 0..<600_001 {
            let (day, minuteOfDay) = (row / 1440, row % 1440)
            file += "\(start.adding(days: day)) \(two(minuteOfDay / 60)):\(two(minuteOfDay % 60)),5\n"
        }
        do {
            let rows = try parser.parse(Data(file.utf8), now: DemoReplay.now)
            Issue.record("accepted \(rows.series.count) samples")
        } catch {
            #expect(error.line == 600_002)
            #expect(error.description.contains("600001 lines after its header; at most 600000 rows"), "\(error)")
            #expect(error.description.contains("split the export by year"), "\(error)")
        }
    }
}
