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
    static let dateCommands = [["day", "*"], ["hourly", "*"], ["week", "--end", "*"], ["export", "--from", "*", "--to", "*"]]
    static let weekCommands = [["week", "--iso", "*"], ["export", "--week", "*"]]

    @Test("Boundary and random dates and weeks: parsed when supported, else exit 64 with the range")
    func parsing() {
        let random = PeriodSamples.random(count: 60, seed: 64)
        for (commands, texts, parse) in [
            (Self.dateCommands, PeriodSamples.boundaryDates + random.dates, { (text: String) in (try? SupportedPeriod.date(text)) != nil }),
            (Self.weekCommands, PeriodSamples.boundaryWeeks + random.weeks, { (text: String) in (try? SupportedPeriod.week(text)) != nil }),
        ] {
            for text in texts where !text.isEmpty && !text.hasPrefix("-") {
                let supported = parse(text) ?? false
                for command in commands {
                    let arguments = command.map { $0 == "*" ? text : $0 }
                    do {
                        _ = try DustCtl.parseAsRoot(arguments)
                        #expect(supported, "accepted \(arguments)")
                    } catch {
                        #expect(!supported, "refused \(arguments): \(DustCtl.message(for: error))")
                        #expect(DustCtl.exitCode(for: error) == .validationFailure, "\(arguments)")
                        let message = DustCtl.message(for: error)
                        #expect(message.contains("2000-01-01 to 2099-12-31"), "\(arguments): \(message)")
                    }
                }
            }
        }
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
    }
}
