import DustKit

/// Every migration of the FineDust schema, in order, for both engines (docs/REFERENCE.md §8, §20):
/// written once with the engine's words for a column type (`SQLDialect.ddl`); where the engines'
/// histories differ (SQLite rebuilds a table to widen a CHECK or change a key, PostgreSQL alters it),
/// the migration says so. SQLite records them in GRDB's `grdb_migrations`, PostgreSQL in
/// `finedust_migration`, by these names. Never edit a shipped migration; add one.
public struct Migration: Sendable {
    public let name: String
    /// The statements, in order, in `dialect`'s words.
    public let statements: @Sendable (SQLDialect) -> [String]
    /// Stored texts rewritten in Swift after the statements, by each engine's runner.
    public let rewrites: [TextRewrite]

    init(_ name: String, rewrites: [TextRewrite] = [], _ statements: @escaping @Sendable (SQLDialect) -> [String]) {
        self.name = name
        self.rewrites = rewrites
        self.statements = statements
    }

    /// A rewrite SQL cannot say on both engines: `select` names the texts (one text column, `old`),
    /// and `update` (`?` for the new text, then the old) is run for each with `transform`'s result.
    public struct TextRewrite: Sendable {
        public let select: String
        public let update: String
        public let transform: @Sendable (String) -> String
    }

    /// SQLite's v3 also rewrites stored text in Swift (DustStore's `Schema.scrubText`): a FineDust
    /// before 0.3 stored a server's echo of the request URL, service key included, and only ever in SQLite.
    public static let scrubEchoedKeys = "v3-scrub-echoed-keys"

