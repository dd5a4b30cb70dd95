import DustKit
import Foundation
import GRDB

/// Versioned migrations. Each migration runs once, in order, inside a transaction; never edit a
/// shipped migration, add a new one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // One row per station and hour. Unknown concentrations are NULL, never 0.
            // `revision` counts how often AirKorea revised the row after it was first stored.
            try db.execute(
                sql: """
                    CREATE TABLE measurement (
                        station TEXT NOT NULL,
                        slot_start INTEGER NOT NULL,
                        pm10 REAL,
                        pm25 REAL,
                        pm10_flag TEXT,
                        pm25_flag TEXT,
                        pm10_24h REAL,
                        pm25_24h REAL,
                        pm10_grade INTEGER,
                        pm25_grade INTEGER,
                        pm10_grade_1h INTEGER,
                        pm25_grade_1h INTEGER,
                        fetched_at INTEGER NOT NULL,
                        revision INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (station, slot_start)
                    ) WITHOUT ROWID;

                    CREATE TABLE station (
                        name TEXT PRIMARY KEY NOT NULL,
                        code TEXT,
                        sido TEXT,
                        network TEXT,
                        address TEXT,
                        latitude REAL,
                        longitude REAL,
                        updated_at INTEGER NOT NULL
                    );

                    CREATE TABLE activity (
                        slot_start INTEGER PRIMARY KEY NOT NULL,
                        distance_m REAL NOT NULL CHECK (distance_m >= 0),
                        imported_at INTEGER NOT NULL
                    );

                    CREATE TABLE poll_attempt (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        started_at INTEGER NOT NULL,
                        station TEXT,
                        operation TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        http_status INTEGER,
                        result_code TEXT,
                        rows_new INTEGER NOT NULL DEFAULT 0,
                        rows_updated INTEGER NOT NULL DEFAULT 0,
                        duration_ms INTEGER NOT NULL DEFAULT 0,
                        message TEXT
                    );
                    CREATE INDEX poll_attempt_by_time ON poll_attempt(started_at);
                    """)
        }
        migrator.registerMigration("v2-daemon-state") { db in
            // What dustd is doing, for `dustctl status`: next poll, state, last status line.
            try db.execute(
                sql: """
                    CREATE TABLE daemon_state (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL,
                        updated_at INTEGER NOT NULL
                    )
                    """)
        }
        migrator.registerMigration("v3-scrub-echoed-keys") { db in
            // FineDust before 0.3 stored a server's echo of the request URL as it came, service key
            // included. The key itself is not known here; every serviceKey= value is.
            try scrubText(in: db) { SecretScrubber.redactingKeyParameters($0) }
        }
        migrator.registerMigration("v4-forecast") { db in
            // Every forecast issue (docs/REFERENCE.md §14): one row per pollutant, issue and forecast date with
            // its text, and one per region with its grade. `grade` is NULL when the published word
            // is not one of the four; `grade_word` keeps the word as published.
            try db.execute(
                sql: """
                    CREATE TABLE forecast_issue (
                        pollutant TEXT NOT NULL,
                        issued_at INTEGER NOT NULL,
                        forecast_date TEXT NOT NULL,
                        overall TEXT,
                        cause TEXT,
                        fetched_at INTEGER NOT NULL,
                        PRIMARY KEY (pollutant, issued_at, forecast_date)
                    ) WITHOUT ROWID;

                    CREATE TABLE forecast_grade (
                        pollutant TEXT NOT NULL,
                        issued_at INTEGER NOT NULL,
                        forecast_date TEXT NOT NULL,
                        region TEXT NOT NULL,
                        grade INTEGER CHECK (grade BETWEEN 1 AND 4),
                        grade_word TEXT NOT NULL,
                        PRIMARY KEY (pollutant, forecast_date, region, issued_at)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v5-alerts") { db in
            // Alert rules' states (so a restart neither repeats nor forgets an alert), every event
            // announced, and every delivery attempt with its result (docs/REFERENCE.md §14).
            try db.execute(
                sql: """
                    CREATE TABLE alert_state (
                        rule TEXT PRIMARY KEY NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('idle', 'held', 'active')),
                        changed_at INTEGER NOT NULL
                    );
                    CREATE TABLE alert_event (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        rule TEXT NOT NULL,
                        metric TEXT,
                        value REAL,
                        station TEXT NOT NULL
                    );
                    CREATE TABLE alert_delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        event_id INTEGER NOT NULL REFERENCES alert_event(id) ON DELETE CASCADE,
                        sink TEXT NOT NULL,
                        attempt INTEGER NOT NULL,
                        at INTEGER NOT NULL,
                        outcome TEXT NOT NULL,
                        detail TEXT
                    );
                    CREATE INDEX alert_delivery_by_event ON alert_delivery(event_id);
                    """)
        }
        migrator.registerMigration("v6-activity-sources") { db in
            // Walking distance per source and slot (docs/REFERENCE.md §12): `health:<sourceName>`,
            // `gpx:<file name>` or `csv`. A slot's distance is the largest of its sources, so an
            // iPhone and a Watch recording the same walk are not added up, and a re-import of one
            // file replaces only its own rows. The CSV distances stored so far become source `csv`.
            try db.execute(
                sql: """
                    CREATE TABLE activity_source (
                        source TEXT NOT NULL,
                        slot_start INTEGER NOT NULL,
                        distance_m REAL NOT NULL CHECK (distance_m >= 0),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (source, slot_start)
                    ) WITHOUT ROWID;
                    CREATE INDEX activity_source_by_slot ON activity_source(slot_start);
                    INSERT INTO activity_source (source, slot_start, distance_m, imported_at)
                        SELECT 'csv', slot_start, distance_m, imported_at FROM activity;
                    DROP TABLE activity;
                    """)
        }
        migrator.registerMigration("v7-attempt-kind-seconds") { db in
            // What each request was for, so the forecast quota (docs/REFERENCE.md §14) is counted from a
            // kind and never from the operation text a log line shows; the kind of the rows so far is
            // read from that text once, here. `started_at` was in milliseconds, every other time in
            // seconds: it is in seconds too from now on.
            try db.execute(
                sql: """
                    ALTER TABLE poll_attempt ADD COLUMN kind TEXT NOT NULL DEFAULT 'measurement'
                        CHECK (kind IN ('measurement', 'forecast', 'stationList'));
                    UPDATE poll_attempt SET kind = 'forecast' WHERE substr(operation, 1, 9) = 'forecast ';
                    UPDATE poll_attempt SET kind = 'stationList' WHERE substr(operation, 1, 13) = 'station list ';
                    UPDATE poll_attempt SET started_at = started_at / 1000;
                    CREATE INDEX poll_attempt_by_kind ON poll_attempt(kind, started_at);
                    """)
        }
        migrator.registerMigration("v8-gases") { db in
            // The gases and the integrated index of each slot (docs/REFERENCE.md §17), on the slot's
            // `measurement` row rather than a table of their own: they arrive in the same item as PM,
            // are revised with it under one `revision` count, and are read with it, so one upsert and
            // one query keep serving both. Rows stored before have NULL: unknown, as the answers
            // that brought them said nothing of gases.
            try db.execute(
                sql: """
                    ALTER TABLE measurement ADD COLUMN o3 REAL;
                    ALTER TABLE measurement ADD COLUMN no2 REAL;
                    ALTER TABLE measurement ADD COLUMN co REAL;
                    ALTER TABLE measurement ADD COLUMN so2 REAL;
                    ALTER TABLE measurement ADD COLUMN o3_flag TEXT;
                    ALTER TABLE measurement ADD COLUMN no2_flag TEXT;
                    ALTER TABLE measurement ADD COLUMN co_flag TEXT;
                    ALTER TABLE measurement ADD COLUMN so2_flag TEXT;
                    ALTER TABLE measurement ADD COLUMN cai INTEGER;
                    ALTER TABLE measurement ADD COLUMN cai_grade INTEGER;
                    """)
        }
        migrator.registerMigration("v9-advisories") { db in
            // Official advisories (docs/REFERENCE.md §17), one row per pollutant and key (`sn`, or the
            // key built for items without one); a revision replaces the row. poll_attempt is rebuilt
            // because SQLite cannot widen a CHECK in place: its kinds gain `advisory` and the weekly
            // outlook's `weeklyOutlook` (whose calls the forecast cap counts with `forecast`'s).
            try db.execute(
                sql: """
                    CREATE TABLE advisory (
                        pollutant TEXT NOT NULL,
                        advisory_key TEXT NOT NULL,
                        district TEXT NOT NULL,
                        area TEXT,
                        level_word TEXT NOT NULL,
                        issued_at INTEGER NOT NULL,
                        cleared_at INTEGER,
                        issue_value REAL,
                        clear_value REAL,
                        max_value REAL,
                        fetched_at INTEGER NOT NULL,
                        PRIMARY KEY (pollutant, advisory_key)
                    ) WITHOUT ROWID;
                    CREATE INDEX advisory_by_issue ON advisory(issued_at);

                    CREATE TABLE poll_attempt_v9 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        started_at INTEGER NOT NULL,
                        station TEXT,
                        operation TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        http_status INTEGER,
                        result_code TEXT,
                        rows_new INTEGER NOT NULL DEFAULT 0,
                        rows_updated INTEGER NOT NULL DEFAULT 0,
                        duration_ms INTEGER NOT NULL DEFAULT 0,
                        message TEXT,
                        kind TEXT NOT NULL DEFAULT 'measurement'
                            CHECK (kind IN ('measurement', 'forecast', 'stationList', 'advisory', 'weeklyOutlook'))
                    );
                    INSERT INTO poll_attempt_v9 (id, started_at, station, operation, outcome, http_status, result_code,
                                                 rows_new, rows_updated, duration_ms, message, kind)
                        SELECT id, started_at, station, operation, outcome, http_status, result_code,
                               rows_new, rows_updated, duration_ms, message, kind FROM poll_attempt;
                    DROP TABLE poll_attempt;
                    ALTER TABLE poll_attempt_v9 RENAME TO poll_attempt;
                    CREATE INDEX poll_attempt_by_time ON poll_attempt(started_at);
                    CREATE INDEX poll_attempt_by_kind ON poll_attempt(kind, started_at);
                    """)
        }
        migrator.registerMigration("v10-weekly-outlook") { db in
            // The weekly PM2.5 outlook (docs/REFERENCE.md §17), one row per publication day, one per
            // of its days with the confidence (신뢰도), one per region named that day with the word as
            // published (낮음/높음, or an unknown word kept). A region name FineDust does not know is
            // kept too, as published; it never matches a user's region. Every publication is kept.
            try db.execute(
                sql: """
                    CREATE TABLE weekly_outlook (
                        published_on TEXT PRIMARY KEY NOT NULL,
                        conditions TEXT,
                        fetched_at INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE weekly_outlook_day (
                        published_on TEXT NOT NULL,
                        position INTEGER NOT NULL CHECK (position BETWEEN 1 AND 4),
                        forecast_date TEXT NOT NULL,
                        confidence_word TEXT,
                        PRIMARY KEY (published_on, position)
                    ) WITHOUT ROWID;

                    CREATE TABLE weekly_outlook_grade (
                        published_on TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        region TEXT NOT NULL,
                        word TEXT NOT NULL,
                        PRIMARY KEY (published_on, position, region)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v11-people") { db in
            // Everyone in the home (docs/REFERENCE.md §18): walking gains the person it belongs to,
            // and heart rate, resting rates and sleep are kept per person and source. The walking
            // stored so far belonged to the one person of that time, `me`; when the first configured
            // person has another name, `movePerson` hands those rows over at the next start.
            // Instants are epoch seconds; the primary keys lead with (person, time), which is the
            // index a slot-range read uses.
            try db.execute(
                sql: """
                    CREATE TABLE activity_source_v11 (
                        person TEXT NOT NULL,
                        source TEXT NOT NULL,
                        slot_start INTEGER NOT NULL,
                        distance_m REAL NOT NULL CHECK (distance_m >= 0),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (person, source, slot_start)
                    ) WITHOUT ROWID;
                    INSERT INTO activity_source_v11 (person, source, slot_start, distance_m, imported_at)
                        SELECT 'me', source, slot_start, distance_m, imported_at FROM activity_source;
                    DROP TABLE activity_source;
                    ALTER TABLE activity_source_v11 RENAME TO activity_source;
                    CREATE INDEX activity_source_by_slot ON activity_source(person, slot_start);

                    CREATE TABLE heart_rate (
                        person TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        source TEXT NOT NULL,
                        beats_per_minute REAL NOT NULL CHECK (beats_per_minute BETWEEN 25 AND 250),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (person, at, source)
                    ) WITHOUT ROWID;

                    CREATE TABLE resting_heart_rate (
                        person TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        source TEXT NOT NULL,
                        beats_per_minute REAL NOT NULL CHECK (beats_per_minute > 0),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (person, at, source)
                    ) WITHOUT ROWID;

                    CREATE TABLE sleep_interval (
                        person TEXT NOT NULL,
                        start_at INTEGER NOT NULL,
                        source TEXT NOT NULL,
                        end_at INTEGER NOT NULL CHECK (end_at > start_at AND end_at - start_at <= 86400),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (person, start_at, source)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v12-positions") { db in
            // Where each person was (docs/REFERENCE.md §19): per person, source and minute, the last
            // point of the minute. `minute` is the minute's start in epoch seconds; the index serves
            // the read of one person's minutes over a span, whatever the source.
            try db.execute(
                sql: """
                    CREATE TABLE track_position (
                        person TEXT NOT NULL,
                        source TEXT NOT NULL,
                        minute INTEGER NOT NULL CHECK (minute % 60 = 0),
                        latitude REAL NOT NULL CHECK (latitude BETWEEN -90 AND 90),
                        longitude REAL NOT NULL CHECK (longitude BETWEEN -180 AND 180),
                        imported_at INTEGER NOT NULL,
                        PRIMARY KEY (person, source, minute)
                    ) WITHOUT ROWID;
                    CREATE INDEX track_position_by_minute ON track_position(person, minute);
                    """)
        }
        migrator.registerMigration("v13-slot-places") { db in
            // What §19's weighting found per person and slot (docs/REFERENCE.md §19): `inputs` names
            // the weighting's version, radius and home, `place` its bytes (SlotPlace). The index
            // serves forgetting a slot's places when its readings change; the generation rises at
            // every such write, so a weighing that raced one keeps nothing.
            try db.execute(
                sql: """
                    CREATE TABLE slot_place (
                        person TEXT NOT NULL,
                        slot_start INTEGER NOT NULL CHECK (slot_start % 3600 = 0),
                        inputs TEXT NOT NULL,
                        place BLOB NOT NULL,
                        PRIMARY KEY (person, slot_start)
                    );
                    CREATE INDEX slot_place_by_slot ON slot_place(slot_start);
                    CREATE TABLE place_generation (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        generation INTEGER NOT NULL
                    );
                    INSERT INTO place_generation (id, generation) VALUES (1, 0);
                    """)
        }
        return migrator
    }

    /// Text columns that hold JSON documents: each string in them is checked on its own, decoded
    /// (`\/`, `\u002B`), and the document stays valid.
    static let jsonColumns: Set<String> = ["daemon_state.value"]

    /// Replaces every stored text that echoes the key by `KeyEchoGuard.withheldText`, in every text
    /// column of every table (not a list of the columns known today to hold network text: a column
    /// added later is covered too). A JSON column keeps its document; only the echoing strings in
    /// it are replaced. Returns the rows changed.
    static func withholdKeyEchoes(in db: Database, _ echoGuard: KeyEchoGuard) throws -> Int {
        try db.execute(sql: "PRAGMA secure_delete = ON")
        defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            .filter { !$0.hasPrefix("sqlite_") && !$0.hasPrefix("grdb_") }
        var changed = 0
        for table in tables {
            let columns = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [table])
                .filter { ($0["type"] as String? ?? "").uppercased().contains("TEXT") }
                .map { $0["name"] as String }
            for column in columns {
                let quotedTable = "\"\(table)\""
                let quotedColumn = "\"\(column)\""
                let json = jsonColumns.contains("\(table).\(column)")
                let texts = try String.fetchAll(
                    db, sql: "SELECT DISTINCT \(quotedColumn) FROM \(quotedTable) WHERE typeof(\(quotedColumn)) = 'text'")
                for text in texts {
                    let replacement = json ? withholdingEchoes(inJSON: text, echoGuard) : echoGuard.checked(text)
                    guard replacement != text else { continue }
                    // OR REPLACE: a key column (a station's name) may now equal a row withheld before.
                    try db.execute(
                        sql: "UPDATE OR REPLACE \(quotedTable) SET \(quotedColumn) = ? WHERE \(quotedColumn) = ?",
                        arguments: [replacement, text])
                    changed += db.changesCount
                }
            }
        }
        return changed
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
