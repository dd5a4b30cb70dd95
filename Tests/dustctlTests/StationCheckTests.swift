import Foundation
import TestSupport
import Testing

@Suite("dustctl names the stations it has when asked about one it has not (docs/REFERENCE.md §6)", .timeLimit(.minutes(10)))
struct StationCheckTests {
    @Test("--station with no stored hour: exit 64 and the nearest stations with readings; station.name: exit 78; a new database: no error")
    func unknownStation() async throws {
        let directory = try TemporaryDirectory("finedust-station-check")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let imported = try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        // The forecast and the advisories read the station for its province: a mistyped one was "FineDust does not know
        // the station's province yet" (78) before.
        for command in [
            ["day", "2026-11-20"], ["week", "--end", "2026-11-20"], ["hourly", "2026-11-20"], ["export", "--last-week"], ["forecast"],
            ["forecast", "--json"], ["advisories"],
        ] {
            let result = try await dustctl(command + ["--station", "종로구청", "--db", db])
            #expect(result.status == 64, "\(command)")
            #expect(
                result.standardError == "dustctl: No readings of a station 종로구청 are stored; stations with readings: 종로구.\n", "\(command)")
        }
        // A station of the synced list with no hour stored has a province: the forecast and the advisories read it.
        let listed = try await dustctl("stations", "import", fixture("synthesized/msrstn-list-seoul-walk-8.xml"), "--db", db)
        #expect(listed.status == 0, "\(listed.standardError)")
        for command in [["forecast"], ["advisories"]] {
            let result = try await dustctl(command + ["--station", "용산구", "--db", db])
            #expect(result.status == 0, "\(command): \(result.standardError)")
        }
        let configuration = directory.path("dustd.yaml")
        try "station:\n  name: 종로구청\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let configured = try await dustctl("day", "2026-11-20", "--config", configuration, "--db", db)
        #expect(configured.status == 78)
        #expect(configured.standardError.contains("station.name in the configuration file names no station this database holds"))
        #expect(try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db).status == 0)
        // Set by the environment, the sentence names the variable, not the file.
        let environment = try await dustctl("day", "2026-11-20", "--db", db, environment: ["DUSTD_STATION_NAME": "종로구청"])
        #expect(environment.status == 78 && environment.standardError.contains("DUSTD_STATION_NAME in the environment names no station"))
        // A person's own station, mistyped: an empty report headed with it before; the same error, naming the person.
        let household = directory.path("household.yaml")
        try "station:\n  name: 종로구\npeople:\n  - name: a\n    born: \"1990-01\"\n  - name: b\n    born: \"1990-01\"\n    station: 종로구청\n"
            .write(toFile: household, atomically: true, encoding: .utf8)
        for command in [
            ["day", "2026-11-20", "--person", "b"], ["week", "--end", "2026-11-20", "--everyone"], ["export", "--last-week", "--everyone"],
        ] {
            let result = try await dustctl(command + ["--config", household, "--db", db])
            #expect(result.status == 78, "\(command): \(result.standardError)")
            #expect(
                result.standardError.contains(
                    "b's station in the configuration file (people[].station) names no station this database holds"))
        }
        // The person whose station is stored is reported as before.
        #expect(try await dustctl("day", "2026-11-20", "--person", "a", "--config", household, "--db", db).status == 0)
        // A database with nothing yet says there is nothing, as before.
        #expect(try await dustctl("person", "forget", "me", "--db", directory.path("new.sqlite")).status == 0)
        let fresh = try await dustctl("day", "2026-11-20", "--station", "종로구청", "--db", directory.path("new.sqlite"))
        #expect(fresh.status == 0 && fresh.standardOutput.contains("No readings stored for this day."))
    }
}

@Suite("--station names the station it looks like (docs/RELIABILITY.md, \"The identity of names\")", .timeLimit(.minutes(10)))
struct StationNameFormTests {
    @Test("Decomposed, or pasted with a no-break, ideographic or trailing space: one station stored and found, as station.name is")
    func oneStation() async throws {
        let directory = try TemporaryDirectory("finedust-station-form")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let file = fixture("real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml")
        let spellings = ["강남대로", "강남대로".decomposedStringWithCanonicalMapping, "강남대로 ", "강남대로\u{00A0}", "\u{3000}강남대로"]
        for spelling in spellings {
            let result = try await dustctl("import", "--station", spelling, file, "--db", db)
            #expect(result.status == 0, "\(result.standardError)")
        }
        // One station with readings, not five that look alike.
        let other = try await dustctl("day", "2019-02-12", "--station", "종로구청", "--db", db)
        #expect(other.standardError == "dustctl: No readings of a station 종로구청 are stored; stations with readings: 강남대로.\n")
        for spelling in spellings {
            let hourly = try await dustctl("hourly", "2019-02-12", "--station", spelling, "--db", db, "--json")
            #expect(hourly.status == 0, "\(hourly.standardError)")
            #expect(try hourlyRows(hourly.standardOutput).count == 10)
        }
        let blank = try await dustctl("hourly", "2019-02-12", "--station", "\u{3000} ", "--db", db)
        #expect(blank.status == 64 && blank.standardError == "dustctl: --station needs a station's name.\n", "\(blank.standardError)")
    }
}

