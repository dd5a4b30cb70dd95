#include <sqlite3.h>
#include "CBaselines.h"

int fd_sqlite_floor(const char *path, const fd_item *items, const int64_t *slots, long count) {
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) return 1;
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", 0, 0, 0);
    sqlite3_stmt *insert;
    const char *sql =
        "INSERT INTO measurement (station, slot_start, pm10, pm25, fetched_at) VALUES (?, ?, ?, ?, 0) "
        "ON CONFLICT (station, slot_start) DO UPDATE SET pm10 = excluded.pm10, pm25 = excluded.pm25";
    if (sqlite3_prepare_v2(db, sql, -1, &insert, 0) != SQLITE_OK) { sqlite3_close(db); return 2; }
    sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0);
    for (long i = 0; i < count; i++) {
        sqlite3_bind_text(insert, 1, items[i].stationName, -1, SQLITE_STATIC);
        sqlite3_bind_int64(insert, 2, slots[i]);
        if (items[i].pm10 >= 0) sqlite3_bind_double(insert, 3, items[i].pm10); else sqlite3_bind_null(insert, 3);
        if (items[i].pm25 >= 0) sqlite3_bind_double(insert, 4, items[i].pm25); else sqlite3_bind_null(insert, 4);
        if (sqlite3_step(insert) != SQLITE_DONE) { sqlite3_finalize(insert); sqlite3_close(db); return 3; }
        sqlite3_reset(insert);
    }
    sqlite3_exec(db, "COMMIT", 0, 0, 0);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return 0;
}
