import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("Configuration", .timeLimit(.minutes(10)))
struct SettingsLoaderTests {
    func write(_ yaml: String, mode: Int = 0o644) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.path("dustd.yaml")
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode_t(mode))
        return (directory, path)
    }

    func loadError(_ yaml: String, environment: [String: String] = [:]) throws -> ConfigurationError? {
        let (directory, path) = try write(yaml)
        defer { directory.remove() }
        do {
            _ = try SettingsLoader(environment: environment).load(configurationFile: path, now: settingsLoadedAt)
            return nil
        } catch {
            return error
        }
    }

    @Test("The shipped Config/dustd.yaml loads and equals the documented defaults")
    func shippedFile() throws {
        let settings = try SettingsLoader(environment: [:]).load(
            configurationFile: TestFixtures.repositoryRoot.appendingPathComponent("Config/dustd.yaml").path, now: settingsLoadedAt)
        #expect(settings.station.name == "종로구" && settings.station.fallbacks.isEmpty && settings.station.mode == .single)
        #expect(settings.api.baseURL == "https://apis.data.go.kr/B552584")
        #expect(settings.api.version == "1.5")
        #expect(settings.api.timeoutSeconds == 30)
        #expect(settings.poll.minute == 20 && settings.poll.jitterSeconds == 60 && settings.poll.intervalSeconds == 3600)
        #expect(settings.poll.retryInitialSeconds == 30 && settings.poll.retryMaxSeconds == 900)
        #expect(settings.storagePath == "/var/lib/dustd/dust.sqlite")
        #expect(settings.calendar.timeZone.identifier == "Asia/Seoul")
        #expect(settings.logLevel == .info)
        let model = try #require(settings.intakeModel as? VentilationIntakeModel)
        #expect(model.infiltration == 0.7)
        #expect(model.rates == VentilationIntakeModel.defaultRates)
        #expect((0..<24).map { model.entry(atHour: $0) } == (0..<24).map { try! VentilationIntakeModel().entry(atHour: $0) })
    }

    @Test("No file at all gives the defaults")
    func defaultsOnly() throws {
        let settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        #expect(settings.station.name == nil)
        #expect(settings.configurationFile == nil || settings.configurationFile == SettingsLoader.systemConfigurationFile)
    }

    @Test("DUSTD_ environment variables override the file")
    func environmentWins() throws {
        let (directory, path) = try write("poll:\n  minute: 7\nstation:\n  name: 중구\n")
        defer { directory.remove() }
        let settings = try SettingsLoader(environment: [
            "DUSTD_POLL_MINUTE": "25", "DUSTD_API_BASE_URL": "http://127.0.0.1:9/B552584",
            "DUSTD_STATION_FALLBACKS": "종로구,용산구", "DUSTD_TIMEZONE": "America/New_York",
        ]).load(configurationFile: path, now: settingsLoadedAt)
        #expect(settings.poll.minute == 25)
        #expect(settings.station.name == "중구")
        #expect(settings.station.fallbacks == ["종로구", "용산구"])
        #expect(settings.api.baseURL == "http://127.0.0.1:9/B552584")
        #expect(settings.calendar.timeZone.identifier == "America/New_York")
    }

    @Test("$DUSTD_CONFIG names the file when --config is absent")
    func configFromEnvironment() throws {
        let (directory, path) = try write("poll:\n  minute: 44\n")
        defer { directory.remove() }
        let settings = try SettingsLoader(environment: ["DUSTD_CONFIG": path]).load(configurationFile: nil, now: settingsLoadedAt)
        #expect(settings.poll.minute == 44)
        #expect(settings.configurationFile == path)
    }

    @Test("A custom schedule and boostcamp model")
    func intake() throws {
        let (directory, path) = try write(
            """
            intake:
              schedule:
                - { from: 0, to: 12, activity: sleep, outdoors: 0 }
                - { from: "12:00", to: 24, activity: moderate, outdoors: 0.25 }
            """)
        defer { directory.remove() }
        let model = try #require(
            try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt).intakeModel as? VentilationIntakeModel
        )
        #expect(model.entry(atHour: 13) == ScheduleEntry(fromHour: 12, toHour: 24, activity: .moderate, outdoors: 0.25))
        let boostcamp = try SettingsLoader(environment: ["DUSTD_INTAKE_MODEL": "boostcamp"]).load(
            configurationFile: path, now: settingsLoadedAt)
        #expect(boostcamp.intakeModel.name == "boostcamp")
    }

    @Test("Alerts: rules (a mapping or the condition alone), every kind of sink, quiet hours, retries")
    func alerts() throws {
        let (directory, path) = try write(
            """
            alerts:
              rules:
                - { when: pm25.grade >= 나쁨 }
                - "intake.today.pm10 > 400"
              sinks:
                - { ntfy: https://ntfy.sh/dust, tokenFile: /etc/dustd/ntfy-token }
                - { webhook: "https://example.org/hook?secret=x" }
                - { command: [/usr/local/bin/notify, --loud, "종로구; rm -rf /"], timeoutSeconds: 20 }
              quietHours: { from: 22, to: "07:00" }
              retryInitialSeconds: 10
              maxAttempts: 3
            """)
        defer { directory.remove() }
        let alerts = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt).alerts
        #expect(
            alerts.rules == [
                AlertRule(metric: .pm25Grade, comparison: .atLeast, threshold: 3),
                AlertRule(metric: .intakeTodayPM10, comparison: .above, threshold: 400),
            ])
        #expect(
            alerts.sinks == [
                .ntfy(url: "https://ntfy.sh/dust", tokenFile: "/etc/dustd/ntfy-token"),
                .webhook(url: "https://example.org/hook?secret=x"),
                .command(arguments: ["/usr/local/bin/notify", "--loud", "종로구; rm -rf /"], timeoutSeconds: 20),
            ])
        #expect(
            alerts.sinks.enumerated().map { $1.displayName(position: $0 + 1) }
                == ["ntfy https://ntfy.sh/… (sink 1)", "webhook https://example.org/… (sink 2)", "command /usr/local/bin/notify (sink 3)"])
        #expect(alerts.quietHours == QuietHours(fromHour: 22, toHour: 7))
        #expect(alerts.retryInitialSeconds == 10 && alerts.maxAttempts == 3)
    }

    @Test(
        "Bad alert settings name the entry and the problem",
        arguments: [
            ("alerts:\n  rules:\n    - { when: pm25.grade 3 }\n", "alerts.rules[0].when", "has no comparison"),
            ("alerts:\n  rules:\n    - { if: pm25.grade >= 3 }\n", "alerts.rules[0]", "field if"),
            ("alerts:\n  rules:\n    - { when: pm2.grade >= 3 }\n", "alerts.rules[0].when", "not something an alert can watch"),
            ("alerts:\n  sinks:\n    - { ntfy: https://a.example, webhook: https://b.example }\n", "alerts.sinks[0]", "exactly one of"),
            ("alerts:\n  sinks:\n    - { command: [notify-send, hi] }\n", "alerts.sinks[0].command", "absolute path"),
            ("alerts:\n  sinks:\n    - { webhook: https://b.example, tokenFile: /x }\n", "alerts.sinks[0]", "only an ntfy sink"),
            ("alerts:\n  sinks:\n    - { webhook: file:///etc/passwd }\n", "alerts.sinks[0].webhook", "http or https"),
            ("alerts:\n  quietHours: { from: 22 }\n", "alerts.quietHours.to", "missing"),
            (
                "alerts:\n  rules:\n    - { when: pm25.grade >= 3 }\n    - { when: pm25.grade >= 나쁨 }\n", "alerts.rules[1]",
                "same rule as alerts.rules[0]"
            ),
            ("intake:\n  schedule:\n    -\n", "intake.schedule[0]", "mapping"),
        ])
    func badAlerts(yaml: String, key: String, problem: String) throws {
        let error = try #require(try loadError(yaml))
        #expect(error.key == key, "\(error)")
        #expect(error.problem.contains(problem), "\(error)")
    }

    @Test(
        "Invalid values name the key, the problem and the source",
        arguments: [
            ("poll:\n  minute: 61\n", "poll.minute", "0 to 59"),
            ("poll:\n  minute: soon\n", "poll.minute", "\"soon\""),
            ("timezone: Mars/Olympus\n", "timezone", "IANA"),
            ("station:\n  mode: everything\n", "station.mode", "single, nation"),
            ("api:\n  baseURL: ftp://example.com\n", "api.baseURL", "http or https"),
            ("intake:\n  model: magic\n", "intake.model", "ventilation or boostcamp"),
            ("intake:\n  infiltration: 1.5\n", "intake.infiltration", "0 to 1"),
            ("poll:\n  minuet: 5\n", "poll.minuet", "did you mean poll.minute"),
            ("station: [a, b]\n", "station", "not a FineDust setting"),
            ("poll:\n  retryInitialSeconds: 60\n  retryMaxSeconds: 30\n", "poll.retryMaxSeconds", "at least"),
        ])
    func invalid(yaml: String, key: String, fragment: String) throws {
        let error = try #require(try loadError(yaml))
        #expect(error.key == key)
        #expect(error.description.contains(fragment), "\(error)")
        #expect(error.description.contains("dustd.yaml"))
    }

    @Test("A schedule with a gap or overlap is refused, naming the hour")
    func scheduleCoverage() throws {
        let gap = try #require(
            try loadError(
                "intake:\n  schedule:\n    - { from: 0, to: 7, activity: sleep, outdoors: 0 }\n    - { from: 8, to: 24, activity: sedentary, outdoors: 0 }\n"
            ))
        #expect(gap.description.contains("7:00"))
        let bad = try #require(try loadError("intake:\n  schedule:\n    - { from: 0, to: 24, activity: dancing, outdoors: 0 }\n"))
        #expect(bad.key == "intake.schedule[0].activity")
    }

    @Test(
        "A schedule entry's error names the entry, the field and the line",
        arguments: [
            (
                "- { from: 0, to: 7, activity: sleep }\n    - { from: 7, to: 9, activity: light }\n    - { from: 9, to: 24, activity: dancing }",
                "intake.schedule[2].activity", "must be one of sleep, sedentary, light, moderate, high, not \"dancing\"", 5
            ),
            ("- { from: 0, activity: sleep }", "intake.schedule[0].to", "is missing", 3),
            ("- { from: 9, to: 7, activity: sleep }", "intake.schedule[0].to", "must be later than from (9)", 3),
            ("- { from: 0, to: 25, activity: sleep }", "intake.schedule[0].to", "must be an hour from 1 to 24", 3),
            ("- { from: 0, to: 24, activity: sleep, outdoor: 0.5 }", "intake.schedule[0]", "(did you mean outdoors?)", 3),
            ("- { from: 0, to: 24, activity: sleep, outdoors: 2 }", "intake.schedule[0].outdoors", "from 0 to 1", 3),
            ("- 0-24 sedentary 0", "intake.schedule[0]", "must be a mapping {from, to, activity, outdoors, at}", 3),
            ("{ from: 0, to: 24, activity: sleep }", "intake.schedule", "must be a list", 3),
        ])
    func scheduleEntries(entries: String, key: String, fragment: String, line: Int) throws {
        let (directory, path) = try write("intake:\n  schedule:\n    \(entries)\n")
        defer { directory.remove() }
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            Issue.record("a bad schedule was accepted")
        } catch {
            #expect(error.key == key)
            #expect(error.description.contains(fragment), "\(error)")
            #expect(error.source == "\(path), line \(line)")
        }
    }

    @Test("A value in the file is blamed on its line")
    func fileLine() throws {
        let error = try #require(try loadError("station:\n  name: 종로구\npoll:\n  jitterSeconds: 5\n  minute: 61\n"))
        #expect(error.key == "poll.minute")
        #expect(error.source?.hasSuffix("dustd.yaml, line 5") == true, "\(error)")
    }

    @Test("A first retry delay above the default maximum is blamed on the key that was set")
    func retryOrder() throws {
        let error = try #require(try loadError("", environment: ["DUSTD_POLL_RETRY_INITIAL_SECONDS": "1000"]))
        #expect(error.key == "poll.retryInitialSeconds")
        #expect(error.source == "environment variable DUSTD_POLL_RETRY_INITIAL_SECONDS")
        #expect(error.description.contains("at most poll.retryMaxSeconds (900)"))
    }

    @Test("Scalars mean what the key expects, not what YAML 1.1 would guess")
    func untypedScalars() throws {
        let (directory, path) = try write("station:\n  name: no\n  fallbacks: [on, 1.10]\napi:\n  version: 1.50\n")
        defer { directory.remove() }
        let settings = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
        #expect(settings.station.name == "no")
        #expect(settings.station.fallbacks == ["on", "1.10"])
        #expect(settings.api.version == "1.50")
    }

    @Test("An environment value that is wrong names the variable")
    func environmentError() throws {
        let error = try #require(try loadError("", environment: ["DUSTD_POLL_INTERVAL_SECONDS": "0"]))
        #expect(error.key == "poll.intervalSeconds")
        #expect(error.source == "environment variable DUSTD_POLL_INTERVAL_SECONDS")
    }

    @Test("Broken YAML and files writable by others are refused")
    func brokenFiles() throws {
        let broken = try #require(try loadError("station: [unclosed\n"))
        #expect(broken.description.contains("not valid YAML"))
        let (directory, path) = try write("poll:\n  minute: 5\n", mode: 0o666)
        defer { directory.remove() }
        #expect(throws: ConfigurationError.self) {
            try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
        }
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: "/nonexistent/dustd.yaml", now: settingsLoadedAt)
            Issue.record("a missing configuration file was accepted")
        } catch {
            #expect(error.description.contains("/nonexistent/dustd.yaml"))
        }
    }
}
