import DustStore
import Foundation
import TestSupport
import Testing

/// docs/REFERENCE.md §18's outputs: a household of an adult born 1986-05 (40 on 2026-11-20: the
/// 31–40 row, sedentary 4.3E-03 m³/min) and a child born 2018-03 (8: the 6–10 row, sedentary
/// 4.8E-03, light 1.1E-02), both at 종로구, whose 2026-11-20 has PM10 49 at 12:00 and 66 at 19:00.
@Suite("dustctl --person and --everyone", .timeLimit(.minutes(10)))
struct PeopleOutputTests {
    static let household = """
        station:
          name: 종로구
        people:
          - name: dad
            born: "1986-05"
          - name: 민지
            born: "2018-03"

        """

    /// A database with the fixture day and the household's configuration file.
    func setUp(_ directory: TemporaryDirectory) async throws -> (db: String, config: String) {
        let db = directory.path("db.sqlite")
        let imported = try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        let config = directory.path("dustd.yaml")
        try Self.household.write(toFile: config, atomically: true, encoding: .utf8)
        return (db, config)
    }

    func hour(_ document: Any?, _ hour: String) throws -> [String: Any] {
        let rows = try #require((document as? [String: Any])?["hourly"] as? [[String: Any]])
        return try #require(rows.first { ($0["start"] as? String) == "2026-11-20T\(hour):00:00+09:00" })
    }

    func pm10Intake(_ row: [String: Any]) throws -> Double {
        try #require((row["intake"] as? [String: Any])?["pm10"] as? Double)
    }

