import FakeAirKorea
import Foundation
import GRDB
import TestSupport
import Testing

/// dustd's log written where it cannot be: a full disk under a redirected log, a pipe whose reader
/// went away. Foundation's `FileHandle.write` trapped on either (SIGILL on the first line); a line that
/// cannot be written is now dropped and the work goes on.
@Suite("dustd whose log cannot be written", .timeLimit(.minutes(10)))
struct LogOutputProcessTests {
    @Test(
        "dustd --once with its log on a full disk (/dev/full) or into a pipe whose reader left: it polls, stores and exits 0",
        arguments: ["full", "pipe"])
    func logUnwritable(_ where: String) async throws {
        let directory = try TemporaryDirectory("log-output")
        defer { directory.remove() }
        let configuration = directory.path("empty.yaml")
        try "# nothing\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let daily = try TestFixtures.liveData("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: daily) }
        let baseURL = try await server.start()
        let database = directory.path("d.sqlite")
        let environment = [
            "PATH": "/usr/bin:/bin", "DUSTD_CONFIG": configuration, "DUSTD_STATION_NAME": "종로구", "DUSTD_API_SERVICE_KEY": testKey,
            "DUSTD_API_BASE_URL": baseURL, "DUSTD_STORAGE_PATH": database, "DUSTD_FORECAST_ENABLED": "false",
            "DUSTD_ADVISORIES_ENABLED": "false", "DUSTD": Executables.url("dustd").path,
        ]
        let output = directory.path("out.txt")
        let status = try await aside {
            switch `where` {
            case "full":
                try Spawn.run(
                    Executables.url("dustd").path, ["--once"], environment: environment, standardOutput: output, standardError: "/dev/full")
            default:
                // The reader takes one byte and leaves; dustd's status is the pipeline's (pipefail).
                try Spawn.run(
                    "/bin/bash", ["-c", "set -o pipefail; \"$DUSTD\" --once 2>&1 >/dev/null | head -c 1 >/dev/null"],
                    environment: environment, standardOutput: output, standardError: output)
            }
        }
        await server.stop()
        #expect(status == 0, "dustd ended with \(status): \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        #expect(!server.requests.isEmpty)
        var readOnly = Configuration()
        readOnly.readonly = true
        let stored = try await DatabaseQueue(path: database, configuration: readOnly).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM measurement") ?? 0
        }
        #expect(stored == 24)
    }

    @Test("dustd --help and --version on a full disk or a closed stdout exit 74 saying so; into a pipe whose reader left, 0")
    func helpUnwritable() async throws {
        let directory = try TemporaryDirectory("help-output")
        defer { directory.remove() }
        let errors = directory.path("stderr.txt")
        for argument in ["--help", "--version"] {
            let environment = ["PATH": "/usr/bin:/bin", "DUSTD": Executables.url("dustd").path, "ARGUMENT": argument]
            for (shell, expected) in [
                ("\"$DUSTD\" \"$ARGUMENT\" >/dev/full", 74), ("\"$DUSTD\" \"$ARGUMENT\" >&-", 74),
                ("set -o pipefail; \"$DUSTD\" \"$ARGUMENT\" | true", 0),
            ] {
                let status = try await aside {
                    try Spawn.run("/bin/bash", ["-c", shell], environment: environment, standardOutput: "/dev/null", standardError: errors)
                }
                let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                #expect(status == expected, "\(shell): \(said)")
                #expect(expected == 0 ? said.isEmpty : said.hasPrefix("dustd: Cannot write the output: "), "\(shell): \(said)")
            }
        }
    }

}
