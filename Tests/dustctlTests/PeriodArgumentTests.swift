import ArgumentParser
import DustKit
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// Every dustctl option or argument that takes a date or a week accepts exactly the supported
/// ones (2000-01-01 … 2099-12-31; weeks whose seven days lie there) and refuses the rest as a usage
/// error (64) whose sentence names the range.
@Suite("dustctl dates and weeks: supported ones parse, others are usage errors naming the range", .timeLimit(.minutes(10)))
struct PeriodArgumentTests {
    /// Each command line, with the date or week put where `*` is.
    static let dateCommands = [["day", "*"], ["hourly", "*"], ["export", "--from", "*", "--to", "*"]]
    static let weekCommands = [["week", "--iso", "*"], ["export", "--week", "*"]]

    @Test("Boundary and random dates and weeks: parsed when supported, else exit 64 with the range")
    func parsing() {
        let random = PeriodSamples.random(count: 60, seed: 64)
        for (commands, texts, parse) in [
            (Self.dateCommands, PeriodSamples.boundaryDates + random.dates, { (text: String) in (try? SupportedPeriod.date(text)) != nil }),
            (Self.weekCommands, PeriodSamples.boundaryWeeks + random.weeks, { (text: String) in (try? SupportedPeriod.week(text)) != nil }),
            // A rolling week's end: a supported date whose week begins on one too (the message names where it may end).
            (
                [["week", "--end", "*"]], PeriodSamples.boundaryDates + random.dates,
                { (text: String) in (try? SupportedPeriod.weekEnd(text)) != nil }
            ),
        ] {
            for text in texts where !text.isEmpty && !text.hasPrefix("-") {
                let supported = parse(text)
                for command in commands {
                    let arguments = command.map { $0 == "*" ? text : $0 }
                    do {
                        _ = try DustCtl.parseAsRoot(arguments)
                        #expect(supported, "accepted \(arguments)")
                    } catch {
                        #expect(!supported, "refused \(arguments): \(DustCtl.message(for: error))")
                        #expect(DustCtl.exitCode(for: error) == .validationFailure, "\(arguments)")
                        let message = DustCtl.message(for: error)
                        let weekTooEarly = (try? SupportedPeriod.date(text)) != nil
                        #expect(
                            message.contains(weekTooEarly ? "end it on 2000-01-07 or later" : "2000-01-01 to 2099-12-31"),
                            "\(arguments): \(message)")
                    }
                }
            }
        }
    }

    @Test("--now is held to the dates FineDust keeps by the day it falls on in the configured zone, not by the year typed")
    func nowByTheDayInZone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        for (now, day) in [
            ("2099-12-31T23:59-12:00", "2100-01-01"), ("2000-01-01T00:00+14:00", "1999-12-31"),
            // A Raspberry Pi's clock before NTP, and a year far ahead: the range is named, not "not a time".
            ("1970-01-01T00:00", "1970-01-01"), ("2200-06-01T12:00Z", "2200-06-01"), ("0001-01-01T12:00Z", "0001-01-01"),
        ] {
            for command in [["today"], ["week"], ["export"], ["today", "--json"]] {
                let run = try await dustctl(command + ["--now", now, "--station", "종로구", "--db", db], environment: ["LC_ALL": "C"])
                #expect(run.status == 64, "\(command) \(now): \(run.standardOutput)")
                #expect(
                    run.standardError
                        == "dustctl: --now \"\(now)\" is \(day) in the configured zone, outside the dates FineDust keeps (2000-01-01 – 2099-12-31).\n",
                    "\(run.standardError)")
            }
        }
        // 1999-12-31T20:00Z is 05:00 on 2000-01-01 in Korea: a time FineDust keeps, as a Korean would type it.
        let first = try await dustctl("today", "--now", "1999-12-31T20:00Z", "--station", "종로구", "--db", db, "--json")
        #expect(first.status == 0 && first.standardOutput.contains("\"date\":\"2000-01-01\""), "\(first.standardError)")
    }

    @Test("dustctl week --end 1999-12-31 and export --week 1999-W52 exit 64 with one sentence naming the range")
    func process() async throws {
        let early = try await dustctl("week", "--end", "1999-12-31", "--db", "/nonexistent/dust.sqlite")
        #expect(early.status == 64)
        #expect(
            early.standardError.hasPrefix(
                "Error: The value '1999-12-31' is invalid for '--end <YYYY-MM-DD>': "
                    + "1999-12-31 is outside the dates FineDust keeps; give a day from 2000-01-01 to 2099-12-31.\n"))
        let spanning = try await dustctl("export", "--week", "1999-W52", "--db", "/nonexistent/dust.sqlite")
        #expect(spanning.status == 64)
        #expect(spanning.standardError.contains("1999-W52 runs 1999-12-27 to 2000-01-02, outside the dates FineDust keeps"))
        let year1 = try await dustctl("day", "0001-01-01", "--db", "/nonexistent/dust.sqlite")
        #expect(year1.status == 64 && year1.standardError.contains("0001-01-01 is outside the dates FineDust keeps"))
        // --per week makes whole weeks of --from/--to: one reaching past the period is refused the same way.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        for (from, to, week) in [
            ("2099-12-30", "2099-12-31", "2099-W53 runs 2099-12-28 to 2100-01-03"), ("2000-01-01", "2000-01-05", "1999-W52 runs"),
        ] {
            let result = try await dustctl("export", "--from", from, "--to", to, "--per", "week", "--station", "종로구", "--db", db)
            #expect(result.status == 64 && result.standardError.contains(week) && result.standardOutput.isEmpty, "\(result.standardError)")
        }
        let days = try await dustctl("export", "--from", "2099-12-30", "--to", "2099-12-31", "--station", "종로구", "--db", db)
        #expect(days.status == 0, "\(days.standardError)")
        // A rolling week is held to the period as an ISO week is: ending on 2000-01-06 it would begin in 1999.
        let reaching = try await dustctl("week", "--end", "2000-01-06", "--station", "종로구", "--db", db)
        #expect(reaching.status == 64 && reaching.standardOutput.isEmpty)
        #expect(
            reaching.standardError.contains(
                "the week ending 2000-01-06 would begin on 1999-12-31, outside the dates FineDust keeps; end it on 2000-01-07 or later."),
            "\(reaching.standardError)")
        // Today's week on a clock of 2000-01-03 reaches into 1999 too: refused, not shown with days of 1999.
        let today = try await dustctl("week", "--now", "2000-01-03T12:00", "--station", "종로구", "--db", db)
        #expect(today.status == 64 && today.standardOutput.isEmpty)
        #expect(today.standardError.contains("the week ending 2000-01-03 would begin on 1999-12-28"), "\(today.standardError)")
        let firstWeek = try await dustctl("week", "--end", "2000-01-07", "--station", "종로구", "--db", db, "--json")
        #expect(firstWeek.status == 0 && firstWeek.standardOutput.contains(#""start":"2000-01-01""#), "\(firstWeek.standardError)")
    }
}
