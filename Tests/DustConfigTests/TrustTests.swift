import AirKorea
import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

/// The first configuration error `body` throws, or nil.
func configurationError(_ body: () async throws(ConfigurationError) -> Void) async -> ConfigurationError? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

@Suite("Configuration trust: environment variables, YAML errors, file permissions", .timeLimit(.minutes(10)))
struct ConfigurationTrustTests {
    @Test(
        "A bad value from the environment is blamed on the variable swift-configuration read",
        arguments: [
            ("DUSTD_API_BASE_URL", "ftp://x", "api.baseURL"),
            ("DUSTD_API_TIMEOUT_SECONDS", "0", "api.timeoutSeconds"),
            ("DUSTD_POLL_RETRY_INITIAL_SECONDS", "0", "poll.retryInitialSeconds"),
            ("DUSTD_INTAKE_VENTILATION_SEDENTARY", "500", "intake.ventilation.sedentary"),
        ])
    func environmentAttribution(variable: String, value: String, key: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\n".write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(
            await configurationError { () throws(ConfigurationError) in
                _ = try SettingsLoader(environment: [variable: value]).load(configurationFile: path, now: settingsLoadedAt)
            })
        #expect(error.key == key)
        #expect(error.source == "environment variable \(variable)")
        #expect(!error.description.contains(path))
    }

    @Test("An empty DUSTD_ setting is refused, naming the variable, instead of hiding the file's value", arguments: ["", "  "])
    func emptyVariable(value: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\n".write(toFile: path, atomically: false, encoding: .utf8)
        let error = try #require(
            await configurationError { () throws(ConfigurationError) in
                _ = try SettingsLoader(environment: ["DUSTD_STATION_NAME": value]).load(configurationFile: path, now: settingsLoadedAt)
            })
        #expect(error.key == "station.name")
        #expect(
            error.description
                == "Invalid configuration: station.name is empty; give it a value, or unset the variable to use the configuration file or the default (in environment variable DUSTD_STATION_NAME)."
        )
    }

    @Test(
        "A misspelt DUSTD_ variable is a warning with the nearest real name",
        arguments: [
            ("DUSTD_POLL_MINUT", "DUSTD_POLL_MINUTE"),
            ("DUSTD_API_BASEURL", "DUSTD_API_BASE_URL"),
            ("DUSTD_STATON_NAME", "DUSTD_STATION_NAME"),
            ("DUSTD_API_SERVICEKEY", "DUSTD_API_SERVICE_KEY"),
        ])
    func misspeltVariable(variable: String, suggestion: String) throws {
        let settings = try SettingsLoader(environment: [variable: "5", "DUSTD_POLL_MINUTE": "7"], workingDirectory: "/nonexistent")
            .load(configurationFile: nil, now: settingsLoadedAt)
        #expect(settings.poll.minute == 7)
        #expect(
            settings.warnings == [
                "the environment variable \(variable) is not a FineDust setting and is ignored (did you mean \(suggestion)?)"
            ])
    }

    @Test("Every documented variable, DUSTD_CONFIG and DUSTD_API_SERVICE_KEY load without a warning")
    func knownVariables() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "# empty\n".write(toFile: path, atomically: false, encoding: .utf8)
        let environment = [
            "DUSTD_CONFIG": path, "DUSTD_API_SERVICE_KEY": "KEY", "DUSTD_API_SERVICE_KEY_FILE": "/run/key",
            "DUSTD_STATION_NAME": "종로구", "DUSTD_STATION_FALLBACKS": "중구", "DUSTD_STATION_MODE": "nation",
            "DUSTD_API_BASE_URL": "http://127.0.0.1:9", "DUSTD_API_VERSION": "1.5", "DUSTD_API_TIMEOUT_SECONDS": "5",
            "DUSTD_POLL_MINUTE": "5", "DUSTD_POLL_JITTER_SECONDS": "0", "DUSTD_POLL_INTERVAL_SECONDS": "60",
            "DUSTD_POLL_RETRY_INITIAL_SECONDS": "10", "DUSTD_POLL_RETRY_MAX_SECONDS": "20", "DUSTD_STORAGE_PATH": "/tmp/d.sqlite",
            "DUSTD_TIMEZONE": "UTC", "DUSTD_INTAKE_MODEL": "ventilation", "DUSTD_INTAKE_INFILTRATION": "0.5",
            "DUSTD_INTAKE_VENTILATION_SLEEP": "0.3", "DUSTD_INTAKE_VENTILATION_SEDENTARY": "0.4", "DUSTD_INTAKE_VENTILATION_LIGHT": "0.8",
            "DUSTD_INTAKE_VENTILATION_MODERATE": "1.5", "DUSTD_INTAKE_VENTILATION_HIGH": "3",
            "DUSTD_LOG_LEVEL": "debug",
        ]
        let settings = try SettingsLoader(environment: environment).load(configurationFile: nil, now: settingsLoadedAt)
        #expect(settings.warnings == [])
        #expect(settings.api.baseURL == "http://127.0.0.1:9" && settings.api.serviceKeyFile == "/run/key")
        #expect(settings.poll.retryInitialSeconds == 10 && settings.poll.retryMaxSeconds == 20)
        #expect(settings.station.mode == .nation && settings.logLevel == .debug)
    }

    @Test("DUSTD_INTAKE_SCHEDULE is refused, naming the variable and where a schedule goes instead")
    func scheduleVariable() throws {
        do {
            _ = try SettingsLoader(environment: ["DUSTD_INTAKE_SCHEDULE": "0-24 sedentary 0"], workingDirectory: "/nonexistent").load(
                configurationFile: nil, now: settingsLoadedAt)
            Issue.record("a schedule in the environment was accepted")
        } catch {
            #expect(error.key == "intake.schedule")
            #expect(error.source == "environment variable DUSTD_INTAKE_SCHEDULE")
            #expect(error.description.contains("configuration file"))
        }
    }

    @Test("A YAML syntax error is one sentence naming the file and the line")
    func yamlSyntax() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\npoll:\n  minute: 5: 6\n".write(toFile: path, atomically: false, encoding: .utf8)
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            Issue.record("broken YAML was accepted")
        } catch {
            #expect(
                error.description
                    == "Invalid configuration: the file is not valid YAML: mapping values are not allowed in this context at line 4, column 12 (in \(path))."
            )
        }
    }

    @Test(
        "A configuration file that its group or everyone may write is refused with the chmod that fixes it",
        arguments: [
            (0o664, "its group"), (0o646, "every user"), (0o666, "every user"),
        ])
    func writableConfiguration(mode: Int, who: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "poll:\n  minute: 5\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode_t(mode)) == 0)
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            Issue.record("a configuration file with mode \(String(mode, radix: 8)) was accepted")
        } catch {
            #expect(
                error.description
                    == "Invalid configuration: the configuration file \(path) is writable by \(who); run `chmod go-w \(path)`.")
        }
    }

    @Test(
        "A configuration file in a directory others may write without the sticky bit is refused; with it, accepted",
        arguments: [
            (0o777, false), (0o775, false), (0o757, false), (0o1777, true), (0o755, true), (0o700, true),
        ])
    func configurationDirectory(mode: Int, accepted: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("etc")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let path = (folder as NSString).appendingPathComponent("dustd.yaml")
        try "poll:\n  minute: 5\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o644) == 0 && chmod(folder, mode_t(mode)) == 0)
        do {
            let settings = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            #expect(accepted, "a configuration file in a directory with mode \(String(mode, radix: 8)) was accepted")
            #expect(settings.poll.minute == 5)
        } catch {
            #expect(!accepted, "\(error)")
            #expect(
                error.description
                    == "Invalid configuration: the configuration file \(path) is in \(folder), which other users may write, so they could replace the file; run `chmod go-w \(folder)`."
            )
        }
    }

    @Test("A symlinked configuration whose real directory others may write is refused")
    func symlinkedConfiguration() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let shared = directory.path("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        let real = (shared as NSString).appendingPathComponent("dustd.yaml")
        try "poll:\n  minute: 5\n".write(toFile: real, atomically: false, encoding: .utf8)
        #expect(chmod(real, 0o644) == 0 && chmod(shared, 0o777) == 0)
        let link = directory.path("dustd.yaml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(throws: ConfigurationError.self) {
            try SettingsLoader(environment: [:]).load(configurationFile: link, now: settingsLoadedAt)
        }
    }

    @Test(
        "A key file its group may write, or in a directory others may write, is refused; 0600 in 0700 loads",
        arguments: [
            (0o620, 0o700, "the key file %@ is writable by its group; run `chmod go-w %@`"),
            (0o600, 0o770, "the key file %@ is in %d, which other users may write, so they could replace the file; run `chmod go-w %d`"),
            (0o600, 0o700, nil),
        ] as [(Int, Int, String?)])
    func keyFilePermissions(fileMode: Int, directoryMode: Int, problem: String?) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("keys")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let path = (folder as NSString).appendingPathComponent("airkorea-service-key")
        try "TEST+KEY/abc123def456ghi789jkl012mno345==\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, mode_t(fileMode)) == 0 && chmod(folder, mode_t(directoryMode)) == 0)
        var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        settings.api.serviceKeyFile = path
        let loaded = settings
        let error = await configurationError { () throws(ConfigurationError) in
            _ = try ServiceKeyLoader(environment: [:]).load(settings: loaded)
        }
        if let problem {
            let expected = problem.replacingOccurrences(of: "%@", with: path).replacingOccurrences(of: "%d", with: folder)
            #expect(error?.key == "api.serviceKeyFile")
            #expect(error?.description == "Invalid configuration: api.serviceKeyFile names a file that others could change: \(expected).")
        } else {
            #expect(error == nil, "\(String(describing: error))")
        }
    }

    @Test(
        "A key shorter than any data.go.kr issues is refused at start from each source, naming it; 32 letters and digits load",
        arguments: ["x", "crash-test-key", "%2B%2F%3D" + String(repeating: "a1", count: 15) + "b", String(repeating: "🅰", count: 40)])
    func shortKey(_ short: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        let fromEnvironment = await configurationError { () throws(ConfigurationError) in
            _ = try ServiceKeyLoader(environment: ["DUSTD_API_SERVICE_KEY": short]).load(settings: settings)
        }
        #expect(fromEnvironment?.key == "DUSTD_API_SERVICE_KEY")
        #expect(fromEnvironment?.description.contains("fewer than any data.go.kr key") == true, "\(String(describing: fromEnvironment))")
        #expect(fromEnvironment?.description.contains(short) == false)

        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        try "\(short)\n".write(toFile: credentials + "/airkorea-service-key", atomically: false, encoding: .utf8)
        let fromCredential = await configurationError { () throws(ConfigurationError) in
            _ = try ServiceKeyLoader(environment: ["CREDENTIALS_DIRECTORY": credentials]).load(settings: settings)
        }
        #expect(fromCredential?.description.contains("systemd credential") == true, "\(String(describing: fromCredential))")

        let enough = String(repeating: "a1", count: 16)
        let loaded = try ServiceKeyLoader(environment: ["DUSTD_API_SERVICE_KEY": enough]).load(settings: settings)
        #expect(loaded.key.lettersAndDigits == 32)
    }

    @Test("The loader reads no variable beyond environmentNames: given only those, it finds each source's key as given all")
    func environmentNamesSuffice() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        let credentials = directory.path("credentials")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: false)
        let credentialKey = String(repeating: "c3", count: 20)
        try "\(credentialKey)\n".write(toFile: credentials + "/airkorea-service-key", atomically: false, encoding: .utf8)
        let environmentKey = String(repeating: "e5", count: 20)
        let unrelated = ["DUSTD_STATION_NAME": "종로구", "HOME": "/root", "DUSTD_API_SERVICE": "x"]
        for (environment, expected) in [
            (["DUSTD_API_SERVICE_KEY": environmentKey], environmentKey),
            (["CREDENTIALS_DIRECTORY": credentials, "DUSTD_API_SERVICE_KEY": environmentKey], credentialKey),
        ] {
            let whole = environment.merging(unrelated) { given, _ in given }
            let only = whole.filter { ServiceKeyLoader.environmentNames.contains($0.key) }
            let fromWhole = try ServiceKeyLoader(environment: whole).load(settings: settings)
            let fromOnly = try ServiceKeyLoader(environment: only).load(settings: settings)
            #expect(fromOnly.key == fromWhole.key)
            #expect(fromOnly.source == fromWhole.source)
            #expect(fromOnly.key == ServiceKey(expected))
        }
    }

    // MARK: - Owners (StrictModes)

    @Test("A configuration file that belongs to another user (nobody, 0644) is refused with the chown that fixes it; root's is read")
    func configurationOwnedByAnother() async throws {
        guard geteuid() == 0 else {
            print("skipped: giving a file to nobody needs root (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "api:\n  baseURL: https://attacker.example\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o644) == 0 && chown(path, 65534, 65534) == 0)
        let error = await configurationError { () throws(ConfigurationError) in
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
        }
        #expect(
            error?.description
                == "Invalid configuration: the configuration file \(path) belongs to nobody (uid 65534), so that user could change it; run `chown root \(path)`."
        )
        #expect(chown(path, 0, 0) == 0)
        #expect(
            try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt).api.baseURL
                == "https://attacker.example")
    }

    @Test("A configuration file in a directory that belongs to another user is refused: that user could replace it")
    func configurationDirectoryOwnedByAnother() throws {
        guard geteuid() == 0 else {
            print("skipped: giving a directory to nobody needs root (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("etc")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let path = (folder as NSString).appendingPathComponent("dustd.yaml")
        try "poll:\n  minute: 5\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o644) == 0 && chmod(folder, 0o755) == 0 && chown(folder, 65534, 65534) == 0)
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            Issue.record("a configuration file in nobody's directory was accepted")
        } catch {
            #expect(
                error.description
                    == "Invalid configuration: the configuration file \(path) is in \(folder), which belongs to nobody (uid 65534), so that user could replace the file; run `chown root \(folder)`."
            )
        }
    }

    @Test(
        "A key file that belongs to another user, a symlink to one, or a symlink that belongs to another user is refused",
        arguments: [
            "owned", "link to owned", "owned link",
        ])
    func keyFileOwnedByAnother(form: String) async throws {
        guard geteuid() == 0 else {
            print("skipped: giving a file to nobody needs root (run the tests as root to check it)")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.path("keys")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        #expect(chmod(folder, 0o700) == 0)
        let real = (folder as NSString).appendingPathComponent("airkorea-service-key")
        try "TEST+KEY/abc123def456ghi789jkl012mno345==\n".write(toFile: real, atomically: false, encoding: .utf8)
        #expect(chmod(real, 0o600) == 0)
        let link = (folder as NSString).appendingPathComponent("key-link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let named: String
        let expected: String
        switch form {
        case "owned":
            #expect(chown(real, 65534, 65534) == 0)
            named = real
            expected = "the key file \(real) belongs to nobody (uid 65534), so that user could change it; run `chown root \(real)`"
        case "link to owned":
            #expect(chown(real, 65534, 65534) == 0)
            named = link
            expected = "the key file \(link) belongs to nobody (uid 65534), so that user could change it; run `chown root \(link)`"
        default:
            #expect(lchown(link, 65534, 65534) == 0)
            named = link
            expected =
                "the key file \(link) is a symlink that belongs to nobody (uid 65534), so that user could point it elsewhere; replace it with a link of your own or the file itself"
        }
        var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        settings.api.serviceKeyFile = named
        let loaded = settings
        let error = await configurationError { () throws(ConfigurationError) in
            _ = try ServiceKeyLoader(environment: [:]).load(settings: loaded)
        }
        #expect(error?.description == "Invalid configuration: api.serviceKeyFile names a file that others could change: \(expected).")
    }

    // MARK: - Display text

    @Test(
        "A station name with a control character, from the file or the environment, is refused naming the key and its source",
        arguments: [
            "\u{1B}]2;PWNED\u{07}종로구", "종로\u{1B}[2J구", "종로구\u{9B}31m", "종로\u{7F}구", "\u{202E}구로종", "종로\u{2066}구", "종\t로구", "종로\u{0}구",
        ])
    func controlCharactersInStationNames(name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        // Double-quoted YAML spells every character with an escape, so the file holds exactly `name`.
        let escaped = name.unicodeScalars.map {
            $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\"
                ? String($0) : String(format: "\\U%08X", $0.value)
        }.joined()
        for (file, environment, key, source) in [
            ("station:\n  name: \"\(escaped)\"\n", [String: String](), "station.name", "\(path), line 2"),
            ("station:\n  name: 중구\n  fallbacks: [중구, \"\(escaped)\"]\n", [:], "station.fallbacks[1]", "\(path), line 3"),
            ("# empty\n", ["DUSTD_STATION_NAME": name], "station.name", "environment variable DUSTD_STATION_NAME"),
            (
                "# empty\n", ["DUSTD_STATION_FALLBACKS": "중구,\(name)"], "station.fallbacks[1]",
                "environment variable DUSTD_STATION_FALLBACKS"
            ),
        ] {
            try file.write(toFile: path, atomically: false, encoding: .utf8)
            do {
                let settings = try SettingsLoader(environment: environment).load(configurationFile: path, now: settingsLoadedAt)
                Issue.record("\(key) \(settings.station) from \(source) was accepted")
            } catch {
                #expect(error.key == key)
                #expect(error.source == source)
                #expect(error.description.contains("holds the control character U+"), "\(error)")
                #expect(!TerminalSafeText.needsSanitizing(error.description), "the refusal prints the control character itself")
            }
        }
    }

    @Test("Korean, ASCII and emoji station names load unchanged")
    func plainStationNames() throws {
        let settings = try SettingsLoader(
            environment: ["DUSTD_STATION_NAME": "종로구", "DUSTD_STATION_FALLBACKS": "중구,Jung-gu 2,🌫️"],
            workingDirectory: "/nonexistent"
        ).load(configurationFile: nil, now: settingsLoadedAt)
        #expect(settings.station.name == "종로구")
        #expect(settings.station.fallbacks == ["중구", "Jung-gu 2", "🌫️"])
    }

    // MARK: - Alert sink secrets

    @Test("User info in a sink's URL is refused, never sent (the server answered 401 to every alert), and not repeated")
    func sinkUserInfo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        for url in ["http://u:PASSWORD@home.example/hook", "https://user@ntfy.example/PRIVATE_TOPIC"] {
            try "alerts:\n  sinks:\n    - { webhook: \"\(url)\" }\n".write(toFile: path, atomically: false, encoding: .utf8)
            do {
                _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(error.key == "alerts.sinks[0].webhook" && error.description.contains("holds user info"), "\(error)")
                #expect(!error.description.contains("PASSWORD") && !error.description.contains("PRIVATE_TOPIC"), "\(error)")
            }
        }
    }

    @Test("A port past 65535 in api.baseURL or an indoor sensor's url is refused at load (the HTTP client trapped at the first request)")
    func portOutOfRange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        for (yaml, key) in [
            ("api:\n  baseURL: http://127.0.0.1:99999/B552584\n", "api.baseURL"),
            ("indoor:\n  sensors:\n    - {name: a, kind: airgradient, url: \"http://192.168.0.40:70000\"}\n", "indoor.sensors[0].url"),
        ] {
            try yaml.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(throws: ConfigurationError.self, "\(key)") {
                try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            }
            do { _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt) } catch {
                #expect(error.key == key, "\(error)")
            }
        }
    }

    @Test(
        "A sink URL that fails validation is named by its place and kind, never repeated",
        arguments: [
            ("ntfy", "ftp://ntfy.sh/PRIVATE_TOPIC"), ("webhook", "ftp://user:PASSWORD@home.example/SECRETPATH?token=QUERYSECRET"),
            ("ntfy", "PRIVATE_TOPIC"), ("webhook", "https:///SECRETPATH"),
            // A port past 65535 (a digit too many): the HTTP client trapped at the first alert, at every start.
            ("ntfy", "http://home.example:80800/PRIVATE_TOPIC"), ("webhook", "http://[::1]:70000/SECRETPATH"),
            ("ntfy", "http://home.example:0/PRIVATE_TOPIC"),
            // Too large for an Int: Foundation reads no port, and the alert went to port 80.
            ("webhook", "http://home.example:99999999999999999999/SECRETPATH"),
        ])
    func invalidSinkURL(kind: String, url: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "alerts:\n  sinks:\n    - { command: [/bin/true] }\n    - { \(kind): \"\(url)\" }\n".write(
            toFile: path, atomically: false, encoding: .utf8)
        do {
            _ = try SettingsLoader(environment: [:]).load(configurationFile: path, now: settingsLoadedAt)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.key == "alerts.sinks[1].\(kind)")
            #expect(error.description.contains("must be an http or https URL with a host"), "\(error)")
            for secret in ["PRIVATE_TOPIC", "PASSWORD", "SECRETPATH", "QUERYSECRET", "ntfy.sh", "home.example"] {
                #expect(!error.description.contains(secret), "\(error)")
            }
        }
    }

    @Test("A sink setting describes, debug-prints and dumps as its kind and origin only")
    func sinkSettingDescriptions() throws {
        let sinks: [AlertSinkSetting] = [
            .ntfy(url: "https://ntfy.sh/PRIVATE_TOPIC?auth=QUERYSECRET", tokenFile: "/etc/dustd/ntfy-token"),
            .webhook(url: "http://user:PASSWORD@home.example:8123/api/webhook/SECRETPATH"),
            .command(arguments: ["/usr/local/bin/notify", "--token=ARGSECRET"], timeoutSeconds: 10),
        ]
        var settings = AlertSettings()
        settings.sinks = sinks
        var dumped = ""
        dump(settings, to: &dumped)
        let texts =
            [String(describing: settings), String(reflecting: settings), dumped, "\(sinks)"]
            + sinks.flatMap { [String(describing: $0), String(reflecting: $0)] }
        for text in texts {
            for secret in ["PRIVATE_TOPIC", "QUERYSECRET", "PASSWORD", "user:", "SECRETPATH", "ARGSECRET"] {
                #expect(!text.contains(secret), "\(text)")
            }
        }
        #expect(
            sinks.map(\.description) == ["ntfy https://ntfy.sh/…", "webhook http://home.example:8123/…", "command /usr/local/bin/notify"])
        #expect(sinks[1].displayName(position: 2) == "webhook http://home.example:8123/… (sink 2)")
    }
}
