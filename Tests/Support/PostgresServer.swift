import DustConfig
import Foundation

/// A throwaway PostgreSQL cluster for tests (docs/REFERENCE.md §20): Debian's binaries, a data
/// directory of its own, a Unix socket in a temporary directory and no TCP listener at all, and a
/// superuser that logs in with a password (scram-sha-256), so the store's password path is the one
/// tested. A watchdog stops the server and removes its directories once the test process is gone,
/// however it ended.
public final class PostgresServer: Sendable {
    /// The server the tests of one process share, started on first use (`aside`, so the tests
    /// waiting for it hold no thread); each test takes a database of its own (`createDatabase()`).
    /// Nil when the binaries are missing or the server did not start.
    private static let shared = Task<PostgresServer?, Never> {
        guard isAvailable else { return nil }
        do {
            return try await aside { try PostgresServer() }
        } catch {
            FileHandle.standardError.write(Data("PostgreSQL test server did not start: \(error)\n".utf8))
            return nil
        }
    }

    /// The shared server, or why there is none.
    public static func running() async throws -> PostgresServer {
        guard let shared = await shared.value else {
            throw Failure(message: isAvailable ? "the PostgreSQL test server did not start" : unavailableReason)
        }
        return shared
    }

    /// A server of the test's own (`init(tcpTLS:)`), started aside.
    public static func start(tcpTLS: Bool = false, tcpCleartext: Bool = false) async throws -> PostgresServer {
        try await aside { try PostgresServer(tcpTLS: tcpTLS, tcpCleartext: tcpCleartext) }
    }

