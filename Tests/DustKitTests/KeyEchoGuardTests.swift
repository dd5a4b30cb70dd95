import DustKit
import Foundation
import Testing

/// A key shaped like data.go.kr's: 96 characters of base64 with `+`, `/` and `=`.
private let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="

/// Every byte but RFC 3986's unreserved ones as `%HH`: the key as it is sent.
private func percentEncoded(_ text: String) -> String {
    text.utf8.map { byte in
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            String(UnicodeScalar(byte))
        default:
            "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
    }.joined()
}

/// `character` drawn from a block whose capitals start at `capital` (its small letters drawn as the
/// capitals: 🅰 and 🇦 have no small forms); digits as they are.
private func lettersFramed(_ character: Character, capital: UInt32) -> String {
    guard let ascii = character.asciiValue, character.isLetter else { return String(character) }
    let offset = UInt32(ascii | 0x20) - 0x61
    return String(UnicodeScalar(capital + offset)!)
}

/// A letter or digit from a block with capitals, small letters and digits of its own.
private func framed(_ character: Character, capital: UInt32, small: UInt32, digit: UInt32) -> String {
    guard let ascii = character.asciiValue else { return String(character) }
    switch ascii {
    case 0x41...0x5A: return String(UnicodeScalar(capital + UInt32(ascii) - 0x41)!)
    case 0x61...0x7A: return String(UnicodeScalar(small + UInt32(ascii) - 0x61)!)
    case 0x30...0x39: return String(UnicodeScalar(digit + UInt32(ascii) - 0x30)!)
    default: return String(character)
    }
}

/// Small capitals where Unicode has one (ᴀ U+1D00…), dingbat negative circled digits (❶ U+2776…; ⓿ for 0).
private func smallCapitalsAndDingbats(_ character: Character) -> String {
    let smallCapitals: [Character: String] = [
        "a": "ᴀ", "b": "ʙ", "c": "ᴄ", "d": "ᴅ", "e": "ᴇ", "g": "ɢ", "h": "ʜ", "i": "ɪ", "j": "ᴊ", "k": "ᴋ", "l": "ʟ", "m": "ᴍ",
        "n": "ɴ", "o": "ᴏ", "p": "ᴘ", "r": "ʀ", "s": "ꜱ", "t": "ᴛ", "u": "ᴜ", "v": "ᴠ", "w": "ᴡ", "y": "ʏ", "z": "ᴢ",
    ]
    guard let ascii = character.asciiValue else { return String(character) }
    if character.isNumber { return ascii == 0x30 ? "⓿" : String(UnicodeScalar(0x2776 + UInt32(ascii) - 0x31)!) }
    return smallCapitals[Character(character.lowercased())] ?? String(character)
}

private func cyrillicAndGreek(_ character: Character) -> String {
    [
        "a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "A": "Α", "B": "Β", "E": "Ε", "H": "Η", "K": "Κ", "O": "Ο",
        "T": "Τ", "X": "Χ", "M": "Μ", "N": "Ν",
    ][character] ?? String(character)
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }

    /// The text cut into `parts` pieces joined by `separator`.
    func split(into parts: Int, joinedBy separator: String) -> String {
        let size = (count + parts - 1) / parts
        return stride(from: 0, to: count, by: size).map { start in
            let from = index(startIndex, offsetBy: start)
            return String(self[from..<(index(from, offsetBy: size, limitedBy: endIndex) ?? endIndex)])
        }.joined(separator: separator)
    }

    func mapCharacters(_ transform: (Character) -> String) -> String { map(transform).joined() }
}

@Suite(
    "KeyEchoGuard: the key is found in a text as a reader sees it, in any form, and the text is withheld whole", .timeLimit(.minutes(10)))
