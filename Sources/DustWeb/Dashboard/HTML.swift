import DustKit

/// The one escaping function of every page dustd serves.
public enum HTMLEscaping {
    /// `text` made safe for HTML text and for double- or single-quoted attribute values: `&`, `<`,
    /// `>`, `"` and `'` become character references, and control characters (which HTML forbids and
    /// network text should not carry) and bidirectional controls (which would show the rest of a
    /// line in another order: `TerminalSafeText.isUnsafe`) become U+FFFD, the line separators a space.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case "\u{2028}", "\u{2029}": escaped += " "
            case _ where TerminalSafeText.isUnsafe(scalar): escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}

/// Markup that is safe to put in a page.
///
/// String literals inside an `HTML` literal are markup written in this module; every interpolated
/// `String` is escaped on the way in, so text from the network or the database cannot become markup
/// by forgetting a call. Interpolate `HTML` to nest markup built the same way. A literal that Swift
/// types as `String` (a ternary of two literals, a `let` without a type) is text and comes out
/// escaped, so markup there needs an explicit `HTML` type; the tests parse every page as XML to catch it.
struct HTML: Sendable, ExpressibleByStringInterpolation {
    private(set) var markup: String

    init(stringLiteral literal: String) {
        markup = literal
    }

    init(stringInterpolation: StringInterpolation) {
        markup = stringInterpolation.markup
    }

    /// Pieces one after another.
    init(_ pieces: [HTML]) {
        markup = pieces.map(\.markup).joined()
    }

    /// Markup written in this module and kept in a constant (the style sheet): not escaped.
    init(trustedMarkup: String) {
        markup = trustedMarkup
    }

    static let empty: HTML = ""

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) {
            markup += literal
        }

        /// Text: escaped.
        mutating func appendInterpolation(_ text: String) {
            markup += HTMLEscaping.escape(text)
        }

        mutating func appendInterpolation(_ value: Int) {
            markup += String(value)
        }

        mutating func appendInterpolation(_ html: HTML) {
            markup += html.markup
        }

        mutating func appendInterpolation(_ pieces: [HTML]) {
            for piece in pieces { markup += piece.markup }
        }
    }
}
