import Foundation

/// When and how many times each signed-in principal signed out (docs/REFERENCE.md §13, "Who may see
/// whose data"): a session cookie is refused unless it carries the principal's count of sign-outs, on
/// every device. Principals by their cookie name (`*` the administrator, `p:NAME` a person).
public protocol SessionRevocationStore: Sendable {
    /// Every principal's sign-outs, by cookie name.
    func sessionRevocations() async throws(StorageFailure) -> [String: SignOuts]
    /// Ends every session cookie of `principal`: one more sign-out, the last at `at`. With `ifCount`,
    /// only while the count is still that (a cookie of that count signing out: two of its requests at
    /// once count one sign-out).
    func revokeSessions(of principal: String, at: Date, ifCount: Int64?) async throws(StorageFailure)
}

extension SessionRevocationStore {
    /// One more sign-out, whatever the count (`dustctl person signout`).
    public func revokeSessions(of principal: String, at: Date) async throws(StorageFailure) {
        try await revokeSessions(of: principal, at: at, ifCount: nil)
    }
}

/// A principal's sign-outs: how many, and when the last was recorded.
///
/// The count is what ends a cookie; the time alone cannot. A Raspberry Pi's clock set ahead and then
/// right stamped a sign-out in the future (everyone locked out), and moving it back brought cookies
/// issued while the clock was ahead back to life once real time reached them. A cookie carries the count
/// it was issued under, so one more sign-out ends it whatever either clock said.
public struct SignOuts: Sendable, Hashable {
    public var count: Int64
    public var last: Date

    public init(count: Int64, last: Date) {
        self.count = count
        self.last = last
    }
}
