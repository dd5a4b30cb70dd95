import DustKit
import Foundation

/// The AirKorea service key: a secret that is sent, never shown.
///
/// Every textual form of it (`description`, `debugDescription`, string interpolation,
/// `dump`) is `***`; only `AirKoreaEndpoint` reads the real value, to build a URL.
public struct ServiceKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    fileprivate let value: String
    /// The key as the server receives it, percent-decoded once: what every echo encodes.
    private let decoded: [UInt8]
    /// Finds the key in a text as a reader would see it (see `KeyEchoGuard`), in both the form the
    /// user pasted and the form it is sent in.
    public let echoGuard: KeyEchoGuard

    /// A key as the user pasted it, surrounding whitespace removed; nil when nothing is left.
    public init?(_ raw: String) {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isNewline || $0 == " " }) else { return nil }
        self.value = trimmed
        self.decoded = trimmed.contains("%") ? KeyEchoGuard.percentDecoded(Array(trimmed.utf8)) : Array(trimmed.utf8)
        self.echoGuard = KeyEchoGuard(keyForms: [trimmed, Self.sentForm(of: trimmed)])
    }

    /// `mac` (a keyed hash such as HMAC) of `message` under the key as the server receives it, one
    /// value for both forms of a key: a mark to know the key again by, never the key itself.
    public func authenticationCode(of message: [UInt8], _ mac: (_ key: [UInt8], _ message: [UInt8]) -> [UInt8]) -> [UInt8] {
        mac(decoded, message)
    }

    /// The fewest letters and digits a key may have (`ServiceKeyLoader` refuses a shorter one):
    /// data.go.kr issues keys of about 90.
    public static let minimumLettersAndDigits = 32

    /// How many ASCII letters and digits the key has, as the server receives it.
    public var lettersAndDigits: Int {
        decoded.filter { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }.count
    }

    /// The key as it goes on the query string: encoded exactly once.
    ///
    /// data.go.kr shows two forms: "Encoding" (already percent-encoded, contains `%`) and
    /// "Decoding" (raw, may contain `+`, `/`, `=`). A key with `%` is sent as is; any other
    /// key is percent-encoded. Encoding an encoded key twice is the classic cause of code 30.
    var queryValue: String { Self.sentForm(of: value) }

    private static func sentForm(of key: String) -> String {
        key.contains("%") ? key : percentEncodeQueryValue(key)
    }

    /// `text` with every occurrence of the key replaced by `***`, and the value of any
    /// `serviceKey=` parameter too (see `redacting(_: Data)`).
    public func redacting(_ text: String) -> String {
        SecretScrubber(secret: decoded).redacting(text)
    }

    /// `data` with the key replaced by `***` in every form a server or proxy may echo it: raw,
    /// percent-encoded with upper- or lower-case hex (or twice), `+` decoded to a space, XML
    /// character references, and any mix of these; the value of any `serviceKey=` parameter is
    /// replaced as well, so even a key cut short by an echo cannot survive. The same data when
    /// nothing matched.
    public func redacting(_ data: Data) -> Data {
        guard let scrubbed = data.withUnsafeBytes({ SecretScrubber(secret: decoded).scrub($0) }) else { return data }
        return Data(scrubbed)
    }

    /// True when `text` contains the key in any form `redacting` removes (the parameter rule aside);
    /// used to prove that logs, files and the database never hold it.
    public func occurs(in text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { SecretScrubber(secret: decoded).containsKey($0) }
    }

    /// True when `data` contains the key in any form `redacting` removes.
    public func occurs(in data: Data) -> Bool {
        data.withUnsafeBytes { SecretScrubber(secret: decoded).containsKey($0) }
    }

    /// `text` with the value of every `serviceKey=` parameter replaced by `***`: for text whose key
    /// is not known, such as messages stored before FineDust redacted echoes.
    public static func redactingKeyParameters(_ text: String) -> String {
        SecretScrubber.redactingKeyParameters(text)
    }

    public var description: String { "***" }
    public var debugDescription: String { "ServiceKey(***)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool { lhs.value == rhs.value }
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// Percent-encodes everything except RFC 3986 unreserved characters, so `+`, `/`, `=` and
/// Korean station names survive every server's query parsing.
func percentEncodeQueryValue(_ value: String) -> String {
    var encoded = ""
    encoded.reserveCapacity(value.utf8.count)
    let hex = Array("0123456789ABCDEF".utf8)
    for byte in value.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            encoded.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            encoded.unicodeScalars.append("%")
            encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
            encoded.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
        }
    }
    return encoded
}
