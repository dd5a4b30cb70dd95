import AirKorea
import DustKit
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

@Suite("v18: a stored result code is one of AirKorea's", .timeLimit(.minutes(10)))
struct ResultCodeMigrationTests {
    @Test("A v17 database's codes outside the vocabulary (a key sent a piece a poll) become the word for them; AirKorea's own stay")
    func previousVersion() async throws {
        let directory = try TemporaryDirectory("finedust-v18")
        defer { directory.remove() }
        let path = directory.path("db.sqlite")
        let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
        let letters = Array(key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) })
        let pieces = stride(from: 0, to: letters.count, by: 11).map { String(letters[$0..<min($0 + 11, letters.count)]) }
        let known = ResultCode.allCases.map(\.rawValue) + ["?"]
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v17-indoor-air")
        try await queue.write { db in
            for (index, code) in (pieces + known).enumerated() {
                try db.execute(
                    sql:
                        "INSERT INTO poll_attempt (started_at, operation, outcome, result_code) VALUES (?, 'measurements 종로구', 'failed', ?)",
                    arguments: [1_795_129_200 + index, code])
            }
            try db.execute(sql: "INSERT INTO poll_attempt (started_at, operation, outcome, result_code) VALUES (1, 'x', 'ok', NULL)")
        }
        #expect(ServiceKey(key)!.echoGuard.echoes(pieces.joined()))
        try queue.close()

        let store = try SQLiteStore(path: path)
        let codes = try store.synchronousRead { db in
            try String?.fetchAll(db, sql: "SELECT result_code FROM poll_attempt ORDER BY started_at")
        }
        #expect(codes.first == nil as String?)
        let stored = codes.dropFirst().map { $0 ?? "NULL" }
        #expect(Array(stored.prefix(pieces.count)) == Array(repeating: ServerVocabulary.unknownValue, count: pieces.count))
        #expect(Array(stored.dropFirst(pieces.count)) == known)
        #expect(!ServiceKey(key)!.echoGuard.echoes(stored.joined()))
    }
}
