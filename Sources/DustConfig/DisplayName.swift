import DustKit

/// A name FineDust shows on terminals, pages and in the journal, given by the operator (a station in
/// `station.name`, `station.fallbacks`, a person's `station`, `advisories.area`, or dustctl's
/// `--station`): what it may not be.
public enum DisplayName {
    /// The most characters a name may have: AirKorea's longest station name is a dozen.
    public static let maxCharacters = 64

    /// Why `text` cannot be a name, as the end of a sentence ("holds …"); nil when it can. A control
    /// character (C0, C1, DEL, a line separator, a bidirectional control) is refused rather than shown,
    /// since printed it could retitle or clear the terminal or reorder what the reader sees; so is a
    /// character drawn as nothing (a zero-width space, U+FEFF), which makes a look-alike of a real name
    /// that matches nothing stored; and a name longer than any station's.
    public static func problem(in text: String) -> String? {
        if let scalar = text.unicodeScalars.first(where: { TerminalSafeText.isUnsafe($0) || isInvisible($0) }) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            let kind = TerminalSafeText.isUnsafe(scalar) ? "the control character" : "the invisible character"
            return "holds \(kind) \(code) (\"\(TerminalSafeText.shown(text, characters: 80))\"); write the name without it"
        }
        if text.count > maxCharacters || text.unicodeScalars.count > 4 * maxCharacters {
            return
                "is \(text.count) characters long (\"\(TerminalSafeText.shown(text, characters: 40))\"); a name has at most \(maxCharacters)"
        }
        return nil
    }

    /// Drawn as nothing, and not part of an emoji (`🌫️` holds the variation selector U+FE0F, a family
    /// the joiner U+200D): a zero-width space, U+FEFF, a Hangul filler, a soft hyphen.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.properties.isDefaultIgnorableCodePoint else { return false }
        return !(scalar.value == 0x200D || (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value))
    }
}
