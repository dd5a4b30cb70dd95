import DustConfig
import DustKit
import DustSQL
import DustServices
import Foundation
import PostgresNIO
import _ConnectionPoolModule

/// A failure of the PostgreSQL store that is not the server's: a schema this version cannot use.
enum PostgresFailure: Error {
    /// The database holds migrations this version does not know.
    case schemaTooNew([String])
    /// The database has no FineDust tables (read-only open).
    case notFineDust
    /// An older FineDust's schema, opened read-only: it cannot be upgraded from here.
    case olderSchema
    /// The role may not write the tables a read-write open needs.
    case readOnlyRole([String])
    /// The server asks for the password in clear text over a connection that may not be encrypted.
    case cleartextPassword

    /// SQLSTATE classes and codes that mean the connection, not the statement, failed: the server
    /// shut down or restarted (57P0x), or the link broke (08xxx).
    static func isConnectionLoss(_ sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }
}

extension StorageFailure {
    /// The failure a PostgreSQL error stands for, in a sentence that names the database as
    /// `location` does (docs/REFERENCE.md §20) and never contains `password`.
    init(postgres error: any Error, location: PostgresLocation, password: String) {
        let (kind, sentence) = Self.describe(Self.underlying(error), location)
        self.init(kind: kind, description: location.withholding(password, in: sentence, as: "(withheld)"))
    }

    /// The error that caused a transaction's failure, rather than its wrapper.
    private static func underlying(_ error: any Error) -> any Error {
        if let failed = error as? PostgresStore.BeginFailed { return underlying(failed.underlying) }
        if let transaction = error as? PostgresTransactionError {
            if let cause = transaction.closureError ?? transaction.beginError ?? transaction.commitError { return underlying(cause) }
        }
        return error
    }

    private static func describe(_ error: any Error, _ location: PostgresLocation) -> (Kind, String) {
        let database = "the PostgreSQL database \(location)"
        if let failure = error as? StorageFailure { return (failure.kind, failure.description) }
        // A row the shared statements could not read: damaged, or changed by hand (as SQLite's says).
        if let decoding = error as? SQLDecodingError { return (.unusable, "The database \(location) cannot be read: \(decoding).") }
        if let failure = error as? PostgresFailure {
            switch failure {
            case .schemaTooNew:
                return (.schemaTooNew, "The database \(location) was written by a newer FineDust; upgrade dustd and dustctl.")
            case .notFineDust:
                return (
                    .unusable,
                    "\(database) has no FineDust tables; start dustd once with a role that may create them (it migrates the schema), "
                        + "or check the database name in storage.url."
                )
            case .olderSchema:
                return (
                    .unusable,
                    "An older FineDust wrote \(database) and this version reads it only once it is upgraded; restart dustd "
                        + "(systemctl restart dustd), which upgrades it, then try again."
                )
            case .cleartextPassword:
                return (
                    .denied,
                    "The PostgreSQL server of \(location) asks for the password in clear text, and with sslmode=\(location.tls.rawValue) "
                        + "the connection may not be encrypted; FineDust did not send it. Use scram-sha-256 for this role in "
                        + "pg_hba.conf, or add ?sslmode=require (or verify-full) to storage.url; write ?sslmode=disable only to "
                        + "accept sending it in clear."
                )
            case .readOnlyRole(let tables):
                return (
                    .denied,
                    "The role \(location.user) may not write \(database) "
                        + "(no INSERT, UPDATE or DELETE on \(tables.joined(separator: ", "))); dustd and imports need a role "
                        + "that owns the tables or is granted them (GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public "
                        + "TO \(location.user)), the reading commands a read-only role."
                )
            }
        }
        if let timedOut = error as? PostgresStore.LeaseTimedOut {
            return (
                .unreachable,
                "Cannot reach \(database): no connection to the server within \(timedOut.after.components.seconds) seconds; "
                    + "check that PostgreSQL runs and that storage.url names its host and port. Stored data is intact."
            )
        }
        if error is PostgresStore.StatementTimedOut {
            return (
                .unreachable,
                "\(database) did not answer within \(PostgresStore.statementTimeout.nanoseconds / 1_000_000_000) seconds; check that "
                    + "PostgreSQL runs and the network to it. What was not committed is not stored."
            )
        }
        if error is PostgresStore.ConnectionClosed {
            return (
                .unreachable,
                "The connection to \(database) closed before the statement was sent; check that PostgreSQL runs. "
                    + "What was not committed is not stored."
            )
        }
        if error is CancellationError {
            return (
                .io,
                "Reading or writing \(database) was stopped before it finished: dustd is stopping, or this dustd no longer polls. "
                    + "What was not committed is not stored."
            )
        }
        if error is ConnectionPoolError {
            return (
                .unreachable,
                "Cannot reach \(database): the server has not accepted a connection for a while; check that PostgreSQL runs and "
                    + "that storage.url names its host and port. Stored data is intact."
            )
        }
        guard let psql = error as? PSQLError else {
            return (.io, "Reading or writing \(database) failed (\(String(describing: error))).")
        }
        switch psql.code {
        case .server:
            return describeServer(psql, location)
        case .connectionError where psql.underlying is NIOSSLError || psql.underlying is BoringSSLError:
            let reason = psql.underlying.map { String(describing: $0) } ?? "no reason given"
            return (
                .unreachable,
                "The PostgreSQL server of \(location) presented a certificate sslmode=\(location.tls.rawValue) does not accept "
                    + "(\(reason)); "
                    + "add the certificate authority that signed it to the system's trust store, or connect with "
                    + "?sslmode=require (encrypted, not verified)."
            )
        case .connectionError:
            let reason = psql.underlying.map { " (\(String(describing: $0)))" } ?? ""
            return (
                .unreachable,
                "Cannot reach the PostgreSQL server of \(location)\(reason); check that it runs and that storage.url names its "
                    + "host and port (or socket directory). Stored data is intact."
            )
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return (
                .unreachable,
                "The connection to \(database) was lost (the server stopped or restarted, or the network broke); nothing of the "
                    + "interrupted write was kept. It is retried once the server answers again."
            )
        case .sslUnsupported:
            return (
                .unreachable,
                "The PostgreSQL server of \(location) does not offer TLS, which sslmode=\(location.tls.rawValue) requires; enable ssl "
                    + "on the server, or set ?sslmode=prefer in storage.url."
            )
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return (.unreachable, "The TLS connection to \(database) failed; check the server's certificate and sslmode in storage.url.")
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return (
                .denied,
                "The PostgreSQL server refused to log in \(location.user) to \(location) (its authentication method is not one "
                    + "FineDust speaks, or the exchange failed); use scram-sha-256 or md5 for this role in pg_hba.conf and check the "
                    + "password in storage.passwordFile or the postgres-password credential."
            )
        default:
            return (.io, "Reading or writing \(database) failed (\(psql.code.description)).")
        }
    }

