/// What AirKorea's fields can hold where the API has a closed list (result codes and their
/// messages) or an alphabet (flags, names, 시도 and addresses are Korean words and numbers): a value outside it is not echoed but
/// stored and shown as `unknownValue`, and counted (docs/ARCHITECTURE.md, "The key never comes
/// back"). A text split over fields that each hold a piece of the service key is so never shown.
public enum ServerVocabulary {
    /// What stands in for a value outside its field's vocabulary.
    public static let unknownValue = "(unknown value)"

    /// True for a text a field of Korean words and numbers can hold: no Latin letter, in any form
    /// a reader would see one (`KeyEchoGuard.showsLatinLetter`), and nothing a reader cannot see: no
    /// control but white space (`TerminalSafeText.isUnsafe`) and nothing drawn as nothing
    /// (`InvisibleText`), which would make `종로구` and a look-alike two names. Nor U+FFFD: a field's text
    /// arrives with each unsafe character and each invalid UTF-8 byte already replaced by it
    /// (`TerminalSafeText.sanitized`), so `종로구` and a bidirectional control was `종로구\u{FFFD}`, a name of
    /// its own, and no real AirKorea text holds one.
    ///
    /// Nor a combining mark: AirKorea's texts are precomposed Hangul, digits and punctuation, and marks
    /// stacked on a character draw over the lines around it (or, `COMBINING LATIN SMALL LETTER A`, a
    /// letter). Nor a text longer than `characters`: AirKorea's longest (an address, a result message)
    /// are under 60 characters, and a station's name is one an operator can give (`--station`, 64).
    public static func isKoreanText(_ text: String, atMost characters: Int = maxCharacters) -> Bool {
        // At most four scalars a character, as a name an operator gives (`DisplayName`): decomposed Hangul
        // takes three. Four bytes a scalar bound the bytes looked at.
        guard text.utf8.count <= 16 * characters else { return false }
        // Hangul syllables, printable ASCII and white space (nearly every text of AirKorea's, read for every
        // item of a poll) are neither unsafe nor marks, and each is a character of its own.
        var scalars = 0
        var plain = true
        for scalar in text.unicodeScalars {
            scalars += 1
            if scalars > 4 * characters { return false }
            switch scalar.value {
            case 0xAC00...0xD7A3, 0x20...0x7E, 0x09...0x0D: continue
            default:
                if TerminalSafeText.isUnsafe(scalar) || scalar == "\u{FFFD}" || isMark(scalar) { return false }
                plain = false
            }
        }
        guard (plain ? scalars : text.count) <= characters else { return false }
        // Where the key was, redacted before the text was read: no word of AirKorea's, and no flag to show on every hour.
        if text.utf8.contains(UInt8(ascii: "*")), text.contains(SecretScrubber.placeholder) { return false }
        return InvisibleText.first(in: text) == nil && !KeyEchoGuard.showsLatinLetter(text)
    }

    /// The most characters of a field of Korean words (an address, a 시도, a flag, a result message).
    public static let maxCharacters = 200
    /// The most characters of a station's name: as many as an operator may give one (`DisplayName`).
    public static let maxNameCharacters = 64

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }
}
