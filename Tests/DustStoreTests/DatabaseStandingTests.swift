import DustSQL
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

/// An SQLite file of another program's at `path`, in its own (rollback) journal mode, as the
/// `sqlite3` shell leaves one: a table of notes, one row. Returns its bytes.
private func otherProgramsDatabase(_ path: String, migrations: [String] = []) throws -> Data {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('x')")
        if !migrations.isEmpty {
            // Another program that migrates with GRDB keeps its own identifiers in the same table.
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in migrations { try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [migration]) }
        }
    }
    try queue.close()
    return try Data(contentsOf: URL(fileURLWithPath: path))
}

@Suite("Whose database: a writer and a reader ask the same question", .timeLimit(.minutes(10)))
struct DatabaseStandingTests {
    @Test(
        "Four writers opening one new database at the same moment all open it, each migration applied once (dustd and dustctl import started together)"
    )
    func openedTogether() async throws {
        for _ in 0..<10 {
            let directory = try TemporaryDirectory("finedust-together")
            defer { directory.remove() }
            let path = directory.path("together.sqlite")
            let failures = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<4 {
                    // Each on a thread of its own, as four processes would be: the open waits on SQLite.
                    group.addTask {
                        try await aside {
                            do {
                                _ = try SQLiteStore(path: path)
                                return nil
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(failures.isEmpty, "\(failures)")
            let store = try SQLiteStore(path: path, mode: .readOnly)
            let applied = try await store.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
            #expect(applied.count == Migration.all.count && Set(applied).count == applied.count)
        }
    }

    @Test(
        "Another program's SQLite database is refused by a writer as by a reader (65, no FineDust tables), and left byte for byte as it was",
        arguments: [[], ["createUsers", "addEmail"]])
    func otherProgramsDatabaseRefused(migrations: [String]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("otherapp.sqlite")
        let before = try otherProgramsDatabase(path, migrations: migrations)
        for mode in [SQLiteStore.Mode.readWrite, .readOnly] {
            #expect {
                _ = try SQLiteStore(path: path, mode: mode)
            } throws: { error in
                guard let failure = error as? SQLiteFailure, failure == .corrupt(path: path, reason: .noFineDustTables) else {
                    return false
                }
                return ExitStatus(failure) == .dataError && "\(failure)".contains("it has no FineDust tables")
            }
        }
        // Not switched to WAL (bytes 18 and 19 stay 1), no table added: not a byte written.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables == (migrations.isEmpty ? ["notes"] : ["grdb_migrations", "notes"]))
    }

    @Test("An empty file (zero pages), or one whose first migration never committed, is made a FineDust database")
    func emptyFileInitialised() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let zeroPages = directory.path("zero.sqlite")
        #expect(FileManager.default.createFile(atPath: zeroPages, contents: nil))
        // GRDB creates grdb_migrations outside the first migration's transaction: a writer killed
        // in between leaves this.
        let interrupted = directory.path("interrupted.sqlite")
        try await DatabaseQueue(path: interrupted).write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        for path in [zeroPages, interrupted] {
            try await SQLiteStore(path: path).saveReadings([reading("종로구", hour: 0, pm10: 30, pm25: 12)])
            #expect(try await SQLiteStore(path: path, mode: .readOnly).readingCount() == 1)
        }
    }

    @Test("A newer FineDust's database, and one of FineDust's with another program's migrations recorded beside, are refused as newer")
    func newerRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        _ = try SQLiteStore(path: path)
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-future')") }
        for mode in [SQLiteStore.Mode.readWrite, .readOnly] {
            #expect(throws: SQLiteFailure.schemaTooNew(path: path)) { try SQLiteStore(path: path, mode: mode) }
        }
    }

    @Test("A database another process holds locked fails the opener as locked: exit 75 (try again later), a sentence that claims no wait")
    func lockedIsTemporary() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        // Another connection's exclusive lock (rollback journal: no reader gets in).
        var held = Configuration()
        held.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: path, configuration: held)
        try holder.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        defer { try? holder.inDatabase { db in try db.execute(sql: "ROLLBACK") } }
        for mode in [SQLiteStore.Mode.readWrite, .readOnly] {
            #expect {
                _ = try SQLiteStore(path: path, mode: mode, busyTimeout: 0.05)
            } throws: { error in
                guard let failure = error as? SQLiteFailure, failure == .busy(path: path) else { return false }
                return ExitStatus(failure) == .temporaryFailure
                    && failure.description == "The database \(path) is locked by another process (SQLite says it is busy); try again."
            }
        }
        #expect(ExitStatus(StorageFailure(kind: .locked, description: "PostgreSQL's lock timeout")) == .temporaryFailure)
    }
}
