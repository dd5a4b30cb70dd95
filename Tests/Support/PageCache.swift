import GRDB
import GRDBSQLite

/// Bytes of page cache one SQLite connection holds (`SQLITE_DBSTATUS_CACHE_USED`): that connection's
/// own, so tests running beside the one that asks do not count (`sqlite3_memory_used()` is the
/// process's). What the store's release of memory is measured by.
public func pageCacheBytes(_ db: Database) -> Int32 {
    var current: Int32 = 0
    var highest: Int32 = 0
    _ = sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
    return current
}