    /// Debian's `/usr/lib/postgresql/<version>/bin` of the newest version installed, if any.
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first {
                FileManager.default.isExecutableFile(atPath: "\($0)/initdb") && FileManager.default.isExecutableFile(atPath: "\($0)/psql")
            }
    }()

    /// Whether this machine can run the PostgreSQL tests: Debian's `postgresql` package is installed
    /// and, for a test run as root, the `postgres` system user exists (the server never runs as root;
    /// a developer's own run starts it as themselves).
    public static let isAvailable: Bool = binaries != nil && (geteuid() != 0 || account("postgres") != nil)

    /// Why the PostgreSQL tests are disabled where they are.
    public static let unavailableReason =
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb, or run as root with no postgres user): apt-get install -y postgresql"

    /// The account the server runs as: `postgres` when the tests run as root, else the tests' own
    /// user, whose server needs no change of owner and no `runuser`.
    private static var serverAccount: (uid: uid_t, gid: gid_t)? {
        geteuid() == 0 ? account("postgres") : (getuid(), getgid())
    }

    /// `command` run as the server's account: through `runuser -u postgres` as root, as it is otherwise.
    private static func asServer(_ command: [String]) -> (executable: String, arguments: [String]) {
        geteuid() == 0 ? ("/usr/sbin/runuser", ["-u", "postgres", "--"] + command) : (command[0], Array(command.dropFirst()))
    }

    /// The superuser the tests connect as, with `password`.
    public let user = "finedust_test"
    public let password: String
    /// The directory holding the server's socket, `.s.PGSQL.<port>`.
    public let socketDirectory: String
    /// The port: on the Unix socket it only names the socket file; with `tcpTLS`, a free one on 127.0.0.1.
    public let port: Int
    /// Whether the server also listens on 127.0.0.1 (at `port`), with TLS on and a self-signed certificate.
    public let tcpTLS: Bool
    public let root: String
    private let dataDirectory: String
    private let bin: String

    /// Creates a cluster in a new temporary directory and starts it; returns once it accepts connections.
    /// With `tcpTLS`, it listens on 127.0.0.1 too (never another address), offering TLS with a
    /// self-signed certificate for `localhost`, for the tests of `sslmode`.
    /// With `tcpCleartext`, it listens on 127.0.0.1 without TLS and asks TCP clients for their
    /// password in clear text (pg_hba.conf's `password`), for the test that FineDust never sends it.
    public init(tcpTLS: Bool = false, tcpCleartext: Bool = false) throws {
        guard let bin = Self.binaries, let postgres = Self.serverAccount else {
            throw Failure(message: Self.unavailableReason)
        }
        self.bin = bin
        self.tcpTLS = tcpTLS || tcpCleartext
        port = tcpTLS || tcpCleartext ? try Self.freeLoopbackPort() : 5432
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let template = "\(temporary)/finedust-pg-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw Failure(message: "mkdtemp \(template) failed") }
        root = String(cString: made)
        dataDirectory = root + "/data"
        socketDirectory = root + "/socket"
        password = UUID().uuidString
        // The server's user owns its directories; the tests reach the socket as root (or as that user).
        chmod(root, 0o700)
        mkdir(socketDirectory, 0o700)
        chown(root, postgres.uid, postgres.gid)
        chown(socketDirectory, postgres.uid, postgres.gid)
        try startWatchdog()
        let passwordFile = root + "/password"
        _ = FileManager.default.createFile(atPath: passwordFile, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600])
        chown(passwordFile, postgres.uid, postgres.gid)
        let initdb = Self.asServer([
            "\(bin)/initdb", "-D", dataDirectory, "-U", user, "--pwfile=\(passwordFile)", "--auth=scram-sha-256", "--encoding=UTF8",
            "--locale=C", "--no-sync",
        ])
        _ = try Self.run(initdb.executable, initdb.arguments)
        unlink(passwordFile)
        if tcpTLS {
            _ = try Self.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-keyout", dataDirectory + "/server.key", "-out", dataDirectory + "/server.crt",
                ])
            for file in ["server.key", "server.crt"] {
                chmod(dataDirectory + "/" + file, 0o600)
                chown(dataDirectory + "/" + file, postgres.uid, postgres.gid)
            }
        }
        if tcpCleartext {
            try "local all all scram-sha-256\nhost all all 127.0.0.1/32 password\n".write(
                toFile: dataDirectory + "/pg_hba.conf", atomically: false, encoding: .utf8)
        }
        let listening =
            tcpTLS
            ? "listen_addresses = '127.0.0.1'\nssl = on"
            : tcpCleartext ? "listen_addresses = '127.0.0.1'\nssl = off" : "listen_addresses = ''"
        let settings = """

            \(listening)
            unix_socket_directories = '\(socketDirectory)'
            port = \(port)
            max_connections = 400
            shared_buffers = 32MB
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            """
        let configuration = FileHandle(forWritingAtPath: dataDirectory + "/postgresql.conf")
        configuration?.seekToEndOfFile()
        configuration?.write(Data(settings.utf8))
        try configuration?.close()
        try pgctl(["start", "-w", "-t", "60", "-l", root + "/server.log"])
    }

    /// `stop()`, aside: for a test that goes on once the server is down.
    public func stopped() async {
        _ = try? await aside { self.stop() }
    }

    /// Stops the server and removes its directories (the watchdog does the same if this is never called).
    public func stop() {
        try? pgctl(["stop", "-m", "fast", "-w"])
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Restarts the server (what an operator's `pg_ctl restart` or a package upgrade does): every
    /// connection is cut; returns once it accepts connections again.
    public func restart() async throws {
        try await aside { try self.pgctl(["restart", "-m", "fast", "-w", "-t", "60", "-l", self.root + "/server.log"]) }
    }

    /// Where `database` is on this server, over its socket, for `user` (the superuser unless named).
    public func location(database: String, user: String? = nil) -> PostgresLocation {
        PostgresLocation(
            endpoint: .unixSocket(directory: socketDirectory, port: port), user: user ?? self.user, database: database, tls: .disable)
    }

    /// A new, empty database with a name no other test uses.
    public func createDatabase() async throws -> String {
        let name = "finedust_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try await execute("CREATE DATABASE \(name) TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'")
        return name
    }

    /// Runs SQL through `psql` as the superuser, stopping at the first error; returns what it printed
    /// (unaligned, tuples only).
    @discardableResult
    public func execute(_ sql: String, database: String = "postgres") async throws -> String {
        try await aside { try self.executeHere(sql, database: database) }
    }

    private func executeHere(_ sql: String, database: String) throws -> String {
        try Self.run(
            "\(bin)/psql",
            [
                "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", "\(port)", "-U", user, "-d", database,
                "-c", sql,
            ],
            environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"])
    }

    /// Runs pg_ctl as the server's user. Its output goes to a file, never a pipe: the server it
    /// starts inherits pg_ctl's descriptors, and a pipe it held open would never reach its end.
    private func pgctl(_ arguments: [String]) throws {
        let command = Self.asServer(["\(bin)/pg_ctl", "-D", dataDirectory, "-s"] + arguments)
        _ = try Self.run(command.executable, command.arguments)
    }

    /// A detached shell (its own session, so a Ctrl-C or the test process's SIGKILL leaves it
    /// running) that waits for this process to end, then stops the server at once and deletes its files.
    private func startWatchdog() throws {
        let script = """
            while [ -d /proc/$1 ]; do sleep 1; done
            if [ "$(id -u)" = 0 ]; then
                /usr/sbin/runuser -u postgres -- "$2/pg_ctl" -D "$3" -s -m immediate stop >/dev/null 2>&1
            else
                "$2/pg_ctl" -D "$3" -s -m immediate stop >/dev/null 2>&1
            fi
            rm -rf "$4"
            """
        // setsid forks the shell into a session of its own and returns at once.
        _ = try Self.run("/usr/bin/setsid", ["-f", "/bin/sh", "-c", script, "watchdog", "\(getpid())", bin, dataDirectory, root])
    }

    /// Runs `executable` to its end with stdin from /dev/null and stdout and stderr into a file,
    /// nothing else inherited (`Spawn`: the server and the watchdog outlive this call, and must not
    /// hold another test's descriptors); returns what it printed, trimmed, or throws with it when it failed.
    private static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "finedust-pg-output-" + UUID().uuidString
        defer { unlink(outputPath) }
        let status = try Spawn.run(
            executable, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardOutput: outputPath, standardError: outputPath)
        let printed = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw Failure(message: "\(executable) \(arguments.prefix(6).joined(separator: " ")) failed (status \(status)): \(printed)")
        }
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now: the kernel's choice for port 0.
    private static func freeLoopbackPort() throws -> Int {
        let held: HeldLoopbackPort
        do { held = try HeldLoopbackPort(listening: false) } catch { throw Failure(message: "\(error)") }
        defer { held.release() }
        return held.port
    }

    private static func account(_ name: String) -> (uid: uid_t, gid: gid_t)? {
        guard let entry = getpwnam(name) else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// Why the server could not be started or a command failed.
    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
