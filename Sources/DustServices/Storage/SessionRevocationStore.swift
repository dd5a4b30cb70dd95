import Foundation

/// When each signed-in principal last signed out (docs/REFERENCE.md §13, "Who may see whose data"): a
/// session cookie issued before that is refused, on every device. Principals by their cookie name
/// (`*` the administrator, `p:NAME` a person).
public protocol SessionRevocationStore: Sendable {
    /// Every principal's time, by cookie name.
    func sessionRevocations() async throws(StorageFailure) -> [String: Date]
    /// Ends every session cookie of `principal` issued before `at`.
    func revokeSessions(of principal: String, at: Date) async throws(StorageFailure)
}
