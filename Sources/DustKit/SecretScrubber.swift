/// Finds a secret in bytes in every form an echo may give it (raw, percent-encoded with upper- or
/// lower-case hex or twice, `+` as a space, XML character references, any mix), and the value of
/// any `serviceKey=` parameter; replaces both with `***`.
///
/// It lives here, beside the other pure rules, because the store's migrations need the parameter
/// rule as much as the client needs the secret rule.
public struct SecretScrubber: Sendable {
    /// The secret's bytes as the server sees them (percent-decoded); empty to look for parameters only.
    let key: [UInt8]

    public init(secret: [UInt8]) {
        key = secret
    }

    /// `text` with the value of every `serviceKey=` parameter replaced by `***`.
    public static func redactingKeyParameters(_ text: String) -> String {
        SecretScrubber(secret: []).redacting(text)
    }

    /// `text` with the secret and every `serviceKey=` parameter's value replaced by `***` (`scrub`), byte by
    /// byte: the same text when nothing matched.
    public func redacting(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard let scrubbed = bytes.withUnsafeBytes({ scrub($0) }) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    private static let parameterName = Array("servicekey".utf8)
    /// What stands where the key was.
    public static let placeholder = "***"
    private static let replacement = Array(placeholder.utf8)

    /// The bytes with every match replaced, or nil when nothing matched.
    public func scrub(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var output: [UInt8]?
        var copied = 0
        var index = 0
        while index < bytes.count {
            if let length = keyMatch(bytes, at: index) {
                output = output ?? []
                output!.append(contentsOf: bytes[copied..<index])
                output!.append(contentsOf: Self.replacement)
                index += length
                copied = index
            } else if let (valueStart, valueEnd) = parameterValue(bytes, at: index) {
                output = output ?? []
                output!.append(contentsOf: bytes[copied..<valueStart])
                output!.append(contentsOf: Self.replacement)
                index = valueEnd
                copied = index
            } else {
                index += 1
            }
        }
        guard var output else { return nil }
        output.append(contentsOf: bytes[copied...])
        return output
    }

    /// True when the secret occurs in `bytes`.
    public func containsKey(_ bytes: UnsafeRawBufferPointer) -> Bool {
        (0..<bytes.count).contains { keyMatch(bytes, at: $0) != nil }
    }

    /// The length of the key's occurrence starting at `start`, if one does.
    private func keyMatch(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Int? {
        guard let first = key.first else { return nil }
        let lead = bytes[start]
        // Cheap rejection: an occurrence starts with the key's first byte or an escape.
        guard
            lead == first || lead == UInt8(ascii: "%") || lead == UInt8(ascii: "&")
                || (lead == 0x20 && first == UInt8(ascii: "+"))
        else { return nil }
        var position = start
        for expected in key {
            guard position < bytes.count else { return nil }
            if let length = escape(bytes, at: position, decodingTo: expected) {
                position += length
            } else if bytes[position] == expected || (expected == UInt8(ascii: "+") && bytes[position] == 0x20) {
                position += 1
            } else {
                return nil
            }
        }
        return position - start
    }

    /// The length of `%hh`, `%25hh`, `&#NN;` or `&#xHH;` at `position` when it stands for `expected`.
    private func escape(_ bytes: UnsafeRawBufferPointer, at position: Int, decodingTo expected: UInt8) -> Int? {
        func hexByte(at index: Int) -> UInt8? {
            guard index + 1 < bytes.count, let high = Self.hexValue(bytes[index]), let low = Self.hexValue(bytes[index + 1]) else {
                return nil
            }
            return high << 4 | low
        }
        switch bytes[position] {
        case UInt8(ascii: "%"):
            if hexByte(at: position + 1) == expected { return 3 }
            if hexByte(at: position + 1) == UInt8(ascii: "%"), hexByte(at: position + 3) == expected { return 5 }
            return nil
        case UInt8(ascii: "&"):
            guard position + 3 < bytes.count, bytes[position + 1] == UInt8(ascii: "#") else { return nil }
            let hex = bytes[position + 2] | 0x20 == UInt8(ascii: "x")
            var index = position + (hex ? 3 : 2)
            var value = 0
            var digits = 0
            while index < bytes.count, digits < 8 {
                let byte = bytes[index]
                if byte == UInt8(ascii: ";") { break }
                guard let digit = hex ? Self.hexValue(byte) : (byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : nil) else { return nil }
                value = value * (hex ? 16 : 10) + Int(digit)
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == UInt8(ascii: ";"), value == Int(expected) else { return nil }
            return index + 1 - position
        default:
            return nil
        }
    }

    /// The range of a `serviceKey=` (or `serviceKey%3D`) parameter's value starting at `start`.
    private func parameterValue(_ bytes: UnsafeRawBufferPointer, at start: Int) -> (Int, Int)? {
        guard bytes[start] | 0x20 == UInt8(ascii: "s"), start + Self.parameterName.count < bytes.count else { return nil }
        for (offset, expected) in Self.parameterName.enumerated() where bytes[start + offset] | 0x20 != expected {
            return nil
        }
        var index = start + Self.parameterName.count
        if bytes[index] == UInt8(ascii: "=") {
            index += 1
        } else if index + 2 < bytes.count, bytes[index] == UInt8(ascii: "%"), bytes[index + 1] == UInt8(ascii: "3"),
            bytes[index + 2] | 0x20 == UInt8(ascii: "d")
        {
            index += 3
        } else {
            return nil
        }
        let valueStart = index
        while index < bytes.count, isKeyCharacter(bytes[index]) { index += 1 }
        // `serviceKey=***` is already redacted; leave it as it is.
        guard index > valueStart, !bytes[valueStart..<index].allSatisfy({ $0 == UInt8(ascii: "*") }) else { return nil }
        return (valueStart, index)
    }

    /// Characters a key can be written with: base64, percent escapes, URL-safe punctuation.
    private func isKeyCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "%"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "_"),
            UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "*"):
            true
        default:
            false
        }
    }

    /// The value of an ASCII hex digit.
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