@Suite("dustctl's small refusals say what is wrong", .timeLimit(.minutes(10)))
struct SmallRefusalTests {
    @Test("An empty --db or --config, or one longer than a path can be, is a usage error saying so; a 100 KB --now is quoted cut")
    func pathsAndLongValues() async throws {
        let long = String(repeating: "a", count: 100_000)
        for (option, value) in [("--db", ""), ("--config", ""), ("--db", long), ("--config", long)] {
            let result = try await dustctl(["day", "2026-11-20", "--station", "종로구", option, value], environment: ["LC_ALL": "C"])
            #expect(result.status == 64, "\(option): \(result.standardError.prefix(200))")
            #expect(result.standardError.utf8.count < 1_000, "\(option): \(result.standardError.utf8.count) bytes")
            #expect(
                result.standardError.contains(value.isEmpty ? "\(option) was given an empty path" : "is longer than a path can be"),
                "\(result.standardError.prefix(300))")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let now = try await dustctl(["today", "--station", "종로구", "--db", db, "--now", long], environment: ["LC_ALL": "C"])
        #expect(now.status == 64 && now.standardError.utf8.count < 1_000 && now.standardError.contains("is not a time"))
    }

    @Test("import and activity import refuse --now, which they would not read (they judge times by this machine's clock)")
    func importRefusesNow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for command in [
            ["import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")], ["activity", "import", "walks.csv"],
        ] {
            let result = try await dustctl(command + ["--now", "2027-01-13T01:00", "--db", directory.path("x.sqlite")])
            #expect(result.status == 64, "\(result.standardError)")
            #expect(result.standardError.contains("does not read --now: it judges the files' times against this machine's clock"))
            #expect(!FileManager.default.fileExists(atPath: directory.path("x.sqlite")))
        }
    }

    @Test("A mistyped command is named, with the nearest; a date written right naming no day says which part is wrong")
    func refusals() async throws {
        let weak = try await dustctl("weak", "--db", "x.sqlite")
        #expect(weak.status == 64)
        #expect(weak.standardError == "dustctl: \"weak\" is not a command; did you mean week? (dustctl --help lists them).\n")
        // A group's command forgotten or mistyped is named as such, not as the option after it.
        let group = try await dustctl("alerts", "--db", "x.sqlite")
        #expect(group.status == 64)
        #expect(
            group.standardError
                == "dustctl: alerts needs one of its commands before \"--db\": list, test (dustctl alerts --help says what each does).\n")
        let misspelt = try await dustctl("stations", "lst")
        #expect(misspelt.status == 64)
        #expect(
            misspelt.standardError.contains(
                "stations needs one of its commands before \"lst\": sync, import, list, nearest; did you mean list?"))
        // A group with a command of its own (indoor lists), and help, are left to the parser.
        #expect(try await dustctl("alerts", "--help").status == 0)
        for (date, sentence) in [
            ("2026-11-31", "2026-11-31 is not a day: 2026-11 has 30 days;"),
            ("2026-02-29", "2026-02-29 is not a day: 2026-02 has 28 days;"),
            ("2028-02-30", "2028-02-30 is not a day: 2028-02 has 29 days;"),
            ("2026-13-01", "2026-13-01 has no month 13: a month is 01 to 12;"),
            ("2026-1-1", "write the day as YYYY-MM-DD, from 2000-01-01 to 2099-12-31."),
        ] {
            let result = try await dustctl("day", date, "--db", "x.sqlite")
            #expect(result.status == 64, "\(date)")
            #expect(result.standardError.contains(sentence), "\(date): \(result.standardError)")
        }
    }
}

@Suite("dustctl's terminal is a door the key does not pass (docs/ARCHITECTURE.md)", .timeLimit(.minutes(10)))
struct TerminalDoorTests {
    @Test("Where dustctl can read the key, output holding an echo of it is withheld (exit 65, a sentence); without the key it is printed")
    func echoWithheld() async throws {
        let directory = try TemporaryDirectory("finedust-terminal-door")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let key = "Door0123456789abcdefghijklmnopqrstuvWXYZ"
        // A text an older FineDust stored from a server that echoed part of the key, split across two fields.
        let sql = "UPDATE station SET address = '서울 \(key.prefix(14))', network = '\(key.dropFirst(14).prefix(12))' WHERE name = '종로구'"
        let log = directory.path("sqlite3.log")
        #expect(try Spawn.run("/usr/bin/sqlite3", [db, sql], environment: [:], standardOutput: log, standardError: log) == 0)
        let plain = try await dustctl("stations", "list", "--db", db)
        #expect(plain.status == 0)
        #expect(plain.standardOutput.contains(String(key.prefix(14))))
        let guarded = try await dustctl("stations", "list", "--db", db, environment: ["DUSTD_API_SERVICE_KEY": key])
        #expect(guarded.status == 65, "\(guarded.standardOutput)")
        #expect(!guarded.standardOutput.contains(String(key.prefix(12))))
        #expect(guarded.standardError.contains("The output was withheld: it held text that echoes the AirKorea service key"))
    }
}
