import DustKit
import DustStore
import Foundation
import TestSupport
import Testing

/// A database filled by `dustctl demo` from the repository's fixtures.
func demoDatabase(_ directory: TemporaryDirectory) async throws -> String {
    let db = directory.path("demo.sqlite")
    let result = try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.url("").path)
    #expect(result.status == 0, "\(result.standardError)")
    return db
}

@Suite("dustctl export, week and demo", .timeLimit(.minutes(10)))
struct ExportTests {
    @Test("--output FILE.csv gets a byte order mark, --no-bom none; another name or standard output only with --bom; JSON never")
    func byteOrderMark() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let common = ["export", "--week", "2026-W47", "--station", "종로구", "--db", db]
        func starts(_ arguments: [String], file: String?) async throws -> Bool {
            let result = try await dustctl(common + arguments + (file.map { ["--output", directory.path($0)] } ?? []))
            #expect(result.status == 0, "\(result.standardError)")
            let bytes = try file.map { try Data(contentsOf: URL(fileURLWithPath: directory.path($0))) } ?? Data(result.standardOutput.utf8)
            return Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF]
        }
        #expect(try await starts([], file: "a.CSV"))
        #expect(try await !starts(["--no-bom"], file: "b.csv"))
        #expect(try await !starts([], file: "c.txt"))
        #expect(try await !starts([], file: nil))
        #expect(try await starts(["--bom"], file: "e.txt"))
        #expect(try await !starts(["--format", "json"], file: "d.csv"))
        #expect(try await dustctl(common + ["--bom", "--no-bom"]).status == 64)
    }

    @Test("CSV parsed by Python's csv module equals the JSON numbers, to 3 decimals")
    func csvMatchesJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let csvPath = directory.path("week.csv")
        let jsonPath = directory.path("week.json")
        for (format, path) in [("csv", csvPath), ("json", jsonPath)] {
            let result = try await dustctl(
                "export", "--week", "2026-W47", "--station", "종로구", "--db", db, "--format", format, "--output", path)
            #expect(result.status == 0, "\(result.standardError)")
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: csvPath))
        // A file named .csv starts with the byte order mark Excel needs for 종로구 (issue 37).
        #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let csv = String(decoding: bytes.dropFirst(3), as: UTF8.self)
        #expect(
            csv.hasPrefix(
                "date,station,pm10_hours,pm25_hours,pm10_mean_ug_m3,pm25_mean_ug_m3,pm10_max_ug_m3,pm25_max_ug_m3,pm10_intake_ug,pm25_intake_ug,pm10_grade,pm25_grade,pm10_grade_word,pm25_grade_word\n"
            ))
        #expect(!csv.contains("\r"))
        let script = """
            import csv, json, sys
            rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8-sig")))
            days = json.load(open(sys.argv[2], encoding="utf-8"))
            assert len(rows) == len(days) == 7, (len(rows), len(days))
            def same(text, value, places=3):
                if value is None:
                    return text == ""
                if "." in text and len(text.split(".")[1]) > 3:
                    return False
                return abs(float(text) - round(value, places)) < 1e-9
            for row, day in zip(rows, days):
                assert row["date"] == day["date"], (row, day)
                assert row["station"] == "종로구"
                for p in ("pm10", "pm25"):
                    assert int(row[p + "_hours"]) == day["hours"][p], (p, row, day)
                    assert same(row[p + "_mean_ug_m3"], day["mean"][p]), (p, row[p + "_mean_ug_m3"], day["mean"][p])
                    assert same(row[p + "_max_ug_m3"], day["max"][p]), (p, row, day)
                    words = {1: "좋음", 2: "보통", 3: "나쁨", 4: "매우나쁨"}
                    assert row[p + "_grade_word"] == (words[day["grade"][p]] if day["grade"][p] else ""), (p, row)
                    assert same(row[p + "_intake_ug"], day["intake"][p]), (p, row[p + "_intake_ug"], day["intake"][p])
                    assert (row[p + "_grade"] or None) == (str(day["grade"][p]) if day["grade"][p] else None)
            print("checked", len(rows), "rows")
            """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, csvPath, jsonPath]
        let output = Pipe()
        python.standardOutput = output
        python.standardError = output
        try python.runReaped()
        // Read to the end first: a program waits for a pipe that nobody empties.
        let message = String(decoding: await output.fileHandleForReading.readUntilEnd(), as: UTF8.self)
        await python.exited()
        #expect(python.terminationStatus == 0, "\(message)")
        #expect(message.contains("checked 7 rows"))
    }

    @Test("A station named like a formula comes out neutralised and correctly quoted; --bom adds a BOM")
    func formulaInjection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        let hostile = "=HYPERLINK(\"http://evil.example\",\"click\")"
        let store = try SQLiteStore(path: db)
        let slot = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!).slots(of: LocalDate(year: 2026, month: 11, day: 20))[9]
        try await store.saveReadings([
            HourlyReading(station: hostile, slot: slot, concentration: DustPair(fineDust: 41.23456, ultraFineDust: nil))
        ])
        let output = directory.path("out.csv")
        let result = try await dustctl(
            "export", "--from", "2026-11-20", "--to", "2026-11-20", "--station", hostile, "--db", db, "--bom", "--output", output)
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        let lines = String(decoding: bytes.dropFirst(3), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].hasPrefix("date,station,"))
        // intake under the default schedule at 09:00 (sedentary, indoors): 41.23456 × 0.26 × 0.7.
        let intake = String(format: "%.3f", 41.23456 * 0.26 * 0.7)
        #expect(lines[1] == "2026-11-20,\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\",1,0,41.235,,41.235,,\(intake),,2,,보통,")
        #expect(lines.count == 3 && lines[2].isEmpty)
    }

    @Test("Week JSON has the documented shape and the chart fits 80 columns")
    func week() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let json = try await dustctl("week", "--end", "2026-11-20", "--station", "종로구", "--db", db, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(object["end"] as? String == "2026-11-20")
        let days = try #require(object["days"] as? [[String: Any]])
        #expect(days.map { $0["date"] as? String } == (14...20).map { "2026-11-\($0)" })
        #expect(days.allSatisfy { $0["hourly"] == nil })
        let total = try #require(object["total"] as? [String: Any])
        #expect((total["hours"] as? [String: Int])?["pm10"] == 167)
        let text = try await dustctl("week", "--end", "2026-11-20", "--station", "종로구", "--db", db)
        #expect(text.status == 0)
        #expect(!text.standardOutput.contains("\u{1B}["), "NO_COLOR output has no escape codes")
        #expect(text.standardOutput.split(separator: "\n").allSatisfy { $0.unicodeScalars.count <= 80 })
        #expect(text.standardOutput.split(separator: "\n").filter { $0.contains("█") }.count == 7)
    }

    @Test("The demo prints the day and the week, and rejects the broken responses")
    func demo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await dustctl("demo", "--db", directory.path("demo.sqlite"), "--fixtures", TestFixtures.url("").path)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("종로구 · 2026-11-20 (Fri) · Asia/Seoul"))
        // The first person's day: jiho (38), his Watch's sleep and heart rate (the household below, docs/REFERENCE.md §6),
        // and since issue 23 his walk of 15:10–15:50 followed through the stations along it (docs/REFERENCE.md §19):
        // that hour is 13.3 µg instead of 8.3 without the walk; since issue 39 the living-room monitor's evening
        // (a purifier on from 19:00, docs/REFERENCE.md §21) counts for the hours at home from 17:00: 233.0 µg, not 272.3.
        #expect(result.standardOutput.contains("Intake        233.0 µg              117.5 µg"))
        #expect(result.standardOutput.contains("20:00–21:00      60     31          1.7     1.1  indoor sensor PM2.5 4.3 PM10 6.5\n"))
        #expect(
            result.standardOutput.contains(
                "Indoor sensor, 6 hours: indoor/outdoor PM2.5 0.21, PM10 0.18 (configured infiltration 0.70); intake against the estimate PM2.5 -19.6 µg, PM10 -39.4 µg\n"
            ))
        #expect(
            result.standardOutput.contains("15:00–16:00      46     23         13.3     7.3  walked 3267 m, tracked 67%, near 종로구 0.1 km\n")
        )
        #expect(result.standardOutput.contains("✗ hostile/billion-laughs.xml"))
        #expect(result.standardOutput.contains("Week            167   166"))
        // One story (issue 37): no advisory was in force for 종로구's 권역 on a day of 좋음 and 보통 readings,
        // so no banner above the day (a 경보 of 312 µg/m³ once stood over readings of 45).
        #expect(result.standardOutput.contains("\n종로구 · 2026-11-20 (Fri) · Asia/Seoul"))
        #expect(!result.standardOutput.contains("▶"))
    }

    @Test("A tracked hour with no station near (a walk in Bangkok) says that the home's air stood in for the track's")
    func trackedAbroad() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        #expect(try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.url("").path).status == 0)
        // 10:00–10:30 KST (01:00–01:30 UTC, 31 minutes of the hour), 80 m a minute eastward along 13.75° N.
        let points = (0...30).map { minute in
            let lon = 100.5 + Double(minute) * 80 / (111_320 * cos(13.75 * .pi / 180))
            return "<trkpt lat=\"13.75\" lon=\"\(lon)\"><time>2026-11-20T01:\(minute < 10 ? "0" : "")\(minute):00Z</time></trkpt>"
        }
        let gpx =
            #"<?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
            + points.joined() + "</trkseg></trk></gpx>"
        let file = directory.path("bangkok.gpx")
        try gpx.write(toFile: file, atomically: true, encoding: .utf8)
        let household = ["--config", TestFixtures.url("demo-household.yaml").path, "--db", db]
        let imported = try await dustctl(["activity", "import", file, "--person", "jiho"] + household)
        #expect(imported.status == 0, "\(imported.standardError)")
        let day = try await dustctl(["day", "2026-11-20", "--person", "jiho"] + household)
        let line = day.standardOutput.split(separator: "\n").first { $0.hasPrefix("10:00–11:00") }.map(String.init) ?? ""
        #expect(line.hasSuffix("walked 2397 m, tracked 52%, no station near: home's air"), "\(line)")
        let korean = try await dustctl(
            ["day", "2026-11-20", "--person", "jiho"] + household, environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""])
        #expect(korean.standardOutput.contains("이동 경로 52%, 가까운 측정소 없음: 집의 공기"), "\(korean.standardOutput)")
    }

    @Test("The demo is a household of two: jiho's Watch export and seoa's walks imported, her day and week after his, and why")
    func demoHousehold() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let result = try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.url("").path)
        #expect(result.status == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(
            output.contains(
                "  ✓ activity/demo-week-watch/export.xml: jiho's, 14 hours of walking, 1351 heart-rate samples, 50.9 h asleep\n"))
        #expect(output.contains("  ✓ activity/jongno-week-walks.csv: seoa's, 14 hours of walking\n"))
        // Issue 23: jiho's GPX walk, the track the demo follows (docs/REFERENCE.md §19).
        #expect(output.contains("  ✓ activity/demo-walk-jongno-2026-11-20.gpx: jiho's, 1 hour of walking, 40 tracked minutes\n"))
        // The first person's report keeps its place (advisory, day, week); the second follows under her name.
        let sections = output.components(separatedBy: "Person: seoa\n종로구 · 2026-11-20 (Fri) · Asia/Seoul\n")
        try #require(sections.count == 2)
        // jiho's day and week gained his followed walk (15:00–16:00, 13.3 µg of PM10 instead of 8.3 without it; see
        // demo()) and both the living-room monitor's evening (issue 39).
        #expect(sections[0].contains("Intake        233.0 µg              117.5 µg"))
        #expect(sections[0].contains("Week            167   166  37.7   19.4   1546.1   794.8 보통 moderate (PM2.5)"))
        #expect(sections[1].contains("Intake        231.7 µg              115.6 µg"))
        #expect(sections[1].contains("Week            167   166  37.7   19.4   1600.2   820.8 보통 moderate (PM2.5)"))
        #expect(
            output.contains(
                "  ✓ indoor/demo-living-room-2026-11-20.csv: the living-room monitor's, 385 samples (a purifier on from 19:00)\n"))
        // Why: the sum of each hour's V, the hours at each level and the rates of each one's age.
        #expect(output.contains("Why the numbers differ: the same air, breathed differently (m³ = the sum of each hour's V)\n"))
        #expect(
            output.contains(
                "  jiho (38): 7.58 m³ on 2026-11-20 — sleep 7.9 h at 0.28, sedentary 15.2 h at 0.26, moderate 0.9 h at 1.62 m³/h\n"
                    + "    hours whose level came from: sleep 7, heartRate 16, schedule 1\n"))
        #expect(
            output.contains("  seoa (8): 7.88 m³ on 2026-11-20 — sleep 8.0 h at 0.27, sedentary 13.0 h at 0.29, light 3.0 h at 0.66 m³/h\n")
        )
        #expect(output.contains("    hours whose level came from: walking 2, schedule 22\n"))
        #expect(output.contains("Explore: dustctl week --everyone --config "))
    }

    @Test("demo --json ends with people: each person's day and week, what --everyone prints with Fixtures/demo-household.yaml")
    func demoHouseholdJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let demo = try await dustctl("demo", "--db", db, "--fixtures", TestFixtures.url("").path, "--json")
        #expect(demo.status == 0, "\(demo.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(demo.standardOutput.utf8)) as? [String: Any])
        let people = try #require(document["people"] as? [[String: Any]])
        #expect(people.map { $0["person"] as? String } == ["jiho", "seoa"])
        let configuration = TestFixtures.url("demo-household.yaml").path
        let everyone = try await dustctl("week", "--everyone", "--config", configuration, "--db", db, "--end", "2026-11-20", "--json")
        #expect(everyone.status == 0, "\(everyone.standardError)")
        let weeks = try #require(try JSONSerialization.jsonObject(with: Data(everyone.standardOutput.utf8)) as? [[String: Any]])
        #expect(weeks.map { $0["person"] as? String } == ["jiho", "seoa"])
        for (person, week) in zip(people, weeks) {
            var named = try #require(person["week"] as? [String: Any])
            named["person"] = person["person"]
            #expect(NSDictionary(dictionary: named).isEqual(to: week), "\(person["person"] ?? "")")
        }
        // The first person's day is the document's day; seoa's differs from it only where she breathes differently.
        let jihoDay = try #require(people[0]["day"] as? [String: Any])
        #expect(NSDictionary(dictionary: jihoDay).isEqual(to: try #require(document["day"] as? [String: Any])))
        let seoaIntake = try #require((people[1]["day"] as? [String: Any])?["intake"] as? [String: Double])
        #expect(seoaIntake["pm10"] != (jihoDay["intake"] as? [String: Double])?["pm10"])
        let pm10 = try #require(seoaIntake["pm10"])
        #expect(abs(pm10 - 231.7) < 0.05)
        // day --json shows where each hour's level came from: jiho's nights his Watch's sleep, his days its heart rate.
        for (name, nights, days) in [("jiho", "sleep", "heartRate"), ("seoa", "schedule", "schedule")] {
            let day = try await dustctl("day", "2026-11-20", "--person", name, "--config", configuration, "--db", db, "--json")
            #expect(day.status == 0, "\(day.standardError)")
            let hours = try #require(
                (try JSONSerialization.jsonObject(with: Data(day.standardOutput.utf8)) as? [String: Any])?["hourly"] as? [[String: Any]])
            #expect(hours[0...4].allSatisfy { $0["levelSource"] as? String == nights }, "\(name)")
            #expect(hours[9...17].allSatisfy { $0["levelSource"] as? String == days }, "\(name)")
        }
    }

    @Test("The demo stores and shows the weekly outlook for 서울: 높음 on its first two days; --json ends with it")
    func demoOutlook() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try await dustctl("demo", "--db", directory.path("demo.sqlite"), "--fixtures", TestFixtures.url("").path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.contains("✓ synthesized/weekly-outlook-2026-11-20.xml: the weekly outlook published 2026-11-20, 4 days"))
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex(of: "Weekly outlook · 서울 · PM2.5 초미세먼지 · 2026-11-20 발표"))
        #expect(lines[heading + 1].hasPrefix("Mon 11-23") && lines[heading + 1].contains("높음 (high)"))
        #expect(lines[heading + 2].hasPrefix("Tue 11-24") && lines[heading + 2].contains("높음 (high)"))
        #expect(lines[heading + 3].hasPrefix("Wed 11-25") && lines[heading + 3].contains("낮음 (low)"))
        #expect(lines[heading + 4].hasPrefix("Thu 11-26") && lines[heading + 4].hasSuffix("신뢰도 낮음"))
        let json = try await dustctl("demo", "--db", directory.path("demo.sqlite"), "--fixtures", TestFixtures.url("").path, "--json")
        #expect(json.standardOutput.contains(",\"outlook\":{\"publishedOn\":\"2026-11-20\",\"highDays\":2,"))
    }

    @Test("--per week exports whole ISO weeks; --last-week is the previous Monday to Sunday")
    func weeksAndLastWeek() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let weekly = try await dustctl(
            "export", "--from", "2026-11-01", "--to", "2026-11-20", "--per", "week", "--station", "종로구", "--db", db)
        #expect(weekly.status == 0, "\(weekly.standardError)")
        let rows = weekly.standardOutput.split(separator: "\n")
        #expect(
            rows.first
                == "week,station,pm10_hours,pm25_hours,pm10_mean_ug_m3,pm25_mean_ug_m3,pm10_max_ug_m3,pm25_max_ug_m3,pm10_intake_ug,pm25_intake_ug,pm10_grade,pm25_grade,pm10_grade_word,pm25_grade_word"
        )
        #expect(rows.dropFirst().map { String($0.prefix(8)) } == ["2026-W44", "2026-W45", "2026-W46", "2026-W47"])
        // W47 (Nov 16–22): the 16th to the 19th with 24 PM10 hours each, the 20th with 23, nothing after.
        let w47 = rows.last!.split(separator: ",", omittingEmptySubsequences: false)
        #expect(w47[2] == "119")

        // At one now for both sides: a Monday beginning in Korea between them moves "last week".
        let now = PinnedNow()
        let lastWeek = try await dustctl(
            "export", "--last-week", "--station", "종로구", "--db", db, "--format", "json", environment: now.environment)
        let days = try #require(try JSONSerialization.jsonObject(with: Data(lastWeek.standardOutput.utf8)) as? [[String: Any]])
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let previous = ISOWeek(containing: calendar.date(containing: now.date).adding(days: -7))
        #expect(days.map { $0["date"] as? String } == previous.dates.map(\.description))
    }

    @Test("today with no data exits 0 and says so")
    func todayEmpty() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        // The demo's newest hour ended days ago: nothing promised, the newest stored hour dated.
        let result = try await dustctl("today", "--station", "종로구", "--db", db)
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("No readings stored for this day."), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("Latest stored hour 2026-11-20 23:00–24:00"))
        // Half an hour after the newest ended, today has none yet: the next is promised.
        let fresh = try await dustctl("today", "--station", "종로구", "--db", db, "--now", "2026-11-21T00:30")
        #expect(fresh.status == 0 && fresh.standardOutput.contains("No readings for today yet"), "\(fresh.standardOutput)")
        #expect(!fresh.standardOutput.contains("clock"))
        // A clock years behind (a Raspberry Pi at the time it last saved, before NTP): said, not "no readings yet".
        let behind = try await dustctl("today", "--station", "종로구", "--db", db, "--now", "2020-01-01T09:00")
        #expect(behind.status == 0)
        #expect(
            behind.standardOutput.contains(
                "This machine's clock is behind: the newest stored hour ends 2515 days after it. Check the clock (timedatectl)."),
            "\(behind.standardOutput)")
        #expect(!behind.standardOutput.contains("No readings"))
        let status = try await dustctl("status", "--station", "종로구", "--db", db, "--now", "2020-01-01T09:00")
        #expect(
            status.standardOutput.contains("newest hour ends 2515 days after this machine's clock — check the clock (timedatectl)"),
            "\(status.standardOutput)")
    }
}

