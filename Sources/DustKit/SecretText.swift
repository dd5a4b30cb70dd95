import Foundation

/// A secret other than the service key (an ntfy access token, the PostgreSQL password): sent, never shown. Every textual
/// form of it (`description`, interpolation, `dump`, a service group's debug log of its
/// services) is `***`.
public struct SecretText: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    public init(_ value: String) { self.value = value }

    /// The secret itself, for the one place that sends it (an `Authorization` header, a login).
    public var revealedForSending: String { value }

    /// `text` with every occurrence of the secret replaced by `***`, in every form `SecretScrubber` knows (raw,
    /// percent-encoded, as XML character references). Byte by byte: compared as characters (Foundation's
    /// `replacingOccurrences`), a token followed by a combining mark or a skin tone was not found, and a
    /// server's error body quoting it so reached the journal.
    public func redacting(_ text: String) -> String {
        // The scrubber matches each byte as written before it tries an escape: a secret holding `%41` is found
        // as that text too.
        value.isEmpty ? text : SecretScrubber(secret: Array(value.utf8)).redacting(text)
    }

    public var description: String { "***" }
    public var debugDescription: String { "***" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