    private static func describeServer(_ error: PSQLError, _ location: PostgresLocation) -> (Kind, String) {
        let database = "the PostgreSQL database \(location)"
        // What the server says is quoted made safe and cut (it goes on to the log, `daemon_state` and the
        // status board): a server, or whoever sits between it and a connection sslmode does not encrypt,
        // may send any text of any length. A real SQLSTATE is five letters and digits.
        let state = TerminalSafeText.shown(error.serverInfo?[.sqlState] ?? "", characters: 5)
        let message = TerminalSafeText.shown(error.serverInfo?[.message] ?? "no message", characters: 300)
        switch state {
        case "28P01", "28000":
            return (
                .denied,
                "The PostgreSQL server refused the login of role \(location.user) to \(location) (\(message)); check the password "
                    + "in storage.passwordFile or the postgres-password credential (dustd reads it at start: restart dustd after "
                    + "changing it), and the role's line in pg_hba.conf."
            )
        case "42501":
            return (
                .denied,
                "The role \(location.user) lacks a privilege on \(database) (\(message)); a read-only role serves the reading commands "
                    + "only: give dustd and imports a role that may write (GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "
                    + "\(location.user))."
            )
        case "25006":
            return (
                .denied,
                "\(database) is read-only here (\(message)): the server is a standby, or the session is read-only; point storage.url "
                    + "at the primary for dustd and imports."
            )
        case "3D000":
            return (
                .missing,
                "There is no database \(location.database) on the PostgreSQL server of \(location); create it "
                    + "(createdb -O \(location.user) \(location.database)) or correct storage.url."
            )
        case "42P01", "42703":
            // undefined_table, undefined_column: every migration is recorded (the open checked), so the
            // tables were changed by hand or by another program.
            return (
                .unusable,
                "The tables of \(database) are not the ones its migrations made (\(message)); restore it from a backup, "
                    + "or ask whoever changed them."
            )
        case "53100":
            return (
                .diskFull,
                "The disk of the PostgreSQL server holding \(location) is full; nothing was written and stored data is intact. "
                    + "Free some space there and try again."
            )
        case "40001", "40P01", "55P03":
            return (.locked, "\(database) was locked by another session (\(message)); try again.")
        case "53300":
            return (
                .unreachable,
                "The PostgreSQL server of \(location) has no connection left (\(message)); raise max_connections or stop idle clients."
            )
        default:
            if PostgresFailure.isConnectionLoss(state) {
                return (
                    .unreachable,
                    "The connection to \(database) was lost (\(message)); nothing of the interrupted write was kept. It is retried once "
                        + "the server answers again."
                )
            }
            return (.io, "Reading or writing \(database) failed (\(message), SQLSTATE \(state)).")
        }
    }
}

extension PostgresLocation {
    /// `text` with every occurrence of `password` replaced by `placeholder`, except inside what this
    /// location shows anyway (its description, role, database and address): a password that is also
    /// the role's name, or a single digit of the address, would otherwise be pointed out by the very
    /// placeholder that hides it ("user \"(withheld)\"" beside a log line naming the role).
    func withholding(_ password: String, in text: String, as placeholder: String) -> String {
        guard !password.isEmpty, text.contains(password) else { return text }
        let address: [String] =
            switch endpoint {
            case .tcp(let host, let port): [host, "\(port)"]
            case .unixSocket(let directory, let port): [directory, "\(port)"]
            }
        let shown = ([description, user, database] + address).filter { !$0.isEmpty && $0.contains(password) }
        var kept: [Range<String.Index>] = []
        for name in shown {
            var from = text.startIndex
            while let found = text.range(of: name, range: from..<text.endIndex) {
                kept.append(found)
                from = found.upperBound
            }
        }
        var result = ""
        var index = text.startIndex
        while let found = text.range(of: password, range: index..<text.endIndex) {
            if kept.contains(where: { $0.overlaps(found) }) {
                result += text[index..<found.upperBound]
            } else {
                result += text[index..<found.lowerBound] + placeholder
            }
            index = found.upperBound
        }
        return result + text[index...]
    }
}
