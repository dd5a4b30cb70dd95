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

/// Pages one SQLite connection has fetched (`SQLITE_DBSTATUS_CACHE_HIT` plus `_MISS`) since the last
/// reset: what a statement read, whatever was cached. `reset` starts the count again from 0.
public func pagesFetched(_ db: Database, reset: Bool = false) -> Int32 {
    var total: Int32 = 0
    for counter in [SQLITE_DBSTATUS_CACHE_HIT, SQLITE_DBSTATUS_CACHE_MISS] {
        var current: Int32 = 0
        var highest: Int32 = 0
        _ = sqlite3_db_status(db.sqliteConnection, counter, &current, &highest, reset ? 1 : 0)
        total += current
    }
    return total
}
