import DustKit
import DustSQL
import Foundation
import GRDB

/// SQLite's side of the schema: the migrations run through GRDB, and the rewrites of stored text
/// that only a SQLite database ever needed.
enum Schema {
    /// The shared migrations (DustSQL's `Migration.all`) in SQLite's words, under GRDB's migrator,
    /// which records them in `grdb_migrations`; v3 also rewrites what an older FineDust stored.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in Migration.all {
            migrator.registerMigration(migration.name) { db in
                for statement in migration.statements(.sqlite) { try db.execute(sql: statement) }
                for rewrite in migration.rewrites {
                    for old in try String.fetchAll(db, sql: rewrite.select) {
                        try db.execute(sql: rewrite.update, arguments: [rewrite.transform(old), old])
                    }
                }
                if migration.name == Migration.scrubEchoedKeys {
                    // The key itself is not known here; every serviceKey= value is.
                    try scrubText(in: db) { SecretScrubber.redactingKeyParameters($0) }
                }
            }
        }
        return migrator
    }

    /// The identifiers `grdb_migrations` records, any program's; none when it has no such table. Whether
    /// the table exists is asked of sqlite_master directly (GRDB's `tableExists` loads the whole schema,
    /// on every `dustctl` report's open), and before the read, not after it fails, as GRDB's
    /// `appliedIdentifiers` does: another process may create the table in between (two openers at once).
    static func appliedMigrations(_ db: Database) throws -> Set<String> {
        let hasTable = try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") ?? false
        return hasTable ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
    }

    /// What a database file is to FineDust: the one question both ways of opening it ask
    /// (`SQLiteStore.init`), so a reader and a writer never disagree about whose file it is.
    enum Standing: Sendable, Hashable {
        /// No schema object at all (a new, zero-page file, or one whose first migration never
        /// committed): the one kind of file a writer may make a FineDust database.
        case empty
        /// FineDust's, every migration of this version applied.
        case current
        /// FineDust's, written by an older version: a writer migrates it, a reader cannot.
        case older
    }

    /// The standing of the database `db` has open, read without writing. Throws
    /// `SQLiteFailure.corrupt(.noFineDustTables)` for a file with schema objects but no FineDust
    /// migration record (another program's database: a `grdb_migrations` of another program's
    /// identifiers counts as none), and `.schemaTooNew` when a newer FineDust's migrations are recorded.
    static func standing(of db: Database, path: String) throws -> Standing {
        let known = Set(Migration.all.map(\.name))
        let applied = try appliedMigrations(db)
        guard !applied.isDisjoint(with: known) else {
            // GRDB creates an empty grdb_migrations before the first migration's transaction: a
            // writer killed in between left a file still empty.
            let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE tbl_name <> 'grdb_migrations'") ?? 0
            guard objects == 0, applied.isEmpty else { throw SQLiteFailure.corrupt(path: path, reason: .noFineDustTables) }
            return .empty
        }
        guard applied.isSubset(of: known) else { throw SQLiteFailure.schemaTooNew(path: path) }
        return applied == known ? .current : .older
    }

    /// Text columns that hold JSON documents: each string in them is checked on its own, decoded
    /// (`\/`, `\u002B`), and the document stays valid.
    static let jsonColumns: Set<String> = ["daemon_state.value"]

    /// `withholdKeyEchoes`, unless the last whole look was for this key: nil then, nothing read but
    /// one row. So the look costs its years of rows once per key (the first start of this version,
    /// or with another key), not at every start, where dustd's time to READY grew with the history
    /// (a restart loop once it passed the unit's TimeoutStartSec).
    ///
    /// Why once is enough: the look is for texts an older FineDust stored (before issue 19 nothing
    /// checked what a server sent) or a server echoed before the key was this one. Every FineDust
    /// that can open this file has v21 (an older one refuses a newer schema, `Standing`), so every
    /// text written after the look passed this version's doors: the vocabularies where server text
    /// enters (closed lists, Korean words and numbers) and the client's `KeyEchoGuard` with the key
    /// in use; and every text leaving dustd or dustctl is checked whole again. A new key is looked
    /// for everywhere, once. What is kept is a random salt and the key's HMAC of it: it confirms a
    /// guessed key as any check would, but is not the key, is not shared by two files with the same
    /// key, and no table of precomputed hashes finds it; a key has 32 letters and digits at least.
    static func withholdKeyEchoes(
        in db: Database, _ echoGuard: KeyEchoGuard, unlessLookedFor mark: SQLiteStore.KeyMark, beforeWholeLook: (_ rows: Int) -> Void
    ) throws -> Int? {
        if let last = try Row.fetchOne(db, sql: "SELECT salt, mark FROM key_echo_check"),
            mark(Array(last["salt"] as Data)) == Array(last["mark"] as Data)
        {
            return nil
        }
        beforeWholeLook(try Int.fetchOne(db, sql: "SELECT measurement_rows FROM data_generation") ?? 0)
        let changed = try withholdKeyEchoes(in: db, echoGuard)
        let salt = (0..<32).map { _ in UInt8.random(in: .min ... .max) }
        try db.execute(
            sql: "INSERT OR REPLACE INTO key_echo_check (id, salt, mark) VALUES (1, ?, ?)", arguments: [Data(salt), Data(mark(salt))])
        return changed
    }

    /// Withholds every stored text that echoes the key, in every text column of every table (not a
    /// list of the columns known today to hold network text: a column added later is covered too).
    /// A text is withheld in place: replaced by `KeyEchoGuard.withheldText`, its row kept; a JSON
    /// column keeps its document, only the echoing strings in it replaced. A column that identifies
    /// its row (in the primary key or a unique index) is never rewritten, which could merge two rows
    /// into one: a row identified by an echo is deleted, as nothing it holds can be shown. Returns
    /// the texts withheld plus the rows deleted.
    static func withholdKeyEchoes(in db: Database, _ echoGuard: KeyEchoGuard) throws -> Int {
        try db.execute(sql: "PRAGMA secure_delete = ON")
        defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            .filter { !$0.hasPrefix("sqlite_") && !$0.hasPrefix("grdb_") }
        var changed = 0
        for table in tables {
            let columns = try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_info(?)", arguments: [table])
            let keys = try identifyingColumns(of: table, columns, db)
            let textColumns = columns.filter { ($0["type"] as String? ?? "").uppercased().contains("TEXT") }.map { $0["name"] as String }
            guard !textColumns.isEmpty else { continue }
            let quotedTable = "\"\(table)\""
            // One pass over the table for all its text columns (measurement's nine were nine scans).
            var distinct = Array(repeating: Set<String>(), count: textColumns.count)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT DISTINCT \(textColumns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \(quotedTable)")
            while let row = try rows.next() {
                for index in textColumns.indices {
                    if case .string(let text) = (row[index] as DatabaseValue).storage { distinct[index].insert(text) }
                }
            }
            for (column, texts) in zip(textColumns, distinct) {
                let quotedColumn = "\"\(column)\""
                let json = jsonColumns.contains("\(table).\(column)")
                for text in texts {
                    if keys.contains(column) {
                        guard echoGuard.echoes(text) else { continue }
                        try db.execute(sql: "DELETE FROM \(quotedTable) WHERE \(quotedColumn) = ?", arguments: [text])
                    } else {
                        let replacement = json ? withholdingEchoes(inJSON: text, echoGuard) : echoGuard.checked(text)
                        guard replacement != text else { continue }
                        try db.execute(
                            sql: "UPDATE \(quotedTable) SET \(quotedColumn) = ? WHERE \(quotedColumn) = ?", arguments: [replacement, text])
                    }
                    changed += db.changesCount
                }
            }
        }
        // A measurement row deleted here is not `saveReadings`'s: the kept count (v20) is taken again.
        if changed > 0 { try db.execute(sql: "UPDATE data_generation SET measurement_rows = (SELECT count(*) FROM measurement)") }
        return changed
    }

    /// The columns of `table` in its primary key or in a unique index.
    private static func identifyingColumns(of table: String, _ columns: [Row], _ db: Database) throws -> Set<String> {
        var keys = Set(columns.filter { ($0["pk"] as Int? ?? 0) > 0 }.map { $0["name"] as String })
        for index in try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1", arguments: [table]) {
            keys.formUnion(try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?)", arguments: [index]).compactMap { $0 })
        }
        return keys
    }

    /// `document` with each JSON string that echoes the key replaced by `KeyEchoGuard.withheldText`,
    /// every other byte kept; a text that is not JSON is checked whole.
    static func withholdingEchoes(inJSON document: String, _ echoGuard: KeyEchoGuard) -> String {
        let bytes = Array(document.utf8)
        guard (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil else {
            return echoGuard.checked(document)
        }
        let quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == quote else {
                result.append(bytes[index])
                index += 1
                continue
            }
            // Valid JSON (checked above): the literal ends at the next quote no backslash escapes.
            var end = index + 1
            while end < bytes.count, bytes[end] != quote { end += bytes[end] == backslash ? 2 : 1 }
            let literal = bytes[index...min(end, bytes.count - 1)]
            let decoded = (try? JSONSerialization.jsonObject(with: Data(literal), options: .fragmentsAllowed)) as? String
            if let decoded, echoGuard.echoes(decoded) {
                result.append(contentsOf: "\"\(KeyEchoGuard.withheldText)\"".utf8)
            } else {
                result.append(contentsOf: literal)
            }
            index = end + 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The columns that hold text a server sent back or FineDust built from one.
    static let scrubbedColumns: [(table: String, key: String, column: String)] = [
        ("poll_attempt", "id", "message"),
        ("daemon_state", "key", "value"),
    ]

    /// Rewrites every stored text in `scrubbedColumns` with `transform`; returns the rows changed.
    /// Deleted bytes are zeroed (`secure_delete`), so the old text does not linger in free pages.
    @discardableResult
    static func scrubText(in db: Database, _ transform: (String) -> String) throws -> Int {
        try db.execute(sql: "PRAGMA secure_delete = ON")
        defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
        var changed = 0
        for (table, key, column) in scrubbedColumns {
            let rows = try Row.fetchAll(db, sql: "SELECT \(key), \(column) FROM \(table) WHERE \(column) IS NOT NULL")
            for row in rows {
                let text: String = row[column]
                let scrubbed = transform(text)
                guard scrubbed != text else { continue }
                try db.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE \(key) = ?", arguments: [scrubbed, row[key]])
                changed += 1
            }
        }
        return changed
    }
}
