import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

/// The sentence a `storage.url` is refused with, or "parsed".
private func refusal(_ url: String) -> String {
    do {
        _ = try PostgresLocation(url: url)
        return "parsed"
    } catch {
        return error.description
    }
}

/// Every run of four characters of `secret` (all of it when shorter): none may show in a message.
func fragments(of secret: String) -> [String] {
    let characters = Array(secret)
    guard characters.count > 4 else { return [secret] }
    return (0...(characters.count - 4)).map { String(characters[$0..<($0 + 4)]) }
}

@Suite("storage.url: where the PostgreSQL database is, never with its password (docs/REFERENCE.md §11, §20)", .timeLimit(.minutes(10)))
struct StorageURLTests {
    @Test(
        "Every form libpq writes is read to the exact location",
        arguments: [
            (
                "postgresql://dustd@db.example.org:5433/finedust",
                PostgresLocation(endpoint: .tcp(host: "db.example.org", port: 5433), user: "dustd", database: "finedust")
            ),
            (
                "postgres://dustd@localhost/finedust",
                PostgresLocation(endpoint: .tcp(host: "localhost", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "PostgreSQL://dustd@10.0.0.7/finedust",
                PostgresLocation(endpoint: .tcp(host: "10.0.0.7", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "  postgresql://dustd@localhost/finedust\n",
                PostgresLocation(endpoint: .tcp(host: "localhost", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@[::1]:5433/finedust",
                PostgresLocation(endpoint: .tcp(host: "::1", port: 5433), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@[fd00::2]/finedust",
                PostgresLocation(endpoint: .tcp(host: "fd00::2", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://health%20office%40school@localhost/%EB%AF%B8%EC%84%B8%20dust",
                PostgresLocation(endpoint: .tcp(host: "localhost", port: 5432), user: "health office@school", database: "미세 dust")
            ),
            (
                "postgresql://dustd@%2Frun%2Fpostgresql/finedust",
                PostgresLocation(endpoint: .unixSocket(directory: "/run/postgresql", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@%2frun%2fpostgresql:5433/finedust",
                PostgresLocation(endpoint: .unixSocket(directory: "/run/postgresql", port: 5433), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@/finedust?host=/var/run/postgresql",
                PostgresLocation(endpoint: .unixSocket(directory: "/var/run/postgresql", port: 5432), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@:5433/finedust?host=%2Ftmp%2Fpg%20test",
                PostgresLocation(endpoint: .unixSocket(directory: "/tmp/pg test", port: 5433), user: "dustd", database: "finedust")
            ),
            (
                "postgresql://dustd@db:6000/finedust?sslmode=verify-full",
                PostgresLocation(endpoint: .tcp(host: "db", port: 6000), user: "dustd", database: "finedust", tls: .verifyFull)
            ),
            (
                "postgresql://dustd@/finedust?sslmode=disable&host=/run/postgresql",
                PostgresLocation(
                    endpoint: .unixSocket(directory: "/run/postgresql", port: 5432), user: "dustd", database: "finedust", tls: .disable)
            ),
        ])
    func forms(url: String, expected: PostgresLocation) throws {
        #expect(try PostgresLocation(url: url) == expected)
    }

    @Test("Each of libpq's six sslmode values is honoured; without one, prefer", arguments: PostgresLocation.TLSMode.allCases)
    func sslModes(mode: PostgresLocation.TLSMode) throws {
        #expect(try PostgresLocation(url: "postgresql://u@h/d?sslmode=\(mode.rawValue)").tls == mode)
        #expect(try PostgresLocation(url: "postgresql://u@h/d").tls == .prefer)
    }

    @Test("The description names user, host, port and database: what the start log and dustctl status show")
    func descriptions() throws {
        #expect(try PostgresLocation(url: "postgresql://dustd@db.example.org/finedust").description == "dustd@db.example.org:5432/finedust")
        #expect(try PostgresLocation(url: "postgresql://dustd@[::1]:5433/finedust").description == "dustd@[::1]:5433/finedust")
        #expect(
            try PostgresLocation(url: "postgresql://dustd@%2Frun%2Fpostgresql/finedust").description
                == "dustd@/run/postgresql:5432/finedust")
    }

    @Test(
        "Each refusal names storage.url and says what to write",
        arguments: [
            (
                "mysql://dustd@localhost/finedust",
                "Invalid configuration: storage.url has the scheme \"mysql\"; only postgresql:// and postgres:// are understood (postgresql://USER@HOST:PORT/DB)."
            ),
            (
                "dustd@db://finedust",
                "Invalid configuration: storage.url must start with postgresql:// or postgres:// (postgresql://USER@HOST:PORT/DB)."
            ),
            (
                "localhost:5432/finedust",
                "Invalid configuration: storage.url must be a URL such as postgresql://USER@HOST:PORT/DB (or postgres://…)."
            ),
            (
                "postgresql://localhost/finedust",
                "Invalid configuration: storage.url names no user; write the role FineDust logs in as before an @: postgresql://USER@HOST:PORT/DB."
            ),
            (
                "postgresql://@localhost/finedust",
                "Invalid configuration: storage.url names no user; write the role FineDust logs in as before an @: postgresql://USER@HOST:PORT/DB."
            ),
            (
                "postgresql://dustd@localhost",
                "Invalid configuration: storage.url names no database; write it after the host: postgresql://USER@HOST:PORT/DB."
            ),
            (
                "postgresql://dustd@localhost/",
                "Invalid configuration: storage.url names no database; write it after the host: postgresql://USER@HOST:PORT/DB."
            ),
            (
                "postgresql://dustd@localhost/a/b",
                "Invalid configuration: storage.url has more than one name after the host; write the database alone: postgresql://USER@HOST:PORT/DB."
            ),
            (
                "postgresql://dustd@localhost:65536/finedust",
                "Invalid configuration: storage.url has a port that is not a number from 1 to 65535; write HOST:PORT, e.g. localhost:5432."
            ),
            (
                "postgresql://dustd@localhost:0/finedust",
                "Invalid configuration: storage.url has a port that is not a number from 1 to 65535; write HOST:PORT, e.g. localhost:5432."
            ),
            (
                "postgresql://dustd@localhost:54x2/finedust",
                "Invalid configuration: storage.url has a port that is not a number from 1 to 65535; write HOST:PORT, e.g. localhost:5432."
            ),
            (
                "postgresql://dustd@localhost:/finedust",
                "Invalid configuration: storage.url has a port that is not a number from 1 to 65535; write HOST:PORT, e.g. localhost:5432."
            ),
            (
                "postgresql://dustd@::1/finedust",
                "Invalid configuration: storage.url has an IPv6 address without brackets; write it as [::1]:PORT."
            ),
            (
                "postgresql://dustd@/finedust",
                "Invalid configuration: storage.url names no host; write postgresql://USER@HOST:PORT/DB, or for the server's Unix socket postgresql://USER@%2Frun%2Fpostgresql/DB or postgresql://USER@/DB?host=/run/postgresql."
            ),
            (
                "postgresql://dustd@localhost/finedust?host=/run/postgresql",
                "Invalid configuration: storage.url names the server twice, as the host and as ?host=; keep one."
            ),
            (
                "postgresql://dustd@/finedust?host=run/postgresql",
                "Invalid configuration: storage.url has ?host= that is not the absolute directory of the server's Unix socket (e.g. ?host=/run/postgresql); write a TCP host before the port instead."
            ),
            (
                "postgresql://dustd@localhost/finedust?sslmode=verify_full",
                "Invalid configuration: storage.url has ?sslmode=verify_full, which is not one of disable, allow, prefer, require, verify-ca, verify-full."
            ),
            (
                "postgresql://dustd@localhost/finedust?connect_timeout=5",
                "Invalid configuration: storage.url has the parameter ?connect_timeout=, which FineDust does not understand; only ?sslmode= and ?host= are read."
            ),
            (
                "postgresql://dustd@localhost/finedust?sslmode=require&sslmode=disable",
                "Invalid configuration: storage.url gives ?sslmode= twice; keep one."
            ),
            (
                "postgresql://dust%zzd@localhost/finedust",
                "Invalid configuration: storage.url has a user with a broken %-escape; write each special character as % and two hex digits."
            ),
            (
                "postgresql://dust%0Ad@localhost/finedust",
                "Invalid configuration: storage.url has a user holding a control character; write it without one."
            ),
        ])
    func refusals(url: String, sentence: String) {
        #expect(refusal(url) == sentence)
    }

    @Test(
        "A password in the URL is refused with the fix, and no message holds any of it, raw or decoded",
        arguments: [
            ("postgresql://dustd:Zq9%58Kw7v@localhost/finedust", ["Zq9%58Kw7v", "Zq9XKw7v"]),
            ("postgres://dustd:Zq9/Kw?7v#Tp@db:5432/finedust", ["Zq9/Kw?7v#Tp"]),
            ("postgresql://dustd:@localhost/finedust", []),
            ("postgresql://dustd@localhost/finedust?password=Zq9Kw7vTp", ["Zq9Kw7vTp"]),
        ])
    func passwordRefused(url: String, secrets: [String]) {
        let sentence = refusal(url)
        #expect(sentence.hasPrefix("Invalid configuration: storage.url holds a password ("))
        #expect(sentence.contains("storage.passwordFile (mode 0600)") && sentence.contains("the systemd credential postgres-password"))
        for fragment in secrets.flatMap(fragments(of:)) {
            #expect(!sentence.contains(fragment), "\(fragment) shows in: \(sentence)")
        }
    }

    @Test("A URL that only looks wrong because of a password (before the scheme, no @, a port of letters) never repeats it")
    func passwordWithoutAt() {
        for url in [
            "dustd:Zq9Kw7vTp@db://finedust", "postgresql//dustd:Zq9Kw7vTp@db/finedust", "postgresql://dustd:Zq9Kw7vTp/finedust",
            "postgresql://localhost:Zq9Kw7vTp/finedust",
            "postgresql://dustd@db:Zq9Kw7vTp/finedust",
        ] {
            let sentence = refusal(url)
            #expect(sentence != "parsed")
            for fragment in fragments(of: "Zq9Kw7vTp") {
                #expect(!sentence.contains(fragment), "\(fragment) shows in: \(sentence)")
            }
        }
    }
}

@Suite(
    "storage.url in the settings: from the file or DUSTD_STORAGE_URL, and never beside storage.path (docs/REFERENCE.md §11)",
    .timeLimit(.minutes(10)))
struct StorageSettingsTests {
    func load(_ yaml: String, environment: [String: String] = [:]) throws(ConfigurationError) -> FineDustSettings {
        let directory: TemporaryDirectory
        do {
            directory = try TemporaryDirectory()
            try yaml.write(toFile: directory.path("dustd.yaml"), atomically: true, encoding: .utf8)
        } catch {
            throw ConfigurationError(key: nil, problem: "test setup failed: \(error)")
        }
        defer { directory.remove() }
        return try SettingsLoader(environment: environment).load(configurationFile: directory.path("dustd.yaml"), now: settingsLoadedAt)
    }

    func problem(_ yaml: String, environment: [String: String] = [:]) -> String {
        do {
            _ = try load(yaml, environment: environment)
            return "loaded"
        } catch {
            // The file's temporary path differs each run.
            return error.description.replacingOccurrences(
                of: #"/[^ ]*/dustd\.yaml"#, with: "dustd.yaml", options: .regularExpression)
        }
    }

    @Test("Without storage.url, SQLite at storage.path as before; the database is named by its path")
    func sqliteUnchanged() throws {
        let settings = try load("storage:\n  path: /srv/dust.sqlite\n")
        #expect(settings.postgres == nil && settings.storagePasswordFile == nil)
        #expect(settings.storagePath == "/srv/dust.sqlite" && settings.storage.description == "/srv/dust.sqlite")
        #expect(try load("# defaults\n").storage.description == "/var/lib/dustd/dust.sqlite")
    }

    @Test("storage.url from the file or from DUSTD_STORAGE_URL selects PostgreSQL, named USER@HOST:PORT/DB")
    func urlSelectsPostgres() throws {
        let fromFile = try load("storage:\n  url: postgresql://dustd@db:5433/finedust\n  passwordFile: /etc/dustd/postgres-password\n")
        #expect(fromFile.postgres == PostgresLocation(endpoint: .tcp(host: "db", port: 5433), user: "dustd", database: "finedust"))
        #expect(fromFile.storagePasswordFile == "/etc/dustd/postgres-password")
        #expect(fromFile.storage.description == "dustd@db:5433/finedust")
        let fromEnvironment = try load(
            "# defaults\n",
            environment: [
                "DUSTD_STORAGE_URL": "postgres://dustd@%2Frun%2Fpostgresql/finedust", "DUSTD_STORAGE_PASSWORD_FILE": "/run/pw",
            ])
        #expect(fromEnvironment.postgres?.endpoint == .unixSocket(directory: "/run/postgresql", port: 5432))
        #expect(fromEnvironment.storagePasswordFile == "/run/pw" && fromEnvironment.warnings.isEmpty)
    }

    @Test("A bad storage.url is refused where it was written: the file's line or the variable")
    func refusalPlaced() {
        #expect(
            problem("station:\n  name: 종로구\nstorage:\n  url: postgresql://dustd@localhost\n")
                == "Invalid configuration: storage.url names no database; write it after the host: postgresql://USER@HOST:PORT/DB (in dustd.yaml, line 4)."
        )
        let sentence = problem("# defaults\n", environment: ["DUSTD_STORAGE_URL": "postgresql://dustd:Zq9Kw7vTp@localhost/finedust"])
        #expect(sentence.hasPrefix("Invalid configuration: storage.url holds a password (USER:PASSWORD@)"))
        #expect(sentence.hasSuffix("(in environment variable DUSTD_STORAGE_URL)."))
        for fragment in fragments(of: "Zq9Kw7vTp") { #expect(!sentence.contains(fragment)) }
    }

    @Test("storage.path and storage.url both set is an error naming both and where each was set")
    func bothKeys() {
        #expect(
            problem("storage:\n  path: /var/lib/dustd/dust.sqlite\n  url: postgresql://dustd@db/finedust\n")
                == "Invalid configuration: storage.path (in dustd.yaml, line 2) and storage.url (in dustd.yaml, line 3) are both set; keep one: remove storage.path (or leave it empty) to use PostgreSQL, or remove storage.url to use SQLite."
        )
        #expect(
            problem("storage:\n  path: /srv/d.sqlite\n", environment: ["DUSTD_STORAGE_URL": "postgresql://dustd@db/finedust"])
                == "Invalid configuration: storage.path (in dustd.yaml, line 2) and storage.url (in environment variable DUSTD_STORAGE_URL) are both set; keep one: remove storage.path (or leave it empty) to use PostgreSQL, or remove storage.url to use SQLite."
        )
        #expect(
            problem("storage:\n  url: postgresql://dustd@db/finedust\n", environment: ["DUSTD_STORAGE_PATH": "/srv/d.sqlite"])
                == "Invalid configuration: storage.path (in environment variable DUSTD_STORAGE_PATH) and storage.url (in dustd.yaml, line 2) are both set; keep one: remove storage.path (or leave it empty) to use PostgreSQL, or remove storage.url to use SQLite."
        )
        // An empty path: is no path: the shipped file's way of switching to PostgreSQL.
        #expect(problem("storage:\n  path:\n  url: postgresql://dustd@db/finedust\n") == "loaded")
    }

    @Test("dustctl's --db beside storage.url is refused naming both; without storage.url it points at the SQLite file")
    func databaseOption() throws {
        var postgres = try load("storage:\n  url: postgresql://dustd@db/finedust\n")
        do {
            try postgres.useSQLite(at: "/tmp/x.sqlite", option: "--db")
            Issue.record("--db was taken beside storage.url")
        } catch {
            #expect(
                error.description
                    == "Invalid configuration: --db names an SQLite database but storage.url selects PostgreSQL; drop --db, or remove storage.url to use SQLite."
            )
        }
        var sqlite = try load("# defaults\n")
        try sqlite.useSQLite(at: "/tmp/x.sqlite", option: "--db")
        #expect(sqlite.storagePath == "/tmp/x.sqlite" && sqlite.storage.description == "/tmp/x.sqlite")
    }

    @Test("storage.passwordFile without storage.url is refused: the password would be for nothing")
    func passwordFileWithoutURL() {
        #expect(
            problem("storage:\n  passwordFile: /etc/dustd/postgres-password\n")
                == "Invalid configuration: storage.passwordFile is set but storage.url is not; the password is for a PostgreSQL database: set storage.url, or remove storage.passwordFile (in dustd.yaml, line 2)."
        )
    }
}
