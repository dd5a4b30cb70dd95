/// Text that came from the network, made safe to log, store and print (docs/REFERENCE.md §15).
///
/// A hostile or broken server can put ESC sequences in an HTML title or a station name; printed
/// raw they retitle, clear or recolour the operator's terminal, and in the journal they forge
/// line breaks. Every C0 and C1 control character (and DEL) is replaced: tab, line feed and
/// carriage return by a space, the others by U+FFFD, so the operator still sees that something
/// was there. The line and paragraph separators (U+2028, U+2029), line breaks to some log viewers,
/// become a space too; Unicode's twelve bidirectional controls (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069), which make text display in another order than it reads, U+FFFD.
public enum TerminalSafeText {
    /// `text` with every control character replaced; the same string when there is none.
    public static func sanitized(_ text: String) -> String { sanitized(text, keepingLineFeeds: false) }

    /// `sanitized`, but with `keepingLineFeeds` a line feed stays (a CSV field's line breaks; a carriage
    /// return, which would send the terminal's cursor back over the line, still becomes a space).
    public static func sanitized(_ text: String, keepingLineFeeds: Bool) -> String {
        guard needsSanitizing(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepingLineFeeds: result.append(scalar)
            case 0x09, 0x0A, 0x0D, 0x2028, 0x2029: result.append(" ")
            case _ where isUnsafe(scalar): result.append("\u{FFFD}")
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// `text` with every character `sanitized` would replace written as an ASCII escape (`\x1B`,
    /// `\u202E`): for a name that is stored and typed back (an activity source named after a file),
    /// which must show what it holds and stay something a user can type.
    public static func escaped(_ text: String) -> String {
        guard needsSanitizing(text) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count == 1 ? "0" : "") + hex
            case _ where isUnsafe(scalar): result += "\\u" + codePoint(scalar).dropFirst(2)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// At most the first `limit` characters of `text`, for a message that quotes it, and whether that is
    /// all of it. A character is a grapheme cluster, which combining marks make as long as the sender
    /// likes (`e` and a million U+0301 are one character), so a count of characters alone bounds
    /// nothing: the characters shown hold at most `4 × limit` Unicode scalars (an emoji sequence is up
    /// to about ten; Korean syllables are one each), and a character that would pass that is left out
    /// with all after it.
    public static func prefix(_ text: String, characters limit: Int) -> (shown: Substring, isWhole: Bool) {
        let limit = max(0, limit)
        let scalarEnd = text.unicodeScalars.index(text.startIndex, offsetBy: 4 * limit, limitedBy: text.endIndex) ?? text.endIndex
        var end = text.startIndex
        var count = 0
        while count < limit, end < text.endIndex {
            let next = text.index(after: end)
            guard next <= scalarEnd else { break }
            end = next
            count += 1
        }
        return (text[..<end], end == text.endIndex)
    }

    /// `text` as a message quotes a name or a message from outside: `sanitized`, at most `limit`
    /// characters (`prefix`), and `…` where it was cut.
    public static func shown(_ text: String, characters limit: Int) -> String {
        let (shown, isWhole) = prefix(sanitized(text), characters: limit)
        return isWhole ? String(shown) : shown + "…"
    }

    /// `U+001B`, `U+200B`, `U+1F32B`: how a message names one scalar (at least four hex digits).
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// Whether a terminal or a log viewer acts on `scalar` instead of showing it: a C0 or C1 control,
    /// DEL, a line or paragraph separator, or a bidirectional control. The one list `sanitized`,
    /// `escaped` and the JSON documents' escaping (DustReports) go by.
    @inlinable
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether the UTF-8 `bytes` at `index` start a scalar `isUnsafe` names; reads at most three bytes.
    @inlinable
    public static func startsUnsafeScalar<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at index: Int) -> Bool
    where Bytes.Index == Int {
        let byte = bytes[index]
        if byte < 0x20 || byte == 0x7F { return true }
        guard byte == 0xC2 || byte == 0xD8 || byte == 0xE2, index + 1 < bytes.endIndex else { return false }
        let second = bytes[index + 1]
        switch byte {
        case 0xC2: return (0x80...0x9F).contains(second)  // C1 controls
        case 0xD8: return second == 0x9C  // U+061C
        default:
            guard index + 2 < bytes.endIndex else { return false }
            let third = bytes[index + 2]
            // U+200E, U+200F, U+2028…U+202E are E2 80 8E, 8F, A8…AE; U+2066…U+2069 are E2 81 A6…A9.
            return second == 0x80 && (third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third))
                || second == 0x81 && (0xA6...0xA9).contains(third)
        }
    }

    /// True when `text` holds a character `sanitized` would replace; checks UTF-8 bytes only.
    public static func needsSanitizing(_ text: String) -> Bool {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            bytes.indices.contains { startsUnsafeScalar(bytes, at: $0) }
        }
        return text.utf8.withContiguousStorageIfAvailable(scan) ?? Array(text.utf8).withUnsafeBufferPointer(scan)
    }
}
