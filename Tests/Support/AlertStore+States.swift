import DustKit
import DustServices

extension AlertStore {
    /// The state of every rule seen before, by rule text, as stored (without when it changed).
    public func alertStates() async throws(StorageFailure) -> [String: AlertState] {
        try await storedAlertStates().mapValues(\.state)
    }
}
