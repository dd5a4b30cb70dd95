import DustKit

/// The trimmed text of one field, decoded on demand without building strings for numbers.
struct FieldText {
    /// Points into the reader's text buffer: valid only inside the `withUnsafeBytes` that made it.
    let bytes: UnsafeRawBufferPointer
    /// Every string a field becomes passes it: the one door for the response's texts.
    let echoGuard: KeyEchoGuard

    init(trimming raw: UnsafeRawBufferPointer, echoGuard: KeyEchoGuard) {
        self.echoGuard = echoGuard
        var start = 0
        var end = raw.count
        while start < end, Self.isSpace(raw[start]) { start += 1 }
        while end > start, Self.isSpace(raw[end - 1]) { end -= 1 }
        bytes = UnsafeRawBufferPointer(rebasing: raw[start..<end])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The text, or nil when empty; control characters replaced, and withheld whole when it echoes
    /// the service key (it came from the network). Trimmed of every white space as a setting is
    /// (`trimmingWhiteSpace`: a no-break space, U+3000, U+200B too), not only the ASCII that `bytes`
    /// loses: `종로구` and U+3000 was stored as a station of its own, which no `--station` could name.
    var string: String? {
        guard let text = unreplaced else { return nil }
        let safe = TerminalSafeText.sanitized(text).trimmingWhiteSpace
        return safe.isEmpty ? nil : echoGuard.checked(safe)
    }

    /// The Latin letters a Korean sentence of AirKorea's may hold (`PM10`, `PM2.5`, `O3` and the like):
    /// a forecast's overall and cause and the weekly outlook's sentences are shown as the server wrote
    /// them, and a server holds the key (it is sent there). Reversed, base64-encoded or cut by a letter
    /// every 11, the key passed the search for its echoes into the database, `dustctl forecast` and
    /// the web; a sentence with more letters than this, in any form a reader takes for Latin
    /// (`KeyEchoGuard.latinLetterCount`), is withheld (`ResponseReaderState.sentence`).
    static let sentenceLatinLetters = 8

    /// The text as it came (invalid UTF-8 as U+FFFD), nil when empty: only for a vocabulary's check
    /// (`ServerVocabulary.isKoreanText`), which must see what `string` would replace: a line separator
    /// made a space there turned `종로구` and U+2028 into `종로구 `, a station of its own.
    var unreplaced: String? { bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }

    /// A non-negative integer, or nil.
    var integer: Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// A concentration: `-` or empty is unknown; a number no instrument measures (negative, not
    /// finite, above 10,000 µg/m³) or text that is no number is implausible, and unknown too.
    var concentration: ConcentrationText { measurement(within: HourlyReading.plausibleConcentration) }

    /// A measured value: `-` or empty is unknown; a number outside `plausible` (negative, not finite,
    /// above what instruments read) or text that is no number is implausible, and unknown too.
    func measurement(within plausible: ClosedRange<Double>) -> ConcentrationText {
        if bytes.isEmpty || (bytes.count == 1 && bytes[0] == UInt8(ascii: "-")) { return .unknown }
        guard let value = decimal, value.isFinite, plausible.contains(value) else { return .implausible }
        return .measured(value)
    }

    /// An advisory's concentration (`issueVal`, µg/m³ or ppm): a finite number an instrument could
    /// have read (`HourlyReading.plausibleConcentration`, 0 to 10,000, wide enough for both units),
    /// or nil (unknown, never 0) for `-`, empty or anything that is not one.
    var advisoryValue: Double? {
        guard let value = decimal, value.isFinite, HourlyReading.plausibleConcentration.contains(value) else { return nil }
        return value
    }

    /// A grade `1`–`4`; anything else is unknown.
    var grade: DustGrade? {
        guard bytes.count == 1 else { return nil }
        return DustGrade(rawValue: Int(bytes[0]) - 0x30)
    }

    /// A plain decimal number (`35`, `0.0022`, `-1.5`, `37.572025`): an optional sign, then ASCII
    /// digits with at most one decimal point, whatever its length; nil for anything else (an
    /// exponent, `0x…`, `nan`, `inf`). Up to 15 digits it is parsed here, exactly as `strtod` would;
    /// past them the text, checked whole against the same grammar first, is handed to `strtod`.
    var decimal: Double? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= 0x30, byte <= 0x39 {
                guard digits < 15 else { return longDecimal(from: index, seenPoint: seenPoint) }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        // Both operands are exact doubles (mantissa < 2^53, 10^k for k ≤ 22), so one correctly
        // rounded division gives the same double as strtod.
        let value = Double(mantissa) / Self.powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// The value of a decimal with more than 15 digits, the bytes from `index` on still unread.
    /// `Double(String)` alone would also read an exponent (`0000000000000001e3` was 1000, and
    /// `…1e-400` a measured 0), so the rest is checked to be digits and at most one point first.
    private func longDecimal(from index: Int, seenPoint: Bool) -> Double? {
        var seenPoint = seenPoint
        for byte in bytes[index...] {
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte < 0x30 || byte > 0x39 {
                return nil
            }
        }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}

/// What a concentration field said.
enum ConcentrationText: Equatable {
    case unknown
    case measured(Double)
    case implausible

    /// The number, when one was measured.
    var value: Double? {
        if case .measured(let value) = self { return value }
        return nil
    }
}
