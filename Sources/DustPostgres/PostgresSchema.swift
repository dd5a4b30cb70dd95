import DustConfig
import DustKit
import DustSQL
import Foundation
import Logging
import PostgresNIO

/// How PostgreSQL applies the shared migrations (docs/REFERENCE.md §20): in one transaction under
/// an advisory lock, recorded in `finedust_migration`; and what a read-only open checks.
enum PostgresSchema {
    /// What the migrations applied are recorded in.
    static let migrationTable = "finedust_migration"

    /// The key of the transaction-level advisory lock migrations run under: two dustd starting at
    /// once migrate one after the other, and the second finds nothing left to do.
    static let migrationLock: Int64 = 0x4669_6E65_4475_7374  // "FineDust"

    /// The shared migrations (DustSQL's `Migration.all`) in PostgreSQL's words.
    static let migrations: [(name: String, statements: [String], rewrites: [Migration.TextRewrite])] = Migration.all.map {
        ($0.name, $0.statements(.postgres), $0.rewrites)
    }

    /// The tables a writer inserts into, updates and deletes from.
    static let writtenTables = [
        "measurement", "station", "poll_attempt", "daemon_state", "forecast_issue", "forecast_grade", "alert_state", "alert_event",
        "alert_delivery", "activity_source", "advisory", "weekly_outlook", "weekly_outlook_day", "weekly_outlook_grade", "heart_rate",
        "resting_heart_rate", "sleep_interval", "track_position", "slot_place", "place_generation",
        "data_generation", "indoor_hour", "indoor_sensor", "session_revocation",
    ]

    /// Applies the migrations the database lacks, in one transaction under the advisory lock;
    /// refuses a database holding a migration this version does not know; and checks that the role
    /// may write.
    static func migrate(_ connection: PostgresConnection, location: PostgresLocation, at now: Date, logger: Logger) async throws {
        // Nothing to do for an up-to-date database: no lock, no DDL (a role that may not create
        // tables still opens it, and the privilege check below says what it lacks).
        if let applied = try await appliedMigrations(connection, logger: logger) {
            try refuseUnknown(applied)
            if migrations.allSatisfy({ applied.contains($0.name) }) {
                try await checkWritable(connection, logger: logger)
                return
            }
        }
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "CREATE TABLE IF NOT EXISTS \(migrationTable) (name text COLLATE \"C\" PRIMARY KEY, applied_at bigint NOT NULL)"),
                logger: logger)
            let applied = try await appliedMigrations(connection, logger: logger) ?? []
            try refuseUnknown(applied)
            for migration in migrations where !applied.contains(migration.name) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                for rewrite in migration.rewrites {
                    var texts: [String] = []
                    for try await row in try await connection.query(PostgresQuery(unsafeSQL: rewrite.select), logger: logger) {
                        texts.append(try row.makeRandomAccess()["old"].decode(String.self))
                    }
                    for old in texts {
                        var binds = PostgresBindings(capacity: 2)
                        binds.append(rewrite.transform(old))
                        binds.append(old)
                        try await connection.query(
                            PostgresQuery(unsafeSQL: SQLDialect.postgres.render(rewrite.update), binds: binds), logger: logger)
                    }
                }
                try await connection.query(
                    "INSERT INTO finedust_migration (name, applied_at) VALUES (\(migration.name), \(Int64(now.timeIntervalSince1970)))",
                    logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        try await checkWritable(connection, logger: logger)
    }

    /// What a read-only open checks: FineDust's tables, of this version, none newer.
    static func check(_ connection: PostgresConnection, location: PostgresLocation, logger: Logger) async throws {
        guard let applied = try await appliedMigrations(connection, logger: logger), !applied.isEmpty else {
            throw PostgresFailure.notFineDust
        }
        try refuseUnknown(applied)
        guard migrations.allSatisfy({ applied.contains($0.name) }) else { throw PostgresFailure.olderSchema }
    }

    /// The names recorded as applied; nil when there is no migrations table at all.
    private static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String>? {
        let exists = try await connection.query("SELECT to_regclass(\(migrationTable))::text AS name", logger: logger)
        var found = false
        for try await row in exists {
            found = try row.makeRandomAccess()["name"].decode(String?.self) != nil
        }
        guard found else { return nil }
        var names = Set<String>()
        for try await row in try await connection.query("SELECT name FROM finedust_migration", logger: logger) {
            names.insert(try row.makeRandomAccess()["name"].decode(String.self))
        }
        return names
    }

    private static func refuseUnknown(_ applied: Set<String>) throws {
        let known = Set(migrations.map(\.name))
        let unknown = applied.subtracting(known).sorted()
        if !unknown.isEmpty { throw PostgresFailure.schemaTooNew(unknown) }
    }

    /// A read-write open by a role that may only read fails now, with the grant it needs, rather
    /// than at the first poll's write.
    private static func checkWritable(_ connection: PostgresConnection, logger: Logger) async throws {
        var lacking: [String] = []
        let rows = try await connection.query(
            """
            SELECT t AS name FROM unnest(\(writtenTables)::text[]) AS t
            WHERE NOT (has_table_privilege(t, 'INSERT') AND has_table_privilege(t, 'UPDATE') AND has_table_privilege(t, 'DELETE'))
            ORDER BY t COLLATE "C"
            """, logger: logger)
        for try await row in rows { lacking.append(try row.makeRandomAccess()["name"].decode(String.self)) }
        if !lacking.isEmpty { throw PostgresFailure.readOnlyRole(lacking) }
    }
}