    func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8))
    }

    @Test("day --json: the first person by default, --person the other; each hour ends with the ventilation used and its source")
    func personDay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, config) = try await setUp(directory)
        let first = try await dustctl("day", "2026-11-20", "--config", config, "--db", db, "--json")
        #expect(first.status == 0, "\(first.standardError)")
        let dad = try await dustctl("day", "2026-11-20", "--config", config, "--db", db, "--json", "--person", "dad")
        #expect(dad.standardOutput == first.standardOutput)
        let dadNoon = try hour(try json(dad.standardOutput), "12")
        #expect(abs(try pm10Intake(dadNoon) - 49 * 0.258 * 0.7) <= 5e-4)  // sedentary indoors
        #expect(abs((dadNoon["ventilation"] as? Double ?? 0) - 0.258) < 1e-12)
        #expect(dadNoon["levelSource"] as? String == "schedule")

        let child = try await dustctl("day", "2026-11-20", "--config", config, "--db", db, "--json", "--person", "민지")
        #expect(child.status == 0, "\(child.standardError)")
        let childNoon = try hour(try json(child.standardOutput), "12")
        #expect(abs(try pm10Intake(childNoon) - 49 * 0.288 * 0.7) <= 5e-4)  // 9.8784 µg against the adult's 8.8494
        #expect(abs((childNoon["ventilation"] as? Double ?? 0) - 0.288) < 1e-12)

        // The two keys close each hour object, after intake.
        let text = child.standardOutput
        let start = try #require(text.range(of: "{\"start\":\"2026-11-20T12:00:00+09:00\",\"station\""))
        let key = try #require(text.range(of: "\"levelSource\"", range: start.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "}", range: key.upperBound..<text.endIndex))
        let object = String(text[start.lowerBound..<end.upperBound])
        #expect(object.hasSuffix(",\"levelSource\":\"schedule\"}"))
        #expect(object.contains("},\"ventilation\":0.288"))

        // hourly's document is unchanged: no ventilation.
        let hourly = try await dustctl("hourly", "2026-11-20", "--config", config, "--db", db, "--json", "--person", "민지")
        #expect(hourly.status == 0)
        #expect(!hourly.standardOutput.contains("ventilation"))
    }

    @Test("--everyone: JSON is each person's own document with person first; text a section each; CSV a person column")
    func everyone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, config) = try await setUp(directory)
        let common = ["--config", config, "--db", db]
        for command in [["day", "2026-11-20"], ["hourly", "2026-11-20"], ["week", "--end", "2026-11-22"], ["today"]] {
            var own: [String] = []
            for person in ["dad", "민지"] {
                let result = try await dustctl(command + common + ["--json", "--person", person])
                #expect(result.status == 0, "\(command) \(result.standardError)")
                own.append(String(result.standardOutput.dropFirst().dropLast(2)))  // inside the braces, without the line end
            }
            let all = try await dustctl(command + common + ["--json", "--everyone"])
            #expect(all.status == 0, "\(command) \(all.standardError)")
            #expect(all.standardOutput == "[{\"person\":\"dad\",\(own[0])},{\"person\":\"민지\",\(own[1])}]\n", "\(command)")

            var ownText: [String] = []
            for person in ["dad", "민지"] { ownText.append(try await dustctl(command + common + ["--person", person]).standardOutput) }
            let text = try await dustctl(command + common + ["--everyone"])
            #expect(text.standardOutput == "Person: dad\n\(ownText[0])\nPerson: 민지\n\(ownText[1])", "\(command)")
        }
        let weeks = try #require(
            try json(try await dustctl(["week", "--end", "2026-11-22", "--everyone", "--json"] + common).standardOutput) as? [[String: Any]]
        )
        let intake = weeks.map { (($0["total"] as? [String: Any])?["intake"] as? [String: Any])?["pm10"] as? Double ?? 0 }
        #expect(intake[1] > intake[0])  // the child breathes more at every level this table gives for these hours

        let csv = try await dustctl(["export", "--from", "2026-11-20", "--to", "2026-11-21", "--everyone"] + common)
        #expect(csv.status == 0, "\(csv.standardError)")
        let lines = csv.standardOutput.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("person,date,station,pm10_hours,"))
        #expect(
            lines[1...].map { $0.split(separator: ",").prefix(3).joined(separator: ",") } == [
                "dad,2026-11-20,종로구", "dad,2026-11-21,종로구", "민지,2026-11-20,종로구", "민지,2026-11-21,종로구",
            ])
        let dadCSV = try await dustctl(["export", "--from", "2026-11-20", "--to", "2026-11-21", "--person", "dad"] + common).standardOutput
        #expect(dadCSV.split(separator: "\n")[1] == lines[1].dropFirst("dad,".count))
        let exportJSON = try #require(
            try json(try await dustctl(["export", "--week", "2026-W47", "--per", "week", "--json", "--everyone"] + common).standardOutput)
                as? [[String: Any]])
        #expect(exportJSON.map { $0["person"] as? String } == ["dad", "민지"])
        #expect(exportJSON.map { $0["week"] as? String } == ["2026-W47", "2026-W47"])
    }

    @Test("An unknown person is exit 64 naming the configured ones; --person and --everyone exclude each other")
    func unknownPerson() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, config) = try await setUp(directory)
        for command in [["today"], ["day", "2026-11-20"], ["week"], ["export"], ["hourly"]] {
            let result = try await dustctl(command + ["--config", config, "--db", db, "--person", "mom"])
            #expect(result.status == 64, "\(command)")
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError == "dustctl: no person \"mom\" is configured; configured people: dad, 민지.\n")
            let both = try await dustctl(command + ["--config", config, "--db", db, "--person", "dad", "--everyone"])
            #expect(both.status == 64, "\(command)")
            #expect(both.standardError.contains("--person and --everyone exclude each other"))
        }
    }

    @Test("Without people:, --person me and --everyone's one entry are the day as it always was")
    func noPeople() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await setUp(directory).db
        let plain = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json")
        let me = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json", "--person", "me")
        #expect(me.standardOutput == plain.standardOutput)
        let everyone = try await dustctl("day", "2026-11-20", "--station", "종로구", "--db", db, "--json", "--everyone")
        #expect(everyone.standardOutput == "[{\"person\":\"me\"," + plain.standardOutput.dropFirst().dropLast() + "]\n")
        // §4's adult rates: sedentary 0.26 m³/h at noon.
        let noon = try hour(try json(plain.standardOutput), "12")
        #expect(noon["ventilation"] as? Double == 0.26)
        #expect(noon["levelSource"] as? String == "schedule")
        #expect(abs(try pm10Intake(noon) - 49 * 0.26 * 0.7) < 1e-9)
    }

    @Test(
        "activity sources hands me's walk to the first person before listing it, as import and forget do (it listed me's, and dad's day had no walk); with nothing to hand it writes nothing"
    )
    func sourcesHandsOverMe() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, config) = try await setUp(directory)
        let csv = directory.path("walk.csv")
        try Data("start,distance_m\n2026-11-20 19:00,800\n".utf8).write(to: URL(fileURLWithPath: csv))
        // Imported before people: was configured: the walk is me's.
        let imported = try await dustctl("activity", "import", csv, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        let common = ["--config", config, "--db", db]
        let count = { (person: String) async throws -> Int in
            let listed = try await dustctl(["activity", "sources", "--json", "--person", person] + common)
            #expect(listed.status == 0, "\(listed.standardError)")
            return try #require((try self.json(listed.standardOutput) as? [String: Any])?["sources"] as? [Any]).count
        }
        #expect(try await count("dad") == 1)
        #expect(try await count("민지") == 0)
        let dad = try hour(try json(try await dustctl(["day", "2026-11-20", "--json"] + common).standardOutput), "19")
        #expect(dad["levelSource"] as? String == "walking")
        // Nothing left to hand: a listing only reads (every write raises the data generation).
        let generation = try await SQLiteStore(path: db, mode: .readOnly).dataGeneration()
        #expect(try await count("dad") == 1)
        #expect(try await SQLiteStore(path: db, mode: .readOnly).dataGeneration() == generation)
    }

    @Test("activity import|sources|forget --person: the walk is the child's alone; a person not configured is exit 64 and stores nothing")
    func activityPerPerson() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, config) = try await setUp(directory)
        let common = ["--config", config, "--db", db]
        let csv = directory.path("walk.csv")
        try Data("start,distance_m\n2026-11-20 19:00,800\n".utf8).write(to: URL(fileURLWithPath: csv))

        let refused = try await dustctl(["activity", "import", csv, "--person", "mom"] + common)
        #expect(refused.status == 64)
        #expect(refused.standardError == "dustctl: no person \"mom\" is configured; configured people: dad, 민지.\n")
        #expect(try await dustctl(["activity", "sources", "--json"] + common).standardOutput == "{\"sources\":[],\"body\":[]}\n")

        let imported = try await dustctl(["activity", "import", csv, "--person", "민지"] + common)
        #expect(imported.status == 0, "\(imported.standardError)")
        let sources = { (person: String) async throws -> [Any] in
            let output = try await dustctl(["activity", "sources", "--json", "--person", person] + common).standardOutput
            return try #require((try self.json(output) as? [String: Any])?["sources"] as? [Any])
        }
        #expect(try await sources("민지").count == 1)
        #expect(try await sources("dad").isEmpty)
        #expect(try await dustctl(["activity", "sources", "--person", "mom"] + common).status == 64)

        // 19:00, 800 m: light (the child's 0.66 m³/h) and f = 1/6, raised by walking; the adult keeps his schedule.
        let child = try hour(try json(try await dustctl(["day", "2026-11-20", "--json", "--person", "민지"] + common).standardOutput), "19")
        #expect(abs(try pm10Intake(child) - 66 * 0.66 * (1.0 / 6 + 5.0 / 6 * 0.7)) < 1e-9)
        #expect(child["levelSource"] as? String == "walking")
        let dad = try hour(try json(try await dustctl(["day", "2026-11-20", "--json"] + common).standardOutput), "19")
        #expect(abs(try pm10Intake(dad) - 66 * 0.258 * 0.7) <= 5e-4)
        #expect(dad["levelSource"] as? String == "schedule")

        #expect(try await dustctl(["activity", "forget", "--source", "csv", "--person", "mom"] + common).status == 64)
        #expect(try await dustctl(["activity", "forget", "--source", "csv"] + common).status == 65)  // dad has none
        let forgot = try await dustctl(["activity", "forget", "--source", "csv", "--person", "민지"] + common)
        #expect(forgot.status == 0, "\(forgot.standardError)")
        #expect(try await sources("민지").isEmpty)
    }
}
