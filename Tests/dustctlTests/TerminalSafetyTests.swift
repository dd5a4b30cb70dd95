import Foundation
import TestSupport
import Testing

/// A file name that retitles the terminal (OSC 2, ended by BEL) and clears it (CSI 2J).
private let hostileName = "\u{1B}]2;PWNED\u{07}\u{1B}[2J.xml"

/// True when `text` holds nothing a terminal acts on: no C0 control but the line feed, no DEL,
/// no C1 control, no bidirectional override.
private func isTerminalSafe(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { scalar in
        switch scalar.value {
        case 0x0A: true
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: false
        default: true
        }
    }
}

@Suite("dustctl prints nothing a terminal acts on", .timeLimit(.minutes(10)))
struct TerminalSafetyTests {
    @Test("import: a file named \\e]2;PWNED\\a\\e[2J.xml is named with U+FFFD on stdout and stderr, stored or missing")
    func importName() async throws {
        let directory = try TemporaryDirectory("finedust-terminal")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let file = directory.path(hostileName)
        try Data(contentsOf: URL(fileURLWithPath: fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"))).write(
            to: URL(fileURLWithPath: file))
        let stored = try await dustctl("import", file, "--db", db)
        #expect(stored.status == 0, "\(stored.standardError)")
        #expect(isTerminalSafe(stored.standardOutput) && isTerminalSafe(stored.standardError))
        #expect(stored.standardOutput.contains("\u{FFFD}]2;PWNED\u{FFFD}\u{FFFD}[2J.xml: "))
        let missing = try await dustctl("import", directory.path("missing-" + hostileName), "--db", db)
        #expect(missing.status == 66)
        #expect(isTerminalSafe(missing.standardError))
        #expect(missing.standardError.contains("missing-\u{FFFD}]2;PWNED\u{FFFD}\u{FFFD}[2J.xml"))
    }

    @Test("activity import: the same name, as a GPX track, stored and failing; its JSON keeps the name, escaped")
    func activityName() async throws {
        let directory = try TemporaryDirectory("finedust-terminal")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let file = directory.path(hostileName)
        try Data(contentsOf: URL(fileURLWithPath: fixture("activity/generated/route-strava-evening.gpx"))).write(
            to: URL(fileURLWithPath: file))
        let text = try await dustctl("activity", "import", file, "--db", db)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(isTerminalSafe(text.standardOutput) && isTerminalSafe(text.standardError))
        #expect(text.standardOutput.contains("\u{FFFD}]2;PWNED\u{FFFD}\u{FFFD}[2J.xml: GPX track"))
        let json = try await dustctl("activity", "import", file, "--db", db, "--json")
        #expect(isTerminalSafe(json.standardOutput))
        #expect(json.standardOutput.contains(#"\u001b]2;PWNED\u0007\u001b[2J.xml"#))
        try Data("<kml/>".utf8).write(to: URL(fileURLWithPath: file))
        let failed = try await dustctl("activity", "import", file, "--db", db)
        #expect(failed.status == 65)
        #expect(isTerminalSafe(failed.standardError))
        #expect(failed.standardError.contains("\u{FFFD}]2;PWNED\u{FFFD}\u{FFFD}[2J.xml: the file is not a format FineDust reads"))
    }

    @Test("Every command's output passes the same net: a station named with escapes in day's header, a usage error quoting an escape")
    func everyCommand() async throws {
        let directory = try TemporaryDirectory("finedust-terminal")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let station = "\u{1B}]2;PWNED\u{07}종로구\u{9B}2J\u{202E}"
        // A station named with escapes is refused as station.name would be (docs/RELIABILITY.md, "New variants": it named
        // what `import` stored and `export` wrote), the refusal quoting it made safe; on a new database too.
        let fresh = directory.path("fresh.sqlite")
        #expect(try await dustctl("person", "forget", "me", "--db", fresh).status == 0)
        for database in [db, fresh] {
            for json in [[], ["--json"]] {
                let day = try await dustctl(["day", "2026-11-20", "--station", station, "--db", database] + json)
                #expect(day.status == 64)
                #expect(isTerminalSafe(day.standardOutput) && isTerminalSafe(day.standardError))
                #expect(
                    day.standardError.contains(
                        "--station holds the control character U+001B (\"\u{FFFD}]2;PWNED\u{FFFD}종로구\u{FFFD}2J\u{FFFD}\")"),
                    "\(day.standardError)")
            }
        }
        let usage = try await dustctl("week", "--end", "\u{1B}]2;PWNED\u{07}", "--db", db)
        #expect(usage.status == 64)
        #expect(isTerminalSafe(usage.standardError))
        #expect(usage.standardError.contains("PWNED"))
    }
}

@Suite("dustctl import --json", .timeLimit(.minutes(10)))
struct ImportJSONTests {
    @Test("One document: per file what it stored, or its error; exit codes as in text (0, 65, 66)")
    func document() async throws {
        let directory = try TemporaryDirectory("finedust-import-json")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let good = fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let first = try await dustctl("import", good, "--db", db, "--json")
        #expect(first.status == 0, "\(first.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.standardOutput.utf8)) as? [String: Any])
        #expect(object["failed"] as? Int == 0)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files[0]["file"] as? String == good)
        #expect(files[0]["ok"] as? Bool == true)
        let readings = try #require(files[0]["readings"] as? Int)
        #expect(readings > 0)
        #expect(files[0]["new"] as? Int == readings && files[0]["revised"] as? Int == 0 && files[0]["unchanged"] as? Int == 0)
        #expect(files[0]["skippedItems"] as? Int == 0)
        #expect(first.standardOutput.split(separator: "\n").count == 1)  // no text summary after the document

        let broken = directory.path("broken.xml")
        try Data("<response><header><resultCode>".utf8).write(to: URL(fileURLWithPath: broken))
        let missing = directory.path("missing.xml")
        let mixed = try await dustctl("import", good, broken, missing, "--db", db, "--json")
        #expect(mixed.status == 65)
        let mixedObject = try #require(try JSONSerialization.jsonObject(with: Data(mixed.standardOutput.utf8)) as? [String: Any])
        #expect(mixedObject["failed"] as? Int == 2)
        let entries = try #require(mixedObject["files"] as? [[String: Any]])
        #expect(entries.map { $0["file"] as? String } == [good, broken, missing])
        #expect(entries.map { $0["ok"] as? Bool } == [true, false, false])
        #expect(entries[0]["unchanged"] as? Int == readings)
        #expect((entries[2]["error"] as? String)?.contains("No such file") == true)
        #expect(mixed.standardError.contains("Imported 1 of 3 files; 2 failed."))

        let onlyMissing = try await dustctl("import", missing, "--db", db, "--json")
        #expect(onlyMissing.status == 66)
        #expect((try JSONSerialization.jsonObject(with: Data(onlyMissing.standardOutput.utf8)) as? [String: Any])?["failed"] as? Int == 1)
    }
}
