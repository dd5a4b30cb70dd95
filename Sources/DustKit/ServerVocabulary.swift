/// What AirKorea's fields can hold where the API has a closed list (result codes and their
/// messages) or an alphabet (flags, names, 시도 and addresses are Korean words and numbers): a value outside it is not echoed but
/// stored and shown as `unknownValue`, and counted (docs/ARCHITECTURE.md, "The key never comes
/// back"). A text split over fields that each hold a piece of the service key is so never shown.
public enum ServerVocabulary {
    /// What stands in for a value outside its field's vocabulary.
    public static let unknownValue = "(unknown value)"

    /// True for a text a field of Korean words and numbers can hold: no Latin letter, in any form
    /// a reader would see one (`KeyEchoGuard.showsLatinLetter`).
    public static func isKoreanText(_ text: String) -> Bool {
        !KeyEchoGuard.showsLatinLetter(text)
    }
}