struct KeyEchoGuardTests {
    let echoGuard = KeyEchoGuard(keyForms: [key, percentEncoded(key)])
    static let encoded = percentEncoded(key)
    static let lettersAndDigits = key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }

    static let echoes: [(String, String)] = [
        ("raw", "error: key \(key) rejected"),
        ("sent form, upper-case hex", "GET /x?serviceKey=\(encoded)&pageNo=1"),
        (
            "sent form, lower-case hex",
            encoded.replacingOccurrences(of: "%2B", with: "%2b").replacingOccurrences(of: "%2F", with: "%2f")
                .replacingOccurrences(of: "%3D", with: "%3d")
        ),
        ("split over 3 empty comments", key.split(into: 4, joinedBy: "<!---->")),
        ("split over 13 comments with words in them", key.split(into: 14, joinedBy: "<!-- not this -->")),
        ("split by CDATA sections", "<![CDATA[" + key.split(into: 14, joinedBy: "]]><![CDATA[") + "]]>"),
        ("split by processing instructions", key.split(into: 14, joinedBy: "<?php echo 1 ?>")),
        ("split by tags", key.split(into: 14, joinedBy: "<b class=\"x\"></b>")),
        ("zero-padded decimal references", key.unicodeScalars.map { "&#000000\($0.value);" }.joined()),
        (
            "zero-padded hex references, mixed case",
            key.unicodeScalars.enumerated().map { index, scalar in
                (index.isMultiple(of: 2) ? "&#x000000" : "&#X0000") + String(scalar.value, radix: 16, uppercase: index % 3 == 0) + ";"
            }.joined()
        ),
        ("references without the semicolon", key.unicodeScalars.map { "&#\($0.value)" }.joined()),
        ("triple percent-encoding (%25252B)", encoded.replacingOccurrences(of: "%", with: "%2525")),
        ("every character percent-encoded three times", key.utf8.map { "%2525" + String($0, radix: 16, uppercase: true) }.joined()),
        ("triple percent-encoding, lower-case", encoded.replacingOccurrences(of: "%", with: "%2525").lowercased()),
        ("percent-encoding of every character", key.utf8.map { "%" + String($0, radix: 16) }.joined()),
        ("+ as a space", key.replacingOccurrences(of: "+", with: " ")),
        ("broken by line breaks", key.split(into: 14, joinedBy: "\r\n")),
        (
            "HTML named references",
            key.replacingOccurrences(of: "+", with: "&plus;").replacingOccurrences(of: "/", with: "&sol;")
                .replacingOccurrences(of: "=", with: "&equals;")
        ),
        ("&percnt; and &amp;#43;", key.replacingOccurrences(of: "+", with: "&percnt;2B").replacingOccurrences(of: "/", with: "&amp;#47;")),
        ("every letter a named reference (&Fopf;)", key.mapCharacters { $0.isLetter ? "&\($0)opf;" : String($0) }),
        ("split by invisible named references", key.split(into: 14, joinedBy: "&ZeroWidthSpace;&shy;")),
        ("interleaved with spaces and punctuation", key.split(into: 24, joinedBy: " - ")),
        ("upper case", key.uppercased()),
        (
            "full-width letters",
            key.mapCharacters { character in
                guard let ascii = character.asciiValue, character.isLetter || character.isNumber else { return String(character) }
                return String(UnicodeScalar(UInt32(ascii) - 0x21 + 0xFF01)!)
            }
        ),
        (
            "accents on every letter, precomposed where Unicode has one (á, ń)",
            key.mapCharacters { $0.isLetter ? "\($0)\u{301}" : String($0) }.precomposedStringWithCanonicalMapping
        ),
        // Letters NFKD leaves alone that anyone still reads as Latin letters and digits: by name
        // (issue 36's four, and other framings of the same letters), by confusable skeleton (UTS #39).
        ("negative squared letters (🅰)", key.mapCharacters { lettersFramed($0, capital: 0x1F170) }),
        ("negative circled letters (🅐)", key.mapCharacters { lettersFramed($0, capital: 0x1F150) }),
        ("regional indicators (🇦)", key.mapCharacters { lettersFramed($0, capital: 0x1F1E6) }),
        ("small capitals and dingbat digits (ᴀ, ❶)", key.mapCharacters(smallCapitalsAndDingbats)),
        (
            "tag letters and digits, invisible but copied",
            key.mapCharacters { framed($0, capital: 0xE0041, small: 0xE0061, digit: 0xE0030) }
        ),
        ("Latin letters with a stroke or a hook (ⱥ, ƀ)", key.mapCharacters { $0 == "a" ? "ⱥ" : $0 == "b" ? "ƀ" : String($0) }),
        (
            "combining Latin letters on spaces (U+0363…, U+1DDA…), dotless j and small q with hook tail",
            key.mapCharacters { character in
                guard let ascii = character.asciiValue, character.isLetter else { return String(character) }
                let letter = ascii | 0x20
                let combining: [UInt8: UInt32] = [
                    0x61: 0x363, 0x65: 0x364, 0x69: 0x365, 0x6F: 0x366, 0x75: 0x367, 0x63: 0x368, 0x64: 0x369, 0x68: 0x36A,
                    0x6D: 0x36B, 0x72: 0x36C, 0x74: 0x36D, 0x76: 0x36E, 0x78: 0x36F, 0x67: 0x1DDA, 0x6B: 0x1DDC, 0x6C: 0x1DDD,
                    0x6E: 0x1DE0, 0x73: 0x1DE4, 0x7A: 0x1DE6, 0x62: 0x1DE8, 0x66: 0x1DEB, 0x70: 0x1DEE, 0x77: 0x1DF1,
                ]
                if let mark = combining[letter] { return " " + String(UnicodeScalar(mark)!) }
                return ["j": "ȷ", "q": "Ɋ", "y": "ʏ"][Character(UnicodeScalar(letter))] ?? String(character)
            }
        ),
        (
            "combining Cyrillic look-alikes on spaces (U+2DF6 а, U+2DEA о, U+2DED с …), no run of 12 plain",
            key.mapCharacters { character in
                let combining: [Character: UInt32] = [
                    "a": 0x2DF6, "e": 0x2DF7, "o": 0x2DEA, "c": 0x2DED, "p": 0x2DEC, "x": 0x2DEF, "i": 0xA675, "y": 0xA677,
                    "b": 0x2DE1, "h": 0x2DE9, "t": 0x2DEE,
                ]
                guard let mark = character.lowercased().first.flatMap({ combining[$0] }) else { return String(character) }
                return " " + String(UnicodeScalar(mark)!)
            }
        ),
        ("Cyrillic and Greek look-alikes (а, е, о, Α, Ο)", key.mapCharacters(cyrillicAndGreek)),
        ("Cherokee look-alikes (Ꭺ, Ꮯ, Ꮪ)", key.mapCharacters { ["A": "Ꭺ", "C": "Ꮯ", "S": "Ꮪ", "T": "Ꭲ", "M": "Ꮇ"][$0] ?? String($0) }),
        (
            "I, l and 1 swapped, O and 0 swapped",
            key.mapCharacters { ["I": "l", "l": "1", "1": "I", "O": "0", "0": "O"][$0] ?? String($0) }
        ),
        ("12 letters and digits from the middle", "x" + String(lettersAndDigits.dropFirst(40).prefix(12)) + "y"),
        ("the first half (resultMsg)", "SERVICE ERROR " + String(key.prefix(key.count / 2))),
        ("half the key as a host name", "http://" + String(lettersAndDigits.dropFirst(30).prefix(40)).lowercased() + ".evil.example:8080"),
        ("12 letters of the sent form, its % signs lost", String(encoded.replacingOccurrences(of: "%", with: "").dropFirst(12).prefix(12))),
        ("encoded deeper than anyone reads", key.utf8.map { "%" + String(repeating: "25", count: 20) + String($0, radix: 16) }.joined()),
    ]

    @Test("Every form a reader (or a decoder) would recognise echoes the key", arguments: echoes)
    func recognised(_ form: (String, String)) {
        #expect(echoGuard.echoes(form.1), "\(form.0): \(form.1)")
        #expect(echoGuard.checked(form.1) == KeyEchoGuard.withheldText, "\(form.0): no part of the text is kept")
        #expect(echoGuard.checked("before " + form.1 + " after") == KeyEchoGuard.withheldText)
    }

    @Test("11 letters and digits of the key, or two runs of 11 that do not follow each other, are not an echo")
    func elevenIsNotAnEcho() {
        let letters = Self.lettersAndDigits
        /// What a reader cannot tell apart is one letter: I, l and 1; O and 0.
        func reading(_ character: Character) -> Character {
            switch character.lowercased() {
            case "i", "l", "1": "1"
            case "o", "0": "0"
            default: Character(character.lowercased())
            }
        }
        for start in stride(from: 0, to: letters.count - 12, by: 7) {
            let eleven = String(letters.dropFirst(start).prefix(11))
            // A run repeated reads as the key's next twelve when its first letter reads as the key's twelfth.
            let twelfth = letters[letters.index(letters.startIndex, offsetBy: start + 11)]
            guard reading(twelfth) != reading(eleven.first!) else { continue }
            #expect(!echoGuard.echoes("- \(eleven) -"), "\(eleven)")
            #expect(!echoGuard.echoes("- \(eleven) - \(eleven) -"))
        }
        let apart = String(letters.prefix(11)) + String(letters.dropFirst(20).prefix(11))
        #expect(!echoGuard.echoes(apart))
    }

    @Test(
        "Real AirKorea texts are kept as they are",
        arguments: [
            "NORMAL_CODE", "NORMAL SERVICE.", "SERVICE_KEY_IS_NOT_REGISTERED_ERROR", "LIMITED NUMBER OF SERVICE REQUESTS EXCEEDS ERROR.",
            "○ [미세먼지] 전 권역이 '좋음'∼'보통'으로 예상됩니다.", "서울 : 보통,제주 : 좋음,전남 : 보통", "서울 종로구 종로35가길 19",
            "/B552584/ArpltnInforInqireSvc/getMsrstnAcctoRltmMesureDnsty?serviceKey=***&returnType=xml&numOfRows=100",
            "503 Service Temporarily Unavailable", "&lt;b&gt; %41%42 &#65;&#66; 100% 2026-11-20 24:00",
        ])
    func kept(_ text: String) {
        #expect(!echoGuard.echoes(text))
        #expect(echoGuard.checked(text) == text)
    }

    @Test("A key shorter than 12 letters and digits must occur whole")
    func shortKey() {
        let short = KeyEchoGuard(keyForms: ["ab+c/12=", percentEncoded("ab+c/12=")])
        #expect(short.echoes("x a-b c&#49;2 y"))
        #expect(short.echoes("%61%62%2B%63" + "%2F12"))
        #expect(!short.echoes("abc1"))
        #expect(!short.echoes("bc12"))
    }

    @Test("The key given in its sent (encoded) form finds the decoded form too")
    func encodedKeyForm() {
        let fromEncoded = KeyEchoGuard(keyForms: [Self.encoded])
        #expect(fromEncoded.echoes(key.split(into: 3, joinedBy: "<!---->")))
        #expect(fromEncoded.echoes(Self.encoded))
    }

    @Test("Whole files: the key's letters stored raw, percent-encoded or JSON-escaped are found without decoding")
    func undecoded() {
        let json = "{\"message\":\"" + key.replacingOccurrences(of: "/", with: "\\/") + "\"}"
        for form in [key, Self.encoded, Self.encoded.lowercased(), json] {
            #expect(echoGuard.occursUndecoded(in: Array(("\u{0}\u{1}page" + form + "\u{2}").utf8)), "\(form)")
        }
        #expect(!echoGuard.occursUndecoded(in: Array(String(Self.lettersAndDigits.prefix(11)).utf8)))
    }

    @Test("No key, no echo; the guard itself never shows the key")
    func noneAndDescriptions() {
        #expect(!KeyEchoGuard.none.echoes(key))
        var dumped = ""
        dump(echoGuard, to: &dumped)
        for text in ["\(echoGuard)", String(reflecting: echoGuard), dumped] {
            #expect(!echoGuard.echoes(text) && !text.contains("Fj1m"), "\(text)")
        }
    }
}