@Suite("dustctl today as at --now: the hours that have begun", .timeLimit(.minutes(10)))
struct TodayAsAtNowTests {
    @Test("At 10:30 on the demo's day the text, the JSON and the totals name the 10:00–11:00 hour, not the day's last")
    func begunHoursOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await demoDatabase(directory)
        let common = ["today", "--station", "종로구", "--db", db, "--now", "2026-11-20T10:30"]
        let text = try await dustctl(common)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("Latest hour 10:00–11:00   PM10 58 µg/m³"), "\(text.standardOutput)")
        // Ten measured (05:00 was 점검및교정) of the ten hours ended and the one under way, which holds a reading: not 23 of 10.
        #expect(text.standardOutput.contains("Hours         10 of 11              10 of 11"), "\(text.standardOutput)")
        #expect(!text.standardOutput.contains("11:00–12:00"))
        let json = try await dustctl(common + ["--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((document["latest"] as? [String: Any])?["start"] as? String == "2026-11-20T10:00:00+09:00")
        #expect((document["hourly"] as? [[String: Any]])?.last?["start"] as? String == "2026-11-20T10:00:00+09:00")
        // Every hour so far measured (none flagged before 05:00): five of five, not five of the four ended.
        let early = try await dustctl(["today", "--station", "종로구", "--db", db, "--now", "2026-11-20T04:30"])
        #expect(early.standardOutput.contains("Hours         5 of 5                5 of 5"), "\(early.standardOutput)")
        // Another day is whole, as before.
        let day = try await dustctl("hourly", "2026-11-20", "--station", "종로구", "--db", db, "--now", "2026-11-21T10:30", "--json")
        #expect(try hourlyRows(day.standardOutput).count == 24)
    }

    @Test("Today's one hour of 01:00 asked at 20:18 (AirKorea down since) is the latest stored hour, dated; at 03:30 the latest hour")
    func oldHourNotLatest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("one.sqlite")
        let body =
            "<response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName>"
            + "<dataTime>2026-11-20 02:00</dataTime><pm10Value>40</pm10Value><pm25Value>20</pm25Value></item></items>"
            + "<totalCount>1</totalCount></body></response>"
        let file = directory.path("one.xml")
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await dustctl("import", file, "--db", db).status == 0)
        let late = try await dustctl(["today", "--station", "종로구", "--db", db, "--now", "2026-11-20T20:18"], environment: ["LC_ALL": "C"])
        #expect(late.standardOutput.contains("Latest stored hour 2026-11-20 01:00–02:00   PM10 40 µg/m³"), "\(late.standardOutput)")
        #expect(!late.standardOutput.contains("Latest hour "))
        let early = try await dustctl(["today", "--station", "종로구", "--db", db, "--now", "2026-11-20T03:30"], environment: ["LC_ALL": "C"])
        #expect(early.standardOutput.contains("Latest hour 01:00–02:00   PM10 40 µg/m³"), "\(early.standardOutput)")
        // A day without an hour, the newest days old: no promise of the next one.
        let next = try await dustctl(["today", "--station", "종로구", "--db", db, "--now", "2026-11-23T12:00"], environment: ["LC_ALL": "C"])
        #expect(
            next.standardOutput.contains("No readings stored for this day.") && !next.standardOutput.contains("No readings for today yet"))
    }
}
