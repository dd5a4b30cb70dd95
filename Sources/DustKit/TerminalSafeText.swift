/// Text that came from the network, made safe to log, store and print (docs/REFERENCE.md §15).
///
/// A hostile or broken server can put ESC sequences in an HTML title or a station name; printed
/// raw they retitle, clear or recolour the operator's terminal, and in the journal they forge
/// line breaks. Every C0 and C1 control character (and DEL) is replaced: tab, line feed and
/// carriage return by a space, the others by U+FFFD, so the operator still sees that something
/// was there. Bidirectional overrides (U+202A–U+202E, U+2066–U+2069), which make text display in
/// another order than it reads, are replaced by U+FFFD too.
public enum TerminalSafeText {
    /// `text` with every control character replaced; the same string when there is none.
    public static func sanitized(_ text: String) -> String {
        guard needsSanitizing(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: result.append(" ")
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: result.append("\u{FFFD}")
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
            case 0x202A...0x202E, 0x2066...0x2069: result += "\\u" + String(scalar.value, radix: 16, uppercase: true)
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

    /// True when `text` holds a character `sanitized` would replace; checks UTF-8 bytes only.
    public static func needsSanitizing(_ text: String) -> Bool {
        var utf8 = text.utf8.makeIterator()
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        while let byte = utf8.next() {
            if byte < 0x20 || byte == 0x7F { return true }
            // C1 controls are C2 80…C2 9F; U+202A…U+202E are E2 80 AA…AE; U+2066…U+2069 are E2 81 A6…A9.
            if previous == 0xC2, (0x80...0x9F).contains(byte) { return true }
            if beforePrevious == 0xE2, previous == 0x80, (0xAA...0xAE).contains(byte) { return true }
            if beforePrevious == 0xE2, previous == 0x81, (0xA6...0xA9).contains(byte) { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
    }
}
