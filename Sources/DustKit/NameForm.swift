import Foundation

/// One byte form for a name that comes from outside (a station, a person, an activity source): Unicode
/// Normalization Form C, the precomposed Hangul every Korean keyboard types and AirKorea sends.
///
/// A Mac writes file names, and so whatever is copied from them, in decomposed Hangul (NFD: 종로구 as
/// seven conjoining jamo). Swift's `==`, `Set` and `Dictionary` take the two forms for one text, but
/// SQL's `=` and AirKorea's query string compare bytes: a decomposed name passed every check written
/// in Swift, then matched nothing stored, or was stored as a second station, person or source beside
/// the first (docs/RELIABILITY.md, "The identity of names"). Every name is brought to this form where
/// it comes in (the settings, dustctl's arguments, file names, the web's `?person=`, AirKorea's
/// answers), so each is one string of bytes everywhere after.
public enum NameForm {
    /// `text` in Normalization Form C.
    public static func composed(_ text: String) -> String {
        // Decomposed first: Foundation's composition on Linux leaves a syllable followed by a final jamo
        // (가 + ᆨ) as it is, where NFC makes one syllable (각); from the jamo alone it composes all three.
        isComposed(text) ? text : text.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping
    }

    /// A name as given from outside (`--person`, `--station`, `?person=`): trimmed of white space (a no-break space,
    /// U+3000 and U+200B included) and composed, as the settings' names are where they are read.
    public static func given(_ text: String) -> String { composed(text.trimmingWhiteSpace) }

    /// The fully decomposed form (NFD): how a Mac's file name spells `text`. The one other form a
    /// stored name can have been written in before names were composed where they come in.
    public static func decomposed(_ text: String) -> String {
        // ASCII only: Latin-1 and its extensions below U+0300 decompose (é is e and U+0301).
        text.unicodeScalars.allSatisfy(\.isASCII) ? text : text.decomposedStringWithCanonicalMapping
    }

    /// `text` composed, then decomposed when those are other bytes: the forms a name may be stored in
    /// (a FineDust before names were composed where they come in stored a Mac's as given). Not a
    /// `Set`: Swift's takes the two for one string.
    public static func storedForms(of text: String) -> [String] {
        let (composed, decomposed) = (composed(text), decomposed(text))
        return composed.utf8.elementsEqual(decomposed.utf8) ? [composed] : [composed, decomposed]
    }

    /// Whether `text` is certainly in NFC already, so that it need not be copied: every scalar is one
    /// that NFC leaves as it is and that joins nothing before it (no combining mark, no jamo). The names
    /// FineDust meets are nearly all so: Latin, precomposed Hangul, CJK ideographs, punctuation such as
    /// the ’ of "Jiho’s Apple Watch", fullwidth forms, emoji. Anything else is normalized by Foundation.
    public static func isComposed(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0..<0x300,  // Latin, Latin-1 and its extensions: no combining mark below U+0300
                0x2002...0x206F,  // general punctuation (U+2000 and U+2001 are NFC's U+2002 and U+2003)
                0x3000...0x3029, 0x3030...0x303F,  // CJK punctuation, without its combining marks
                0x4E00...0x9FFF,  // CJK ideographs (not the compatibility ones, which NFC replaces)
                0xAC00...0xD7A3,  // precomposed Hangul syllables
                0xFE00...0xFE0F, 0xFF00...0xFFEF,  // variation selectors, fullwidth and halfwidth forms
                0x1F000...0x1FAFF:  // emoji and pictographs
                true
            default: false
            }
        }
    }
}
