import DustServices
import Foundation

// Signing out everywhere (docs/REFERENCE.md §13): a count and a time per principal.

extension SQLDatabase {
    public func sessionRevocations() async throws(StorageFailure) -> [String: SignOuts] {
        try await read { session in
            var signOuts: [String: SignOuts] = [:]
            try session.forEachRow("SELECT principal, not_before, sign_outs FROM session_revocation", []) { row in
                signOuts[try row.string("principal")] = SignOuts(
                    count: try row.int64("sign_outs"), last: SQLTime.date(try row.int64("not_before")))
            }
            return signOuts
        }
    }

    public func revokeSessions(of principal: String, at: Date, ifCount: Int64?) async throws(StorageFailure) {
        let upsert = """
            INSERT INTO session_revocation (principal, not_before, sign_outs) VALUES (?, ?, 1)
            ON CONFLICT (principal) DO UPDATE SET not_before = excluded.not_before,
                sign_outs = session_revocation.sign_outs + 1
            """
        try await write { session -> Void in
            // No row is a count of 0: the insert is the sign-out, and a second at once meets the conflict.
            if let ifCount {
                try session.execute(upsert + " WHERE session_revocation.sign_outs = ?", principal, SQLTime.seconds(at), ifCount)
            } else {
                try session.execute(upsert, principal, SQLTime.seconds(at))
            }
        }
    }
}
