import Foundation

/// A secret other than the service key (an ntfy access token, the PostgreSQL password): sent, never shown. Every textual
/// form of it (`description`, interpolation, `dump`, a service group's debug log of its
/// services) is `***`.
public struct SecretText: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    public init(_ value: String) { self.value = value }

    /// The secret itself, for the one place that sends it (an `Authorization` header, a login).
    public var revealedForSending: String { value }

    /// `text` with every occurrence of the secret replaced by `***`.
    public func redacting(_ text: String) -> String {
        value.isEmpty ? text : text.replacingOccurrences(of: value, with: "***")
    }

    public var description: String { "***" }
    public var debugDescription: String { "***" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