    public static let all: [Migration] = [
        Migration("v1") { dialect in
            let t = dialect.ddl
            // One row per station and hour. Unknown concentrations are NULL, never 0. `revision`
            // counts how often AirKorea revised the row after it was first stored.
            return [
                """
                CREATE TABLE measurement (
                    station \(t.text) NOT NULL,
                    slot_start \(t.integer) NOT NULL,
                    pm10 \(t.real),
                    pm25 \(t.real),
                    pm10_flag \(t.text),
                    pm25_flag \(t.text),
                    pm10_24h \(t.real),
                    pm25_24h \(t.real),
                    pm10_grade \(t.integer),
                    pm25_grade \(t.integer),
                    pm10_grade_1h \(t.integer),
                    pm25_grade_1h \(t.integer),
                    fetched_at \(t.integer) NOT NULL,
                    revision \(t.integer) NOT NULL DEFAULT 0,
                    PRIMARY KEY (station, slot_start)
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE station (
                    name \(t.text) PRIMARY KEY NOT NULL,
                    code \(t.text),
                    sido \(t.text),
                    network \(t.text),
                    address \(t.text),
                    latitude \(t.real),
                    longitude \(t.real),
                    updated_at \(t.integer) NOT NULL
                )
                """,
                """
                CREATE TABLE activity (
                    slot_start \(t.integer) PRIMARY KEY NOT NULL,
                    distance_m \(t.real) NOT NULL CHECK (distance_m >= 0),
                    imported_at \(t.integer) NOT NULL
                )
                """,
                """
                CREATE TABLE poll_attempt (
                    id \(t.identity),
                    started_at \(t.integer) NOT NULL,
                    station \(t.text),
                    operation \(t.text) NOT NULL,
                    outcome \(t.text) NOT NULL,
                    http_status \(t.integer),
                    result_code \(t.text),
                    rows_new \(t.integer) NOT NULL DEFAULT 0,
                    rows_updated \(t.integer) NOT NULL DEFAULT 0,
                    duration_ms \(t.integer) NOT NULL DEFAULT 0,
                    message \(t.text)
                )
                """,
                "CREATE INDEX poll_attempt_by_time ON poll_attempt(started_at)",
            ]
        },
        Migration("v2-daemon-state") { dialect in
            let t = dialect.ddl
            // What dustd is doing, for `dustctl status`.
            return [
                """
                CREATE TABLE daemon_state (
                    key \(t.text) PRIMARY KEY NOT NULL,
                    value \(t.text) NOT NULL,
                    updated_at \(t.integer) NOT NULL
                )
                """
            ]
        },
        Migration(scrubEchoedKeys) { _ in [] },
        Migration("v4-forecast") { dialect in
            let t = dialect.ddl
            // Every forecast issue (docs/REFERENCE.md §14): one row per pollutant, issue and forecast
            // date with its text, and one per region with its grade. `grade` is NULL when the
            // published word is not one of the four; `grade_word` keeps the word as published.
            return [
                """
                CREATE TABLE forecast_issue (
                    pollutant \(t.text) NOT NULL,
                    issued_at \(t.integer) NOT NULL,
                    forecast_date \(t.text) NOT NULL,
                    overall \(t.text),
                    cause \(t.text),
                    fetched_at \(t.integer) NOT NULL,
                    PRIMARY KEY (pollutant, issued_at, forecast_date)
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE forecast_grade (
                    pollutant \(t.text) NOT NULL,
                    issued_at \(t.integer) NOT NULL,
                    forecast_date \(t.text) NOT NULL,
                    region \(t.text) NOT NULL,
                    grade \(t.integer) CHECK (grade BETWEEN 1 AND 4),
                    grade_word \(t.text) NOT NULL,
                    PRIMARY KEY (pollutant, forecast_date, region, issued_at)
                )\(t.withoutRowID)
                """,
            ]
        },
        Migration("v5-alerts") { dialect in
            let t = dialect.ddl
            // Alert rules' states (a restart neither repeats nor forgets an alert), every event
            // announced, and every delivery attempt with its result (docs/REFERENCE.md §14).
            return [
                """
                CREATE TABLE alert_state (
                    rule \(t.text) PRIMARY KEY NOT NULL,
                    state \(t.text) NOT NULL CHECK (state IN ('idle', 'held', 'active')),
                    changed_at \(t.integer) NOT NULL
                )
                """,
                """
                CREATE TABLE alert_event (
                    id \(t.identity),
                    at \(t.integer) NOT NULL,
                    kind \(t.text) NOT NULL,
                    rule \(t.text) NOT NULL,
                    metric \(t.text),
                    value \(t.real),
                    station \(t.text) NOT NULL
                )
                """,
                """
                CREATE TABLE alert_delivery (
                    id \(t.identity),
                    event_id \(t.integer) NOT NULL REFERENCES alert_event(id) ON DELETE CASCADE,
                    sink \(t.text) NOT NULL,
                    attempt \(t.integer) NOT NULL,
                    at \(t.integer) NOT NULL,
                    outcome \(t.text) NOT NULL,
                    detail \(t.text)
                )
                """,
                "CREATE INDEX alert_delivery_by_event ON alert_delivery(event_id)",
            ]
        },
        Migration("v6-activity-sources") { dialect in
            let t = dialect.ddl
            // Walking distance per source and slot (docs/REFERENCE.md §12); a slot's distance is the
            // largest of its sources. The CSV distances stored so far become source `csv`.
            return [
                """
                CREATE TABLE activity_source (
                    source \(t.text) NOT NULL,
                    slot_start \(t.integer) NOT NULL,
                    distance_m \(t.real) NOT NULL CHECK (distance_m >= 0),
                    imported_at \(t.integer) NOT NULL,
                    PRIMARY KEY (source, slot_start)
                )\(t.withoutRowID)
                """,
                "CREATE INDEX activity_source_by_slot ON activity_source(slot_start)",
                """
                INSERT INTO activity_source (source, slot_start, distance_m, imported_at)
                    SELECT 'csv', slot_start, distance_m, imported_at FROM activity
                """,
                "DROP TABLE activity",
            ]
        },
        Migration("v7-attempt-kind-seconds") { dialect in
            // What each request was for, so the forecast quota (docs/REFERENCE.md §14) is counted from
            // a kind, never from the operation text; `started_at` from milliseconds to seconds.
            let kinds = "CHECK (kind IN ('measurement', 'forecast', 'stationList'))"
            let constraint =
                switch dialect {
                case .sqlite: kinds
                // Named, so v9 can widen it in place.
                case .postgres: "CONSTRAINT poll_attempt_kind " + kinds
                }
            return [
                "ALTER TABLE poll_attempt ADD COLUMN kind \(dialect.ddl.text) NOT NULL DEFAULT 'measurement'\n    \(constraint)",
                "UPDATE poll_attempt SET kind = 'forecast' WHERE substr(operation, 1, 9) = 'forecast '",
                "UPDATE poll_attempt SET kind = 'stationList' WHERE substr(operation, 1, 13) = 'station list '",
                "UPDATE poll_attempt SET started_at = started_at / 1000",
                "CREATE INDEX poll_attempt_by_kind ON poll_attempt(kind, started_at)",
            ]
        },
        Migration("v8-gases") { dialect in
            let t = dialect.ddl
            // The gases and the integrated index of each slot (docs/REFERENCE.md §17), on the slot's
            // `measurement` row: revised with PM under one `revision`, read with it. Rows stored
            // before have NULL: unknown.
            let columns = [
                ("o3", t.real), ("no2", t.real), ("co", t.real), ("so2", t.real), ("o3_flag", t.text), ("no2_flag", t.text),
                ("co_flag", t.text), ("so2_flag", t.text), ("cai", t.integer), ("cai_grade", t.integer),
            ]
            return columns.map { "ALTER TABLE measurement ADD COLUMN \($0.0) \($0.1)" }
        },
        Migration("v9-advisories") { dialect in
            let t = dialect.ddl
            // Official advisories (docs/REFERENCE.md §17), one row per pollutant and key; a revision
            // replaces the row. The attempt kinds gain `advisory` and `weeklyOutlook`.
            let advisory = [
                """
                CREATE TABLE advisory (
                    pollutant \(t.text) NOT NULL,
                    advisory_key \(t.text) NOT NULL,
                    district \(t.text) NOT NULL,
                    area \(t.text),
                    level_word \(t.text) NOT NULL,
                    issued_at \(t.integer) NOT NULL,
                    cleared_at \(t.integer),
                    issue_value \(t.real),
                    clear_value \(t.real),
                    max_value \(t.real),
                    fetched_at \(t.integer) NOT NULL,
                    PRIMARY KEY (pollutant, advisory_key)
                )\(t.withoutRowID)
                """,
                "CREATE INDEX advisory_by_issue ON advisory(issued_at)",
            ]
            let kinds = "CHECK (kind IN ('measurement', 'forecast', 'stationList', 'advisory', 'weeklyOutlook'))"
            switch dialect {
            case .postgres:
                return advisory + [
                    "ALTER TABLE poll_attempt DROP CONSTRAINT poll_attempt_kind, ADD CONSTRAINT poll_attempt_kind \(kinds)"
                ]
            case .sqlite:
                // SQLite cannot widen a CHECK in place: the table is rebuilt.
                return advisory + [
                    """
                    CREATE TABLE poll_attempt_v9 (
                        id \(t.identity),
                        started_at \(t.integer) NOT NULL,
                        station \(t.text),
                        operation \(t.text) NOT NULL,
                        outcome \(t.text) NOT NULL,
                        http_status \(t.integer),
                        result_code \(t.text),
                        rows_new \(t.integer) NOT NULL DEFAULT 0,
                        rows_updated \(t.integer) NOT NULL DEFAULT 0,
                        duration_ms \(t.integer) NOT NULL DEFAULT 0,
                        message \(t.text),
                        kind \(t.text) NOT NULL DEFAULT 'measurement'
                            \(kinds)
                    )
                    """,
                    """
                    INSERT INTO poll_attempt_v9 (id, started_at, station, operation, outcome, http_status, result_code,
                                                 rows_new, rows_updated, duration_ms, message, kind)
                        SELECT id, started_at, station, operation, outcome, http_status, result_code,
                               rows_new, rows_updated, duration_ms, message, kind FROM poll_attempt
                    """,
                    "DROP TABLE poll_attempt",
                    "ALTER TABLE poll_attempt_v9 RENAME TO poll_attempt",
                    "CREATE INDEX poll_attempt_by_time ON poll_attempt(started_at)",
                    "CREATE INDEX poll_attempt_by_kind ON poll_attempt(kind, started_at)",
                ]
            }
        },
        Migration("v10-weekly-outlook") { dialect in
            let t = dialect.ddl
            // The weekly PM2.5 outlook (docs/REFERENCE.md §17): a row per publication day, per day of
            // it with the confidence, per region named that day with the word as published.
            return [
                """
                CREATE TABLE weekly_outlook (
                    published_on \(t.text) PRIMARY KEY NOT NULL,
                    conditions \(t.text),
                    fetched_at \(t.integer) NOT NULL
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE weekly_outlook_day (
                    published_on \(t.text) NOT NULL,
                    position \(t.integer) NOT NULL CHECK (position BETWEEN 1 AND 4),
                    forecast_date \(t.text) NOT NULL,
                    confidence_word \(t.text),
                    PRIMARY KEY (published_on, position)
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE weekly_outlook_grade (
                    published_on \(t.text) NOT NULL,
                    position \(t.integer) NOT NULL,
                    region \(t.text) NOT NULL,
                    word \(t.text) NOT NULL,
                    PRIMARY KEY (published_on, position, region)
                )\(t.withoutRowID)
                """,
            ]
        },
        Migration("v11-people") { dialect in
            let t = dialect.ddl
            // Everyone in the home (docs/REFERENCE.md §18): walking gains its person (the rows so far
            // were `me`'s), and heart rate, resting rates and sleep are kept per person and source.
            let walking: [String] =
                switch dialect {
                case .postgres:
                    [
                        """
                        ALTER TABLE activity_source ADD COLUMN person \(t.text) NOT NULL DEFAULT 'me',
                            DROP CONSTRAINT activity_source_pkey
                        """,
                        "ALTER TABLE activity_source ALTER COLUMN person DROP DEFAULT, ADD PRIMARY KEY (person, source, slot_start)",
                        "DROP INDEX activity_source_by_slot",
                        "CREATE INDEX activity_source_by_slot ON activity_source(person, slot_start)",
                    ]
                case .sqlite:
                    // SQLite cannot change a primary key in place: the table is rebuilt.
                    [
                        """
                        CREATE TABLE activity_source_v11 (
                            person \(t.text) NOT NULL,
                            source \(t.text) NOT NULL,
                            slot_start \(t.integer) NOT NULL,
                            distance_m \(t.real) NOT NULL CHECK (distance_m >= 0),
                            imported_at \(t.integer) NOT NULL,
                            PRIMARY KEY (person, source, slot_start)
                        )\(t.withoutRowID)
                        """,
                        """
                        INSERT INTO activity_source_v11 (person, source, slot_start, distance_m, imported_at)
                            SELECT 'me', source, slot_start, distance_m, imported_at FROM activity_source
                        """,
                        "DROP TABLE activity_source",
                        "ALTER TABLE activity_source_v11 RENAME TO activity_source",
                        "CREATE INDEX activity_source_by_slot ON activity_source(person, slot_start)",
                    ]
                }
            return walking + [
                """
                CREATE TABLE heart_rate (
                    person \(t.text) NOT NULL,
                    at \(t.integer) NOT NULL,
                    source \(t.text) NOT NULL,
                    beats_per_minute \(t.real) NOT NULL CHECK (beats_per_minute BETWEEN 25 AND 250),
                    imported_at \(t.integer) NOT NULL,
                    PRIMARY KEY (person, at, source)
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE resting_heart_rate (
                    person \(t.text) NOT NULL,
                    at \(t.integer) NOT NULL,
                    source \(t.text) NOT NULL,
                    beats_per_minute \(t.real) NOT NULL CHECK (beats_per_minute > 0),
                    imported_at \(t.integer) NOT NULL,
                    PRIMARY KEY (person, at, source)
                )\(t.withoutRowID)
                """,
                """
                CREATE TABLE sleep_interval (
                    person \(t.text) NOT NULL,
                    start_at \(t.integer) NOT NULL,
                    source \(t.text) NOT NULL,
                    end_at \(t.integer) NOT NULL CHECK (end_at > start_at AND end_at - start_at <= 86400),
                    imported_at \(t.integer) NOT NULL,
                    PRIMARY KEY (person, start_at, source)
                )\(t.withoutRowID)
                """,
            ]
        },
        Migration("v12-positions") { dialect in
            let t = dialect.ddl
            // Where each person was (docs/REFERENCE.md §19): per person, source and minute, the last
            // point of the minute (`minute`: its start in epoch seconds).
            return [
                """
                CREATE TABLE track_position (
                    person \(t.text) NOT NULL,
                    source \(t.text) NOT NULL,
                    minute \(t.integer) NOT NULL CHECK (minute % 60 = 0),
                    latitude \(t.real) NOT NULL CHECK (latitude BETWEEN -90 AND 90),
                    longitude \(t.real) NOT NULL CHECK (longitude BETWEEN -180 AND 180),
                    imported_at \(t.integer) NOT NULL,
                    PRIMARY KEY (person, source, minute)
                )\(t.withoutRowID)
                """,
                "CREATE INDEX track_position_by_minute ON track_position(person, minute)",
            ]
        },
        Migration("v13-slot-places") { dialect in
            let t = dialect.ddl
            // What §19's weighting found per person and slot (docs/REFERENCE.md §19): `inputs` names
            // the weighting's version, radius and home, `place` its bytes; the generation rises at
            // every write that forgets places, so a weighing that raced one keeps nothing.
            let tables = [
                """
                CREATE TABLE slot_place (
                    person \(t.text) NOT NULL,
                    slot_start \(t.integer) NOT NULL CHECK (slot_start % 3600 = 0),
                    inputs \(t.text) NOT NULL,
                    place \(t.blob) NOT NULL,
                    PRIMARY KEY (person, slot_start)
                )
                """,
                "CREATE INDEX slot_place_by_slot ON slot_place(slot_start)",
                """
                CREATE TABLE place_generation (
                    id \(t.smallKey) PRIMARY KEY CHECK (id = 1),
                    generation \(t.integer) NOT NULL
                )
                """,
                "INSERT INTO place_generation (id, generation) VALUES (1, 0)",
            ]
            guard dialect == .postgres else { return tables }
            // The roles an operator granted the positions to get the places too: a reader's reports
            // read them, and another dustd's writes forget them (docs/REFERENCE.md §20).
            return tables + [grantingAsOn("track_position", to: "slot_place, place_generation")]
        },
        // An ozone advisory's key was its district, 권역 and time as the server wrote them; it is a
        // hash of that text now (Advisory.hashedKey). Keys AirKorea gave (`sn`) hold no space.
        Migration(
            "v14-advisory-keys-hashed",
            rewrites: [
                TextRewrite(
                    select: "SELECT advisory_key AS old FROM advisory WHERE advisory_key LIKE '% %'",
                    update: "UPDATE advisory SET advisory_key = ? WHERE advisory_key = ?", transform: Advisory.hashedKey(of:))
            ]
        ) { _ in [] },
        // What a server dated more than a day after it was fetched is dropped at the fetch now
        // (ForecastFetch.futureTolerance); what an older FineDust kept of it goes: a forecast issued
        // in 2099 passed for the newest for good, and the planner never fetched again.
        Migration("v15-nothing-from-the-future") { dialect in
            let outlookDay =
                switch dialect {
                case .sqlite: "date(fetched_at + 86400, 'unixepoch', '+9 hours')"
                case .postgres: "to_char(to_timestamp(fetched_at + 86400 + 32400) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
                }
            return [
                """
                DELETE FROM forecast_grade WHERE EXISTS (
                    SELECT 1 FROM forecast_issue i
                    WHERE i.pollutant = forecast_grade.pollutant AND i.issued_at = forecast_grade.issued_at
                        AND i.forecast_date = forecast_grade.forecast_date AND i.issued_at > i.fetched_at + 86400)
                """,
                "DELETE FROM forecast_issue WHERE issued_at > fetched_at + 86400",
                "DELETE FROM advisory WHERE issued_at > fetched_at + 86400",
                """
                DELETE FROM weekly_outlook_grade WHERE published_on IN (
                    SELECT published_on FROM weekly_outlook WHERE published_on > \(outlookDay))
                """,
                """
                DELETE FROM weekly_outlook_day WHERE published_on IN (
                    SELECT published_on FROM weekly_outlook WHERE published_on > \(outlookDay))
                """,
                "DELETE FROM weekly_outlook WHERE published_on > \(outlookDay)",
            ]
        },
        // One number every write raises in its own transaction (`SQLDatabase.write`): dustd keeps the
        // answers it computed until it moves (docs/REFERENCE.md §13, "Answers kept"). It starts at a
        // random value, so a database put in place of another (restored, replaced) is never taken
        // for the one whose answers are kept.
        Migration("v16-data-generation") { dialect in
            let t = dialect.ddl
            let start =
                switch dialect {
                case .sqlite: "abs(random() % 1000000000000)"
                case .postgres: "floor(random() * 1000000000000)::bigint"
                }
            let table = [
                """
                CREATE TABLE data_generation (
                    id \(t.smallKey) PRIMARY KEY CHECK (id = 1),
                    generation \(t.integer) NOT NULL
                )
                """,
                "INSERT INTO data_generation (id, generation) VALUES (1, \(start))",
            ]
            guard dialect == .postgres else { return table }
            // Whoever may read or write the readings may read or raise the number (docs/REFERENCE.md §20).
            return table + [grantingAsOn("measurement", to: "data_generation")]
        },
        // Indoor air (docs/REFERENCE.md §21): one sample a minute per sensor, packed by hour, and what dustd
        // last knew of each sensor (its last sample, its problem now) for `dustctl indoor` and the status.
        Migration("v17-indoor-air") { dialect in
            let t = dialect.ddl
            let tables = [
                // A row per sensor and hour, its samples packed (`IndoorHourRecord`): a week is 168 rows a sensor.
                // A rowid table on SQLite: an hour's row (up to 1,140 bytes of samples) is more than a WITHOUT
                // ROWID page holds in place, and every row would spill to an overflow page of its own.
                """
                CREATE TABLE indoor_hour (
                    sensor \(t.text) NOT NULL,
                    slot_start \(t.integer) NOT NULL,
                    samples \(t.blob) NOT NULL,
                    PRIMARY KEY (sensor, slot_start)
                )
                """,
                // Signing out ends every session cookie of the one who signed out, issued before then
                // (docs/REFERENCE.md §13): the cookies themselves stay stateless.
                """
                CREATE TABLE session_revocation (
                    principal \(t.text) PRIMARY KEY,
                    not_before \(t.integer) NOT NULL
                )
                """,
                """
                CREATE TABLE indoor_sensor (
                    sensor \(t.text) PRIMARY KEY,
                    kind \(t.text) NOT NULL,
                    checked_at \(t.integer),
                    last_sample_at \(t.integer),
                    problem \(t.text),
                    problem_since \(t.integer),
                    unknown_samples \(t.integer) NOT NULL DEFAULT 0
                )
                """,
            ]
            guard dialect == .postgres else { return tables }
            return tables + [grantingAsOn("measurement", to: "indoor_hour, indoor_sensor, session_revocation")]
        },
        // A result code is one of AirKorea's now (`ResultCode.inVocabulary`): what an older FineDust stored
        // of any other, which a server could fill with a piece of the key a poll, becomes the word for it.
        Migration("v18-result-codes-in-vocabulary") { _ in
            // AirKorea's codes at this version, "?" (a gateway that gave none) and the word for any other.
            let codes = [
                "00", "01", "02", "03", "04", "05", "10", "11", "12", "20", "21", "22", "23", "29", "30", "31", "32", "33", "99", "?",
                "(unknown value)",
            ]
            let known = codes.map { "'\($0)'" }.joined(separator: ", ")
            return ["UPDATE poll_attempt SET result_code = '(unknown value)' WHERE result_code NOT IN (\(known))"]
        },
        // How many times each principal has signed out: a session cookie carries the count it was issued
        // under, so a sign-out ends the cookies before it whatever the clock said when either was made
        // (docs/REFERENCE.md §13). A row an older FineDust wrote counts 0, as do the cookies it issued.
        Migration("v19-sign-out-count") { dialect in
            ["ALTER TABLE session_revocation ADD COLUMN sign_outs \(dialect.ddl.integer) NOT NULL DEFAULT 0"]
        },
        // How many rows `measurement` holds, raised by its one writer (`saveReadings`) in the same
        // transaction: `dustctl status` and `/api/v1/status` read the number, not every stored hour.
        Migration("v20-measurement-rows") { dialect in
            [
                "ALTER TABLE data_generation ADD COLUMN measurement_rows \(dialect.ddl.integer) NOT NULL DEFAULT 0",
                "UPDATE data_generation SET measurement_rows = (SELECT count(*) FROM measurement)",
            ]
        },
        // The key dustd's start-up look for its echoes covered last (DustStore's `Schema.withholdKeyEchoes`):
        // a random salt and the key's HMAC of it, never the key. SQLite only: PostgreSQL holds nothing an
        // older FineDust wrote (`v3-scrub-echoed-keys`), and dustd looks there for nothing.
        Migration("v21-key-echo-check") { dialect in
            guard dialect == .sqlite else { return [] }
            return ["CREATE TABLE key_echo_check (id INTEGER PRIMARY KEY CHECK (id = 1), salt BLOB NOT NULL, mark BLOB NOT NULL)"]
        },
    ]
}

