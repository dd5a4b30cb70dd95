/// Characters drawn as nothing: a zero-width space or joiner, U+FEFF, a Hangul filler, a soft hyphen, a
/// variation selector (Unicode's default-ignorable code points). In a name they make a look-alike of a
/// real one (`종로구` and a zero-width space) that matches nothing stored. The one rule for names from the
/// network (`ServerVocabulary`) and from the operator (`DisplayName`, DustConfig).
public enum InvisibleText {
    /// The first scalar of `text` drawn as nothing, except a joiner or variation selector inside an emoji
    /// (`🌫️` is U+1F32B U+FE0F, a family is joined by U+200D), which belongs to what it follows.
    public static func first(in text: String) -> Unicode.Scalar? {
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            // ASCII and Hangul syllables, nearly all of every real name, are drawn.
            if scalar.value < 0x7F || (0xAC00...0xD7A3).contains(scalar.value) { continue }
            guard scalar.properties.isDefaultIgnorableCodePoint else { continue }
            if isEmojiJoiner(scalar), let previous, isEmojiPart(previous) { continue }
            return scalar
        }
        return nil
    }

    private static func isEmojiJoiner(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200D || (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value)
    }

    /// A pictograph (not `#`, a digit or `©`, which are emoji only with a selector), or a selector that ended one.
    private static func isEmojiPart(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.properties.isEmoji && scalar.value > 0xFF) || scalar.value == 0xFE0F
    }
}
