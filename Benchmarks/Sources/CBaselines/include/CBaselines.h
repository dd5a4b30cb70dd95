#ifndef FINEDUST_CBASELINES_H
#define FINEDUST_CBASELINES_H

#include <stddef.h>
#include <stdint.h>

/// One extracted item: the four fields the floor reads, as copies of their text.
typedef struct {
    char dataTime[20];
    char stationName[64];
    double pm10;
    double pm25;
} fd_item;

/// The parse floor: a minimal xmlTextReader loop over an in-memory response that extracts only
/// dataTime, stationName, pm10Value and pm25Value of every item into `items` (at most `capacity`).
/// Returns the number of items, or -1 on a parse error.
long fd_xml_floor(const char *buffer, int size, fd_item *items, long capacity);

/// The ingest floor: inserts `count` rows with one prepared
/// INSERT … ON CONFLICT DO UPDATE statement in one transaction into the FineDust schema at `path`.
/// `slots` are epoch seconds. Returns 0 on success.
int fd_sqlite_floor(const char *path, const fd_item *items, const int64_t *slots, long count);

/// What the Health export floor counted.
typedef struct {
    long distance_records;
    long other_records;
    double metres;
} fd_health_totals;

/// The Health export floor: xmlTextReader over export.xml at `path`, reading every top-level
/// Record's type, unit and value and summing the walking distance. Returns 0 on success.
int fd_health_floor(const char *path, fd_health_totals *totals);

#endif
