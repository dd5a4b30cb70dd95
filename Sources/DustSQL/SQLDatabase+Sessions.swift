import DustServices
import Foundation

// Signing out everywhere (docs/REFERENCE.md §13): one time per principal.

extension SQLDatabase {
    public func sessionRevocations() async throws(StorageFailure) -> [String: Date] {
        try await read { session in
            var times: [String: Date] = [:]
            try session.forEachRow("SELECT principal, not_before FROM session_revocation", []) { row in
                times[try row.string("principal")] = SQLTime.date(try row.int64("not_before"))
            }
            return times
        }
    }

    public func revokeSessions(of principal: String, at: Date) async throws(StorageFailure) {
        try await write { session -> Void in
            try session.execute(
                """
                INSERT INTO session_revocation (principal, not_before) VALUES (?, ?)
                ON CONFLICT (principal) DO UPDATE SET not_before = excluded.not_before
                """, principal, SQLTime.seconds(at))
        }
    }
}
