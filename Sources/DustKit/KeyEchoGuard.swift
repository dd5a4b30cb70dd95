import Foundation

/// Recognises the service key in a text the way a reader would see it, whatever encoding an echo
/// gave it, so no text holding it is stored or shown (docs/ARCHITECTURE.md, "The key never comes back").
///
/// A text is looked at as a reader sees it: HTML/XML character references decoded (named, decimal
/// and hex, any number of leading zeros, with or without `;`), percent-decoding repeated until
/// nothing changes (`+` is a space), Unicode compatibility forms folded (full-width letters,
/// accents; letters that read as Latin letters or digits by their confusable skeleton or their
/// name), each stage also with its markup removed as a page shows it (comments, processing
/// instructions, tags, CDATA brackets), and then only its ASCII letters and digits kept, case
/// ignored. White space, punctuation, line breaks, markup: none of them hide a key from a reader,
/// so none of them hide it here.
/// A text holding any `windowLength` consecutive letters and digits of the key (in its decoded or
/// its percent-encoded form) is an echo; a key shorter than that must occur whole.
public struct KeyEchoGuard: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What stands in for a text that echoed the key: nothing of the text is kept.
    public static let withheldText = "(withheld: the server echoed the service key in this text)"
    /// How many consecutive letters and digits of the key make an echo.
    public static let windowLength = 12
    /// Decoding rounds before a text that keeps decoding is treated as an echo: a real message
    /// settles in one or two, and a text encoded deeper than this is hiding something.
    static let maxRounds = 16
    /// A guard for a key that is not known: nothing echoes.
    public static let none = KeyEchoGuard(keyForms: [])

    /// Every `length`-long run of the key's letters and digits, packed base 36.
    private let windows: [Int: Set<UInt64>]
    /// The fewest letters and digits an echo can have.
    private let shortestWindow: Int

    /// - Parameter keyForms: the key as pasted and as sent (its "decoding" and "encoding" forms).
    public init(keyForms: [String]) {
        var windows: [Int: Set<UInt64>] = [:]
        for form in keyForms {
            _ = Self.readerStages(of: form) { letters in
                guard !letters.isEmpty else { return false }
                let length = min(Self.windowLength, letters.count)
                Self.forEachWindow(of: letters, length: length) {
                    windows[length, default: []].insert($0)
                    return false
                }
                return false
            }
        }
        self.windows = windows
        shortestWindow = windows.keys.min() ?? .max
    }

    /// True when a reader would find the key (or `windowLength` letters and digits of it) in `text`.
    public func echoes(_ text: String) -> Bool {
        guard !windows.isEmpty, !hasTooFewLetters(text) else { return false }
        return Self.readerStages(of: text) { letters in contains(letters) }
    }

    /// `text`, or `withheldText` when it echoes the key.
    public func checked(_ text: String) -> String {
        echoes(text) ? Self.withheldText : text
    }

    /// `text`, or `withheldText` when it echoes the key; nil stays nil.
    public func checked(_ text: String?) -> String? {
        text.map(checked)
    }

    /// True when the bytes hold `windowLength` of the key's letters and digits as they are, without
    /// decoding anything: for searching whole files (a database, its WAL) where the key would be
    /// stored raw, percent-encoded or JSON-escaped.
    public func occursUndecoded(in bytes: some Sequence<UInt8>) -> Bool {
        guard !windows.isEmpty else { return false }
        return contains(Self.lettersAndDigits(bytes))
    }

    /// True for a text that nothing can decode or fold (no `&`, `%`, `<`; only ASCII and Hangul
    /// syllables) with fewer letters and digits than an echo needs: most station names and values.
    private func hasTooFewLetters(_ text: String) -> Bool {
        var letters = 0
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                if scalar == "&" || scalar == "%" || scalar == "<" { return false }
                if scalar.properties.isASCIIHexDigit || ("g"..."z").contains(scalar) || ("G"..."Z").contains(scalar) { letters += 1 }
            } else if !(0xAC00...0xD7A3).contains(scalar.value) {
                return false
            }
        }
        return letters < shortestWindow
    }

    private func contains(_ letters: [UInt8]) -> Bool {
        windows.contains { length, set in
            Self.forEachWindow(of: letters, length: length) { set.contains($0) }
        }
    }

    public var description: String { "KeyEchoGuard(***)" }
    public var debugDescription: String { "KeyEchoGuard(***)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    // MARK: - The reader's view

    /// Calls `visit` with the letters and digits (base-36 values) of `text` at each decoding stage,
    /// from the text as it is to the text that no longer changes; stops when `visit` says so.
    /// Returns true when `visit` did, or when the text had not settled after `maxRounds`.
    static func readerStages(of text: String, _ visit: ([UInt8]) -> Bool) -> Bool {
        textStages(of: text) { visit(lettersAndDigits($0)) }
    }

    /// True when a reader would see a Latin letter anywhere in `text`, at any stage of decoding and
    /// folding (`Ａ`, `&#65;`, `%41`, `🅰`, Cyrillic `а`): what a field whose real values are Korean
    /// words and numbers (a station's name, its address, a 권역) never holds.
    public static func showsLatinLetter(_ text: String) -> Bool {
        // Hangul syllables, digits and ASCII punctuation that decodes nothing (a station's name, most
        // addresses): nothing to fold or decode, so no letter can appear.
        var plain = true
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                let byte = UInt8(scalar.value)
                if isASCIILetter(byte) { return true }
                if byte == UInt8(ascii: "&") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "<") { plain = false }
            } else if !isHangulSyllable(scalar) {
                plain = false
            }
        }
        if plain { return false }
        return textStages(of: text) { stage in stage.contains(where: isASCIILetter) }
    }

    /// How many Latin letters a reader would see in `text` at the stage of decoding and folding that
    /// shows the most (`showsLatinLetter`'s rule, counted: `Ａ`, `𝐤`, `ⓚ`, Cyrillic `а` are letters);
    /// `Int.max` for a text that had not settled after `maxRounds`.
    public static func latinLetterCount(_ text: String) -> Int {
        var most = 0
        let unsettled = textStages(of: text) { stage in
            most = max(most, stage.count(where: isASCIILetter))
            return false
        }
        return unsettled ? Int.max : most
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A }

    /// Calls `visit` with `text` at each decoding stage (folded, and with its markup removed), from
    /// the text as it is to the text that no longer changes; stops when `visit` says so. Returns
    /// true when `visit` did, or when the text had not settled after `maxRounds`.
    private static func textStages(of text: String, _ visit: ([UInt8]) -> Bool) -> Bool {
        var current = folded(Array(text.utf8))
        func seen(_ stage: [UInt8]) -> Bool {
            visit(stage) || (stage.contains(UInt8(ascii: "<")) && visit(withoutMarkup(stage)))
        }
        if seen(current) { return true }
        for _ in 0..<maxRounds {
            let decoded = percentDecoded(referencesDecoded(current))
            if decoded == current { return false }
            let next = folded(decoded)
            if next == current { return false }
            if seen(next) { return true }
            current = next
        }
        return true
    }

    /// The text as a browser shows it: comments, processing instructions and tags removed, CDATA
    /// brackets removed and their content kept. A `<` that starts none of these is kept.
    static func withoutMarkup(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        func starts(_ text: StaticString, at position: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            return (0..<count).allSatisfy { bytes[position + $0] == text.utf8Start[$0] }
        }
        /// The index after the first `terminator` from `position`, or the end.
        func after(_ terminator: StaticString, from position: Int) -> Int {
            var search = position
            while search < bytes.count, !starts(terminator, at: search) { search += 1 }
            return min(bytes.count, search + terminator.utf8CodeUnitCount)
        }
        // Where the next `>` is, found once and reused until passed: a text of many `<a` and no `>`
        // is read once, not once for each `<`.
        var nextClose: Int? = bytes.firstIndex(of: UInt8(ascii: ">"))
        func closing(after position: Int) -> Int? {
            if let found = nextClose, found < position {
                nextClose = bytes[position...].firstIndex(of: UInt8(ascii: ">"))
            }
            return nextClose
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if starts("<!--", at: index) {
                    index = after("-->", from: index + 4)
                } else if starts("<![CDATA[", at: index) {
                    index += 9
                } else if next == UInt8(ascii: "?") {
                    index = after("?>", from: index + 2)
                } else if next == UInt8(ascii: "/") || next == UInt8(ascii: "!") || next | 0x20 >= 0x61 && next | 0x20 <= 0x7A,
                    let close = closing(after: index)
                {
                    index = close + 1
                } else {
                    result.append(byte)
                    index += 1
                }
            } else if starts("]]>", at: index) {
                index += 3
            } else {
                result.append(byte)
                index += 1
            }
        }
        return result
    }

    /// A character as a reader reads it: NFKD first (full-width and mathematical letters become
    /// ASCII, accents come apart from their letter), then each character left outside ASCII that a
    /// reader takes for a Latin letter or a digit becomes that letter: by Unicode's confusable
    /// skeletons (UTS #39: Cyrillic а, Greek Α, Cherokee Ꭺ; `ConfusableLetters`), else by its name
    /// (`namedReading`: 🅰, ᴀ, 🇦, ❶, ⓫). A text of ASCII and Hangul syllables only (station names,
    /// most forecast text) is left as it is, which spares most texts the work; in any other, the
    /// jamo NFKD makes of each syllable pass through as they are.
    static func folded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: { $0 >= 0x80 }) else { return bytes }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.unicodeScalars.contains(where: { !$0.isASCII && !isHangulSyllable($0) }) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            // NFKD takes Hangul syllables apart into jamo: letters of no Latin reading, kept as they are.
            if scalar.isASCII || isHangulSyllable(scalar) || isHangulJamo(scalar) {
                result.append(contentsOf: String(scalar).utf8)
            } else if let letters = ConfusableLetters.table[scalar.value] ?? namedReading(scalar) {
                result.append(contentsOf: letters.utf8)
            } else {
                result.append(contentsOf: String(scalar).utf8)
            }
        }
        return result
    }

    private static func isHangulSyllable(_ scalar: Unicode.Scalar) -> Bool { (0xAC00...0xD7A3).contains(scalar.value) }

    /// Hangul jamo, conjoining and compatibility (what NFKD makes of a syllable, and ㄱ, ㅎ).
    private static func isHangulJamo(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF: true
        default: false
        }
    }

    /// The Latin letter or the digits a character's Unicode name says it shows, whatever frames or
    /// colours it: `NEGATIVE SQUARED LATIN CAPITAL LETTER A`, `LATIN LETTER SMALL CAPITAL A`,
    /// `LATIN SMALL LETTER A WITH STROKE`, `REGIONAL INDICATOR SYMBOL LETTER A`, `TAG LATIN CAPITAL
    /// LETTER A` → `a`; `DINGBAT NEGATIVE CIRCLED DIGIT ONE` → `1`; `NEGATIVE CIRCLED NUMBER ELEVEN` → `11`.
    static func namedReading(_ scalar: Unicode.Scalar) -> String? {
        // Punctuation, spaces and math, currency and modifier symbols are never read as a letter or a
        // digit (`·`, `∼`, `–`): their names are not looked at. Nor are marks (`µ`'s accent), but for
        // those drawn as a Latin letter above the character before (`COMBINING LATIN SMALL LETTER A`,
        // U+0363): on a space, each shows its letter as plainly as `a` does.
        let isMark: Bool
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .spaceSeparator, .lineSeparator, .paragraphSeparator, .mathSymbol,
            .currencySymbol, .modifierSymbol, .control, .surrogate, .unassigned:
            return nil
        case .nonspacingMark, .spacingMark, .enclosingMark: isMark = true
        default: isMark = false
        }
        // A Cyrillic letter drawn above the character before reads as the letter drawn (`а` as `a`).
        if isMark, let letter = combiningCyrillic[scalar.value] { return ConfusableLetters.table[letter] }
        guard let name = scalar.properties.name else { return nil }
        let words = name.split(separator: " ")
        if let letter = words.firstIndex(of: "LETTER"), words.contains("LATIN") || (!isMark && words.contains("REGIONAL")) {
            // The letter is the first word of one or two letters after LETTER, before any WITH: the words
            // between say how it is drawn (`LATIN LETTER SMALL CAPITAL A`, `LATIN SMALL LETTER DOTLESS J`,
            // `LATIN CAPITAL LETTER SMALL Q WITH HOOK TAIL`, `COMBINING LATIN SMALL LETTER FLATTENED OPEN A
            // ABOVE`); two are a ligature read as both (`LATIN SMALL LETTER AE`, `… DZ WITH CARON`).
            for word in words[(letter + 1)...].prefix(while: { $0 != "WITH" }) where word.utf8.count <= 2 {
                guard word.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { continue }
                return word.lowercased()
            }
            return nil
        }
        if isMark { return nil }
        if let digit = words.firstIndex(of: "DIGIT"), digit + 1 < words.count, let value = numberNames.firstIndex(of: words[digit + 1]),
            value < 10
        {
            return String(value)
        }
        if let number = words.firstIndex(of: "NUMBER"), number + 1 < words.count,
            let value = numberNames.firstIndex(of: words[number + 1])
        {
            return String(value)
        }
        return nil
    }

    /// The combining Cyrillic letters (U+2DE0–2DFF, U+A674–A67B) to the letters they draw, where a reader
    /// could take one for a Latin letter or a digit (`ConfusableLetters` says which).
    private static let combiningCyrillic: [UInt32: UInt32] = [
        0x2DE0: 0x0431, 0x2DE1: 0x0432, 0x2DE2: 0x0433, 0x2DE3: 0x0434, 0x2DE4: 0x0436, 0x2DE5: 0x0437, 0x2DE6: 0x043A, 0x2DE7: 0x043B,
        0x2DE8: 0x043C, 0x2DE9: 0x043D, 0x2DEA: 0x043E, 0x2DEB: 0x043F, 0x2DEC: 0x0440, 0x2DED: 0x0441, 0x2DEE: 0x0442, 0x2DEF: 0x0445,
        0x2DF0: 0x0446, 0x2DF1: 0x0447, 0x2DF2: 0x0448, 0x2DF3: 0x0449, 0x2DF4: 0x0473, 0x2DF6: 0x0430, 0x2DF7: 0x0435, 0x2DFB: 0x044E,
        0xA674: 0x0454, 0xA675: 0x0456, 0xA676: 0x0457, 0xA677: 0x0443, 0xA679: 0x044B, 0xA67A: 0x044C,
    ]

    private static let numberNames: [Substring] = [
        "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN", "TWELVE", "THIRTEEN",
        "FOURTEEN", "FIFTEEN", "SIXTEEN", "SEVENTEEN", "EIGHTEEN", "NINETEEN", "TWENTY",
    ]

    /// ASCII letters and digits as base-36 values (`0`…`9`, then `a`/`A`…`z`/`Z`); everything else
    /// dropped. Letters a reader cannot tell apart are one: `I`, `l` and `1` (UTS #39's skeletons
    /// give `l` for all three), `O` and `0`.
    static func lettersAndDigits(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var letters: [UInt8] = []
        for byte in bytes {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A") + 10
            default: continue
            }
            letters.append(lookAlike[Int(value)])
        }
        return letters
    }

    /// Base-36 value to the value of the letter it is read as (`i` and `l` as `1`, `o` as `0`).
    private static let lookAlike: [UInt8] = (0..<36).map { value in
        switch value {
        case 18, 21: 1  // i, l
        case 24: 0  // o
        default: UInt8(value)
        }
    }

    /// Calls `body` with every `length`-long run of `letters` packed base 36 (36¹² < 2⁶⁴); true as
    /// soon as `body` is.
    private static func forEachWindow(of letters: [UInt8], length: Int, _ body: (UInt64) -> Bool) -> Bool {
        guard length > 0, letters.count >= length else { return false }
        var high: UInt64 = 1
        for _ in 1..<length { high *= 36 }
        var packed: UInt64 = 0
        for (index, letter) in letters.enumerated() {
            packed = (packed % high) * 36 + UInt64(letter)
            if index >= length - 1, body(packed) { return true }
        }
        return false
    }

    /// `%hh` decoded once, upper- or lower-case hex; a `%` without two hex digits kept.
    public static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// Character references decoded once, as a browser would: `&#82;`, `&#000000082;`, `&#X52;`,
    /// `&#x000000052;`, `&plus;`, `&Aopf;`, legacy `&amp` without `;`. Anything else kept.
    static func referencesDecoded(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "&")) else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), let (text, length) = reference(in: bytes, at: index) {
                result.append(contentsOf: text.utf8)
                index += length
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// The text the reference at `start` (an `&`) stands for, and its length in bytes.
    private static func reference(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        var index = start + 1
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "#") {
            index += 1
            let hex = index < bytes.count && bytes[index] | 0x20 == UInt8(ascii: "x")
            if hex { index += 1 }
            var value: UInt32 = 0
            var digits = 0
            while index < bytes.count, let digit = hex ? hexValue(bytes[index]) : decimalValue(bytes[index]) {
                // Past U+10FFFF it is no character; keep reading the digits, remember only that.
                value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + UInt32(digit)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ";") { index += 1 }
            let scalar = value == 0 ? nil : Unicode.Scalar(value)
            return (String(scalar ?? "\u{FFFD}"), index - start)
        }
        var nameEnd = index
        while nameEnd < bytes.count, nameEnd - index < HTMLCharacterReferences.longestName, isASCIIAlphanumeric(bytes[nameEnd]) {
            nameEnd += 1
        }
        guard nameEnd > index else { return nil }
        let name = String(decoding: bytes[index..<nameEnd], as: UTF8.self)
        if nameEnd < bytes.count, bytes[nameEnd] == UInt8(ascii: ";"), let text = HTMLCharacterReferences.table[name + ";"] {
            return (text, nameEnd + 1 - start)
        }
        // Legacy references (`&amp`, `&lt`, `&sup2`) need no `;`: the longest that fits wins.
        var prefix = Substring(name)
        while !prefix.isEmpty {
            if let text = HTMLCharacterReferences.table[String(prefix)] { return (text, 1 + prefix.utf8.count) }
            prefix = prefix.dropLast()
        }
        return nil
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    private static func decimalValue(_ byte: UInt8) -> UInt8? {
        byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? { SecretScrubber.hexValue(byte) }
}

/// Says whether a text echoes a service key: what each door out of dustd (a log line, a page or an
/// API document, `STATUS=`) asks of the whole text it is about to let out. `KeyEchoGuard` for one
/// key; dustd's `SecretRedactor` for every key it has loaded (a reload may bring another).
public protocol EchoDetector: Sendable {
    func echoes(_ text: String) -> Bool
}

extension KeyEchoGuard: EchoDetector {}
