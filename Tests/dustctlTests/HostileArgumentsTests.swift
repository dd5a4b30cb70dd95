import DustKit
import Foundation
import TestSupport
import Testing

@testable import dustctl

/// What an operator's own inputs may hold, found by a review (docs/RELIABILITY.md,
/// "New variants"): a station named twice, a station name holding escapes or invisible characters or
/// 10,000 characters, a configuration that is a FIFO, and dustd's own refusals on a terminal.
@Suite("The operator's own inputs: names, lists and files that are not what they seem", .timeLimit(.minutes(10)))
struct HostileArgumentsTests {
    @Test("A fallback named twice is one fallback: week and export answer (they died with SIGILL)")
    func fallbackTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let twice = ["DUSTD_STATION_FALLBACKS": "중구,중구"]
        let once = ["DUSTD_STATION_FALLBACKS": "중구"]
        for command in [["week", "--end", "2026-11-20"], ["export", "--from", "2026-11-20", "--to", "2026-11-20"]] {
            let arguments = command + ["--db", db, "--station", "종로구"]
            let doubled = try await dustctl(arguments, environment: twice)
            #expect(doubled.status == 0, "\(doubled.standardError)")
            #expect(doubled.standardOutput == (try await dustctl(arguments, environment: once)).standardOutput)
        }
    }

    @Test("--station holding an escape, an invisible character or 10,000 characters is a usage error, said short")
    func stationArgument() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        for (station, said) in [
            ("\u{1B}]2;PWNED\u{07}\u{1B}[2J역", "the control character U+001B"), ("종로\u{200B}구", "the invisible character U+200B"),
            ("종로구\u{FEFF}", "the invisible character U+FEFF"), (String(repeating: "가", count: 10_000), "is 10000 characters long"),
        ] {
            let result = try await dustctl("week", "--db", db, "--station", station, "--end", "2026-11-20")
            #expect(result.status == 64, "\(result.standardError)")
            #expect(result.standardError.contains(said), "\(result.standardError)")
            #expect(!result.standardError.contains("\u{1B}") && result.standardError.utf8.count < 1024)
        }
        // A name that could be one but is not stored: the nearest names (did-you-mean compares 64 characters:
        // `TerminalSafeTextTests.spellingDistanceBounded`).
        let long = String(repeating: "가", count: 60)
        let result = try await dustctl("week", "--db", db, "--station", long, "--end", "2026-11-20")
        #expect(result.status == 64 && result.standardError.contains("No readings of a station"), "\(result.standardError)")
    }

    @Test("A CSV cell never carries what a terminal acts on (`cat week.csv` cannot retitle or clear it); line breaks stay, quoted")
    func csvCellsSafe() {
        #expect(ExportCSV.text("\u{1B}]2;PWNED\u{07}역\u{202E}") == "\u{FFFD}]2;PWNED\u{FFFD}역\u{FFFD}")
        #expect(ExportCSV.text("a\nb") == "\"a\nb\"")
        #expect(ExportCSV.text("\t=1") == "' =1")
        #expect(ExportCSV.text("a\rb\u{2028}c") == "a b c")
        #expect(ExportCSV.text("=\u{9B}31m") == "'=\u{FFFD}31m")
        // The full-width and small forms, and the minus sign: a spreadsheet set up for CJK may fold them to formulas.
        for lead in ["＝", "﹦", "＋", "﹢", "－", "﹣", "−", "＠", "﹫"] {
            #expect(ExportCSV.text(lead + "1+1") == "'" + lead + "1+1", "\(lead)")
        }
        #expect(ExportCSV.text("종로구") == "종로구")
        // A comma or quote is one byte for a CSV reader, whatever mark, skin tone or prepended letter makes
        // it part of a larger character for Swift: each is quoted, its quote doubled.
        for (name, expected) in [
            ("종로\u{0D4E},=1+1", "\"종로\u{0D4E},=1+1\""), (",\u{1F3FB}=2", "\",\u{1F3FB}=2\""), ("a,\u{0301}b", "\"a,\u{0301}b\""),
            (",\u{FF9E}", "\",\u{FF9E}\""), ("종로\"\u{1F3FB},=2+2", "\"종로\"\"\u{1F3FB},=2+2\""), ("\"\u{0301}", "\"\"\"\u{0301}\""),
        ] {
            #expect(ExportCSV.text(name) == expected, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("A file name of 250 bytes is written: the temporary copy's name stays within 255")
    func longOutputName() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let name = String(repeating: "w", count: 246) + ".csv"
        let result = try await dustctl("export", "--db", db, "--week", "2026-W47", "--station", "종로구", "--output", directory.path(name))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(FileManager.default.fileExists(atPath: directory.path(name)))
    }

    @Test("dustd's refusals are written made safe: a value, a field name or a variable holding escapes reaches no terminal raw")
    func dustdRefusalsSafe() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = directory.path("dustd.yaml")
        for (yaml, variables) in [
            ("station:\n  name: 종로구\npoll:\n  minute: \"\\e]2;PWNED\\a\\e[2J\"\n", [String: String]()),
            ("station:\n  name: 종로구\npeople:\n  - { name: a, \"\\e]2;PWNED\\a\": 1 }\n", [:]),
            ("station:\n  name: 종로구\n", ["DUSTD_POLL_MINUTE": "\u{1B}]2;PWNED\u{07}"]),
        ] {
            try yaml.write(toFile: configuration, atomically: true, encoding: .utf8)
            let result = try await Executables.run(
                "dustd", ["--config", configuration, "--once"],
                environment: ["PATH": "/usr/bin:/bin", "DUSTD_STORAGE_PATH": directory.path("d.sqlite")].merging(variables) { $1 })
            #expect(result.status == 78, "\(result.standardError)")
            #expect(result.standardError.contains("PWNED"), "\(result.standardError)")
            #expect(!result.standardError.contains("\u{1B}") && !result.standardError.contains("\u{07}"), "\(result.standardError)")
        }
        // A usage error quotes the argument given.
        let usage = try await Executables.run("dustd", ["--\u{1B}]2;PWNED\u{07}"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(usage.status == 64)
        #expect(!usage.standardError.contains("\u{1B}") && usage.standardError.contains("PWNED"), "\(usage.standardError)")
        // A configuration that is a FIFO is refused at once, not waited on.
        let fifo = directory.path("dustd.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let waited = try await Executables.run(
            "dustd", ["--config", fifo, "--once"], environment: ["PATH": "/usr/bin:/bin", "DUSTD_STORAGE_PATH": directory.path("d.sqlite")])
        #expect(waited.status == 78 && waited.standardError.contains("it is a FIFO, not a file"), "\(waited.standardError)")
    }
}
