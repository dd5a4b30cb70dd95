import GRDB
import GRDBSQLite

extension SQLiteStore {
    /// Steps `statement` (its arguments already set) with SQLite's C API and calls `row` with the
    /// raw statement at each row; columns are read with `sqlite3_column_*` at the indices
    /// `column(_:of:)` looked up once. For the long reads only — a year of one person's positions
    /// or of a few dozen stations' dust, half a million rows each — where decoding every value
    /// through GRDB's `Row` cost more than SQLite's own stepping (docs/PERFORMANCE.md, issue 23).
    /// What GRDB's own stepping adds is skipped: the read's region is not recorded (no
    /// `ValueObservation` watches these reads), and an interrupted statement is a `DatabaseError`,
    /// not a `CancellationError`.
    static func eachRow(of statement: Statement, in db: Database, _ row: (SQLiteStatement) throws -> Void) throws {
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                    sql: statement.sql, arguments: statement.arguments)
            }
            try row(raw)
        }
    }

    /// The REAL at `index`, nil for NULL.
    static func optionalDouble(_ raw: SQLiteStatement, _ index: Int) -> Double? {
        sqlite3_column_type(raw, Int32(index)) == SQLITE_NULL ? nil : sqlite3_column_double(raw, Int32(index))
    }
}
