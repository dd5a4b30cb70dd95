import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

/// A key shaped like data.go.kr's (96 characters of base64).
private let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
private let sentKey = "Fj1mybGUS4U3hdKn%2BiTemnwtnJGc66cYlMtQ%2FIMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s%2BDnOoZB85Hmz%2FpZX7A%3D%3D"

@Suite("dustd's start-up check: every stored text that echoes the key is withheld, JSON string by string", .timeLimit(.minutes(10)))
struct KeyEchoScrubTests {
    let echoGuard = KeyEchoGuard(keyForms: [key, sentKey])

    /// The key in 8 pieces joined by `separator`.
    func pieces(_ separator: String) -> String {
        stride(from: 0, to: key.count, by: 13).map { start in
            String(key.dropFirst(start).prefix(13))
        }.joined(separator: separator)
    }

    /// What an older FineDust stored: the key as libxml2 or a proxy decoded it, in every table.
    func plantEchoes(at path: String) throws {
        struct Failure: Encodable {
            var message: String
            var resultCode = "30"
        }
        struct Status: Encodable {
            var state = "idle"
            var station = "종로구"
            var lastError: Failure
        }
        // JSONEncoder writes `/` as `\/`: the byte scrub of an older FineDust missed exactly this.
        let status = String(
            decoding: try JSONEncoder().encode(
                Status(
                    lastError: Failure(
                        message: "AirKorea returned result code 30 (SERVICE KEY \(key) IS NOT REGISTERED): check the key."))), as: UTF8.self
        )
        #expect(status.contains("\\/"))
        // Every character of the key as `\u00XX`: no byte of it is readable until the JSON is decoded.
        let escaped = "\"" + key.unicodeScalars.map { "\\u00" + String($0.value, radix: 16, uppercase: true) }.joined() + "\""
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql:
                    "INSERT INTO daemon_state (key, value, updated_at) VALUES ('status', ?, 1), ('note', ?, 1), ('next_poll', '1790000000', 1)",
                arguments: [status, escaped])
            try db.execute(
                sql:
                    "INSERT INTO poll_attempt (started_at, operation, outcome, message) VALUES (1, 'station 종로구 DAILY page 1', 'failed', ?), (2, 'station 종로구 DAILY page 1', 'ok', NULL)",
                arguments: ["AirKorea returned result code 30 (\(pieces(" "))): check the key."])
            try db.execute(
                sql:
                    "INSERT INTO forecast_issue (pollutant, issued_at, forecast_date, overall, cause, fetched_at) VALUES ('pm10', 1, '2026-11-22', ?, ?, 1), ('pm25', 1, '2026-11-22', '○ 전 권역 보통', '원인', 1)",
                arguments: ["○ [미세먼지] \(key)", "○ " + sentKey.lowercased()])
            try db.execute(
                sql:
                    "INSERT INTO forecast_grade (pollutant, issued_at, forecast_date, region, grade, grade_word) VALUES ('pm10', 1, '2026-11-22', '서울', NULL, ?), ('pm10', 1, '2026-11-22', '제주', 1, '좋음')",
                arguments: [String(key.prefix(48))])
            try db.execute(
                sql: "INSERT INTO station (name, address, updated_at) VALUES (?, ?, 1), ('종로구', '서울 종로구 종로35가길 19', 1)",
                arguments: [pieces("\n"), key.replacingOccurrences(of: "+", with: "&plus;").replacingOccurrences(of: "/", with: "&sol;")])
            try db.execute(
                sql:
                    "INSERT INTO measurement (station, slot_start, pm10, fetched_at) VALUES (?, 1, 10, 1), (?, 2, 11, 1), ('종로구', 1, 12, 1)",
                arguments: [pieces("\n"), pieces("\n")])
            // A copy of the echoes in pages freed again, as an older FineDust's table rebuilds left
            // them (v9 copies poll_attempt): free pages, and an index built in them, keep the bytes.
            try db.execute(sql: "CREATE TABLE scratch AS SELECT message FROM poll_attempt")
            try db.execute(sql: "DROP TABLE scratch")
            try db.execute(sql: "INSERT INTO alert_event (at, kind, rule, station) VALUES (1, 'raised', 'pm25-bad', '종로구')")
            try db.execute(
                sql: "INSERT INTO alert_delivery (event_id, sink, attempt, at, outcome, detail) VALUES (1, 'webhook 1', 1, 1, 'failed', ?)",
                arguments: ["HTTP 500: " + key.unicodeScalars.map { "&#000\($0.value);" }.joined()])
        }
    }

    @Test("Every table and column, JSON included, keeps no echo; the count is the texts replaced; nothing else changes")
    func scrub() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        let store = try SQLiteStore(path: path)
        try plantEchoes(at: path)

        // Withheld in place: status, note; the attempt; overall and cause; the grade word; the
        // delivery detail. Deleted, as an echo names them (a key column is never rewritten, which
        // could merge rows): the station, its two measurements.
        #expect(try store.withholdKeyEchoes(echoGuard) == 10)
        #expect(try store.withholdKeyEchoes(echoGuard) == 0)

        let state = try await store.daemonState()
        let statusText = try #require(state["status"])
        let status = try #require(try JSONSerialization.jsonObject(with: Data(statusText.utf8)) as? [String: Any])
        #expect((status["lastError"] as? [String: Any])?["message"] as? String == KeyEchoGuard.withheldText)
        #expect((status["lastError"] as? [String: Any])?["resultCode"] as? String == "30")
        #expect(status["state"] as? String == "idle")
        #expect(status["station"] as? String == "종로구")
        #expect(state["note"] == "\"\(KeyEchoGuard.withheldText)\"")
        #expect(state["next_poll"] == "1790000000")
        #expect(try await store.recentAttempts(limit: 5).map(\.message) == [nil, KeyEchoGuard.withheldText])
        let pm10 = try #require(try await store.forecast(pollutant: .pm10, date: LocalDate(year: 2026, month: 11, day: 22), region: .seoul))
        #expect(pm10.overall == KeyEchoGuard.withheldText)
        #expect(pm10.cause == KeyEchoGuard.withheldText)
        #expect(pm10.grade == .unknown(KeyEchoGuard.withheldText))
        let pm25Jeju = try await store.forecast(pollutant: .pm10, date: LocalDate(year: 2026, month: 11, day: 22), region: .jeju)
        #expect(pm25Jeju?.grade == .known(.good))
        #expect(try await store.stations().map(\.name) == ["종로구"])
        #expect(try await store.stations().first?.address == "서울 종로구 종로35가길 19")
        #expect(try await store.readingCount(station: KeyEchoGuard.withheldText) == 0)
        #expect(try await store.readingCount(station: "종로구") == 1)
        #expect(try await store.readingCount() == 1, "the kept count is taken again after rows were deleted")

        // Every byte on disk: no 12 letters and digits of the key, raw, percent-encoded or JSON-escaped.
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            #expect(!echoGuard.occursUndecoded(in: try Data(contentsOf: URL(fileURLWithPath: file))), "key bytes in \(file)")
        }
    }

    /// A stand-in for dustd's HMAC (`Daemon`): a function of the key and the salt only.
    static func mark(_ key: String) -> SQLiteStore.KeyMark {
        let tag = UInt8(truncatingIfNeeded: key.utf8.reduce(0) { $0 &* 31 &+ Int($1) })
        return { salt in salt.map { $0 ^ tag } }
    }

    @Test("With the key's mark the whole look runs once per key: the next reads the same pages for a day as for 20,000 hours more")
    func oncePerKey() async throws {
        let store = SQLiteStore.scratch()  // one connection: every page the look reads is counted on it
        let pagesOfLook = { (echoGuard: KeyEchoGuard, key: String) throws -> (Int?, Int32) in
            try store.synchronousRead { db in _ = pagesFetched(db, reset: true) }
            let found = try store.withholdKeyEchoes(echoGuard, unlessLookedFor: Self.mark(key))
            return (found, try store.synchronousRead { db in pagesFetched(db) })
        }
        _ = try await store.saveReadings((0..<24).map { reading("종로구", hour: $0, pm10: 30, pm25: 10) })
        #expect(try pagesOfLook(echoGuard, key).0 == 0)
        let (again, day) = try pagesOfLook(echoGuard, key)
        #expect(again == nil)
        _ = try await store.saveReadings((0..<20).flatMap { k in (0..<1_000).map { reading("측정소\(k)", hour: -$0, pm10: 30, pm25: 10) } })
        let (later, history) = try pagesOfLook(echoGuard, key)
        #expect(later == nil)
        #expect(history == day)
        #expect(day > 0)

        // Another key (one an older FineDust stored an echo of) is looked for everywhere, once; so is
        // the first again, as the last look was not for it.
        let other = String(key.reversed())
        let otherGuard = KeyEchoGuard(keyForms: [other])
        try await store.setDaemonState(["note": "AirKorea: \(other)"])
        #expect(try pagesOfLook(otherGuard, other).0 == 1)
        #expect(try await store.daemonState()["note"] == KeyEchoGuard.withheldText)
        #expect(try pagesOfLook(otherGuard, other).0 == nil)
        #expect(try pagesOfLook(echoGuard, key).0 == 0)

        // What is kept is salted: another database looked through with the same key keeps another mark.
        let second = SQLiteStore.scratch()
        #expect(try second.withholdKeyEchoes(echoGuard, unlessLookedFor: Self.mark(key)) == 0)
        let kept = { (store: SQLiteStore) throws -> [Data] in
            try store.synchronousRead { db in
                try Data.fetchAll(db, sql: "SELECT salt FROM key_echo_check UNION ALL SELECT mark FROM key_echo_check")
            }
        }
        let (first, last) = (try kept(store), try kept(second))
        #expect(first.count == 2 && last.count == 2)
        #expect(first[1] != last[1])
    }

    @Test("A JSON document keeps every byte but the echoing strings")
    func jsonKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dust.sqlite")
        let store = try SQLiteStore(path: path)
        let document = #"{"a":"x\"y\\z","b":[1,2.50,"\#(key.replacingOccurrences(of: "/", with: "\\/"))"],"c":{"d":null}}"#
        try await store.setDaemonState(["doc": document, "plain": "not json \(key)"])
        #expect(try store.withholdKeyEchoes(echoGuard) == 2)
        #expect(try await store.daemonState()["doc"] == #"{"a":"x\"y\\z","b":[1,2.50,"\#(KeyEchoGuard.withheldText)"],"c":{"d":null}}"#)
        #expect(try await store.daemonState()["plain"] == KeyEchoGuard.withheldText)
    }
}
