/// What AirKorea's fields can hold where the API has a closed list (result codes and their
/// messages) or an alphabet (flags, names, 시도 and addresses are Korean words and numbers): a value outside it is not echoed but
/// stored and shown as `unknownValue`, and counted (docs/ARCHITECTURE.md, "The key never comes
/// back"). A text split over fields that each hold a piece of the service key is so never shown.
public enum ServerVocabulary {
    /// What stands in for a value outside its field's vocabulary.
    public static let unknownValue = "(unknown value)"

    /// True for a text a field of Korean words and numbers can hold: no Latin letter, in any form
    /// a reader would see one (`KeyEchoGuard.showsLatinLetter`), and nothing a reader cannot see: no
    /// control (`TerminalSafeText.isUnsafe`) and no character Unicode says is drawn as nothing
    /// (zero-width spaces and joiners, U+FEFF, Hangul fillers, variation selectors), which would
    /// make `종로구` and a look-alike two names.
    public static func isKoreanText(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isInvisible) && !KeyEchoGuard.showsLatinLetter(text)
    }

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII's white space and printable characters, and Hangul syllables, nearly all of every
        // real field, are neither.
        if (0x09...0x0D).contains(scalar.value) || (0x20...0x7E).contains(scalar.value) || (0xAC00...0xD7A3).contains(scalar.value) {
            return false
        }
        return TerminalSafeText.isUnsafe(scalar) || scalar.properties.isDefaultIgnorableCodePoint
    }
}