extension Migration {
    /// PostgreSQL: grants `tables` (new ones) to every other role, with each privilege it holds on
    /// `existing` (SELECT, INSERT, UPDATE, DELETE), so that a role an operator granted the older
    /// tables to may use the new ones as it did them (docs/REFERENCE.md §20).
    fileprivate static func grantingAsOn(_ existing: String, to tables: String) -> String {
        """
        DO $$
        DECLARE granted record;
        BEGIN
            FOR granted IN
                SELECT grantee, privilege_type FROM information_schema.role_table_grants
                WHERE table_schema = current_schema() AND table_name = '\(existing)'
                    AND privilege_type IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE') AND grantee <> current_user
            LOOP
                EXECUTE format('GRANT %s ON \(tables) TO %I', granted.privilege_type, granted.grantee);
            END LOOP;
        END $$
        """
    }
}

/// The words of an engine's DDL.
public struct SQLDefinitionWords: Sendable {
    public let text: String
    public let integer: String
    public let real: String
    public let blob: String
    /// A key that numbers its rows itself.
    public let identity: String
    /// The one-row key of `place_generation`.
    public let smallKey: String
    /// What ends a table kept in its primary key's order (SQLite's `WITHOUT ROWID`).
    public let withoutRowID: String
}

extension SQLDialect {
    /// Every text column compares and sorts byte by byte on both engines (SQLite's BINARY,
    /// PostgreSQL's `COLLATE "C"`); every integer is 64 bits (epoch seconds), every real a double.
    public var ddl: SQLDefinitionWords {
        switch self {
        case .sqlite:
            SQLDefinitionWords(
                text: "TEXT", integer: "INTEGER", real: "REAL", blob: "BLOB", identity: "INTEGER PRIMARY KEY AUTOINCREMENT",
                smallKey: "INTEGER", withoutRowID: " WITHOUT ROWID")
        case .postgres:
            SQLDefinitionWords(
                text: #"text COLLATE "C""#, integer: "bigint", real: "double precision", blob: "bytea",
                identity: "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", smallKey: "integer", withoutRowID: "")
        }
    }
}
