import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("dustctl indoor: a monitor's CSV, the sensors' state, the day's marker (docs/REFERENCE.md §21)", .timeLimit(.minutes(10)))
struct IndoorCommandTests {
    let configuration = """
        station:
          name: 종로구
        indoor:
          sensors:
            - {name: old-monitor, kind: import}
            - {name: study, kind: homeassistant, url: "http://127.0.0.1:9", entity: sensor.study_pm25}

        """

    /// 10:00–10:59 KST each minute PM2.5 9 and PM10 20, written in local time.
    var csv: String {
        "time,pm25,pm10\n" + (0..<60).map { "2026-11-20 10:\(String(format: "%02d", $0)),9,20" }.joined(separator: "\n") + "\n"
    }

    @Test("Import a monitor's CSV: the summary, the day's dose and its marker, the sensor's coverage; a bad line stores nothing")
    func importAndShow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (config, db, file) = (directory.path("dustd.yaml"), directory.path("dust.sqlite"), directory.path("monitor.csv"))
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        try csv.write(toFile: file, atomically: true, encoding: .utf8)
        let env = ["DUSTD_CONFIG": config]
        #expect(
            try await dustctl(["import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db], environment: env)
                .status == 0)
        let imported = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db], environment: env)
        #expect(imported.status == 0)
        #expect(
            imported.standardOutput.contains(
                "60 samples of old-monitor from 2026-11-20 10:00 to 2026-11-20 10:59, an indoor value for 1 hour (at least 30 minutes covered)."
            ),
            "\(imported.standardOutput)")

        let json = try await dustctl(["day", "2026-11-20", "--db", db, "--json"], environment: env).standardOutput
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let ten = try #require((object["hourly"] as? [[String: Any]])?[10])
        #expect((ten["intake"] as? [String: Double])?["pm10"] == 5.2 && ten["indoorSource"] as? String == "sensor")
        #expect((ten["indoor"] as? [String: Any])?["minutes"] as? Int == 60)
        let text = try await dustctl(["day", "2026-11-20", "--db", db], environment: env).standardOutput
        #expect(text.contains("indoor sensor PM2.5 9.0 PM10 20.0"), "\(text)")
        #expect(text.contains("Indoor sensor, 1 hour: indoor/outdoor PM2.5 0.30, PM10 0.34 (configured infiltration 0.70)"), "\(text)")

        // The Home Assistant package gains the monitor's sensor (web-e2e.sh renders it with Jinja2).
        let package = try await dustctl(["homeassistant"], environment: env).standardOutput
        #expect(package.contains("      - name: \"FineDust indoor PM2.5\"\n        unique_id: finedust_indoor_pm25\n"))
        #expect(try await dustctl("homeassistant").standardOutput.contains("indoor") == false)

        let listed = try await dustctl(["indoor", "--db", db, "--now", "2026-11-20T11:30"], environment: env).standardOutput
        #expect(listed.contains("old-monitor (import), for me"))
        #expect(listed.contains("last sample  2026-11-20 10:59  PM2.5 9 µg/m³, PM10 20 µg/m³"), "\(listed)")
        #expect(listed.contains("coverage     4 % of the last 24 hours"), "\(listed)")
        #expect(listed.contains("study (homeassistant), for me") && listed.contains("last sample  none in the last 24 hours"))

        // A bad line: named, exit 65, and the samples stored before are untouched.
        try (csv + "2026-11-20 11:00,lots,3\n").write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db], environment: env)
        #expect(refused.status == 65)
        #expect(refused.standardError.contains("line 62: pm25 must be a number of µg/m³ (or empty), not \"lots\"; nothing was stored."))
        let again = try await dustctl(["day", "2026-11-20", "--db", db, "--json"], environment: env).standardOutput
        #expect(again == json)
        // The sensor renamed in the configuration: its samples stay under the old name, in no one's dose, and
        // `dustctl indoor` says so (the day's dose changed with nothing naming why).
        try configuration.replacingOccurrences(of: "name: old-monitor", with: "name: living-room")
            .write(toFile: config, atomically: true, encoding: .utf8)
        let renamed = try await dustctl(["indoor", "--db", db], environment: env).standardOutput
        #expect(
            renamed.contains("Samples stored under names no sensor in indoor.sensors has: old-monitor (2026-11-20 10:00)"), "\(renamed)")
        let renamedJSON = try await dustctl(["indoor", "--db", db, "--json"], environment: env).standardOutput
        #expect(renamedJSON.contains(#""unconfigured":[{"sensor":"old-monitor","newestHour":"2026-11-20T10:00:00+09:00"}]"#))
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        // A sensor that is not configured is named with the ones that are.
        let unknown = try await dustctl(["indoor", "import", file, "--sensor", "kitchen", "--db", db], environment: env)
        #expect(unknown.status == 64 && unknown.standardError.contains("configured: old-monitor, study"))
    }

    @Test("Rows out of order: the summary counts the minutes stored and every minute given again")
    func minuteGivenAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (config, db, file) = (directory.path("dustd.yaml"), directory.path("dust.sqlite"), directory.path("monitor.csv"))
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        try "time,pm25\n2026-11-20 10:00,5\n2026-11-20 10:01,6\n2026-11-20 10:00,7\n".write(toFile: file, atomically: true, encoding: .utf8)
        let env = ["DUSTD_CONFIG": config]
        let imported = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db, "--json"], environment: env)
        #expect(imported.status == 0)
        #expect(
            imported.standardOutput.contains(#""samples":2,"#) && imported.standardOutput.contains(#""sameMinute":1"#),
            "\(imported.standardOutput)")
        let store = try SQLiteStore(path: db)
        let ten = KoreaStandardTime.instant(hour: 10, of: LocalDate(year: 2026, month: 11, day: 20))
        let stored = try await store.indoorSamples(sensors: ["old-monitor"], from: ten, to: ten.addingTimeInterval(3600))
        #expect(stored.map(\.value.ultraFineDust) == [7, 6])
        let text = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db], environment: env).standardOutput
        #expect(
            text.contains(
                "2 samples of old-monitor from 2026-11-20 10:00 to 2026-11-20 10:01, an indoor value for 0 hours (at least 30 minutes covered); 1 rows of a minute given again (the later kept)."
            ),
            "\(text)")
    }

    @Test("A sensor with a problem: dustctl status says it with its fix, in text and JSON; dustctl indoor too")
    func statusLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (config, db) = (directory.path("dustd.yaml"), directory.path("dust.sqlite"))
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        let since = KoreaStandardTime.instant(hour: 9, of: LocalDate(year: 2026, month: 11, day: 20))
        let store = try SQLiteStore(path: db)
        try await store.saveIndoor(
            samples: [],
            states: [
                IndoorSensorState(
                    sensor: "study", kind: "homeassistant", checkedAt: since, problem: SensorProblem.tokenRefused.description,
                    problemSince: since)
            ])
        let env = ["DUSTD_CONFIG": config]
        let text = try await dustctl(["status", "--db", db], environment: env).standardOutput
        #expect(
            text.contains(
                "Indoor        study since 2026-11-20T09:00:00+09:00: it has its token refused by Home Assistant: make a long-lived access token in your profile"
            ), "\(text)")
        let json = try await dustctl(["status", "--db", db, "--json"], environment: env).standardOutput
        #expect(
            json.contains(
                #""indoor":[{"sensor":"study","kind":"homeassistant","lastSample":null,"problem":"it has its token refused by Home Assistant: make a long-lived access token in your profile","problemSince":"2026-11-20T09:00:00+09:00"}]"#
            ), "\(json)")
        let listed = try await dustctl(["indoor", "--db", db], environment: env).standardOutput
        #expect(listed.contains("  problem      it has its token refused by Home Assistant") && listed.contains("(since 2026-11-20 09:00)"))

        // The monitor changed to `kind: import`: dustd no longer asks it, so its old problem is no longer so
        // (`dustctl indoor` said it for good, while `status` did not).
        try configuration.replacingOccurrences(
            of: #"kind: homeassistant, url: "http://127.0.0.1:9", entity: sensor.study_pm25"#, with: "kind: import"
        )
        .write(toFile: config, atomically: true, encoding: .utf8)
        let imported = try await dustctl(["indoor", "--db", db], environment: env).standardOutput
        #expect(imported.contains("study (import), for me") && !imported.contains("problem"), "\(imported)")
        #expect(try await dustctl(["status", "--db", db], environment: env).standardOutput.contains("Indoor") == false)
    }

    @Test(
        "An import replaces only the hours it has rows in: a stray row dated 2000 leaves the months between; hourly rows cover their hours")
    func importKeepsHoursWithoutRows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (config, db, file) = (directory.path("dustd.yaml"), directory.path("dust.sqlite"), directory.path("monitor.csv"))
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["DUSTD_CONFIG": config]
        func minutes(_ day: Int, _ value: Int) -> String {
            (0..<60).map { "2026-11-\(day) 10:\(String(format: "%02d", $0)),\(value),20" }.joined(separator: "\n")
        }
        // November 18 and 19 stored first.
        try ("time,pm25,pm10\n" + minutes(18, 5) + "\n" + minutes(19, 6) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db], environment: env).status == 0)
        // Then December's export, whose first row a monitor without a clock dated 2000 after a power cut.
        try ("time,pm25,pm10\n2000-01-01 00:00,8,15\n" + minutes(20, 9) + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let second = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db], environment: env)
        #expect(
            second.status == 0 && second.standardOutput.contains("61 samples of old-monitor from 2000-01-01 00:00"),
            "\(second.standardOutput)")
        let store = try SQLiteStore(path: db)
        let from = KoreaStandardTime.instant(hour: 0, of: LocalDate(year: 2026, month: 11, day: 18))
        let kept = try await store.indoorSamples(sensors: ["old-monitor"], from: from, to: from.addingTimeInterval(3 * 86_400))
        // The 18th's and 19th's hours are still there (all 120 minutes were removed before), and the 20th's.
        #expect(kept.count == 180 && kept.map(\.value.ultraFineDust).filter { $0 == 5 }.count == 60, "\(kept.count)")

        // An export of hourly means (AirGradient's dashboard): each row stands for its hour, 24 hours known.
        let hourly = (0..<24).map { "2026-11-21 \(String(format: "%02d", $0)):00,12,30" }.joined(separator: "\n")
        try ("time,pm25,pm10\n" + hourly + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let third = try await dustctl(["indoor", "import", file, "--sensor", "old-monitor", "--db", db, "--json"], environment: env)
        #expect(
            third.standardOutput.contains(#""samples":24,"#) && third.standardOutput.contains(#""hoursCovered":24"#),
            "\(third.standardOutput)")
        let day = try await dustctl(
            ["import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db], environment: env)
        #expect(day.status == 0)
        let json = try await dustctl(["day", "2026-11-20", "--db", db, "--json"], environment: env).standardOutput
        #expect(json.contains(#""sensorHours":1"#), "\(json.suffix(300))")
        let stored = try await store.indoorSamples(
            sensors: ["old-monitor"], from: KoreaStandardTime.instant(hour: 0, of: LocalDate(year: 2026, month: 11, day: 21)),
            to: KoreaStandardTime.instant(hour: 0, of: LocalDate(year: 2026, month: 11, day: 22)))
        #expect(stored.count == 24 && stored.allSatisfy { $0.holdSeconds == 3600 })
    }

    @Test("Without indoor sensors: dustctl indoor says how to add one, day prints what it always did")
    func none() async throws {
        let listed = try await dustctl("indoor")
        #expect(listed.status == 0 && listed.standardOutput.contains("No indoor sensors configured (indoor.sensors)"))
    }
}
