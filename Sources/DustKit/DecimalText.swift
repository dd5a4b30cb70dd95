/// A number as people and AirKorea, Apple Health and GPX files write one: ASCII digits with an
/// optional sign, decimal point and exponent (`72`, `-0.5`, `37.5663`, `1.2e3`). `Double(String)`
/// also reads hexadecimal (`0x48`), `inf`, `nan` and `infinity`, which no such file means: a
/// latitude of `0x25` is 37 degrees only to a C library.
public enum DecimalText {
    /// The finite value of `text`, or nil when it is not a plain decimal number.
    public static func parse(_ text: some StringProtocol) -> Double? {
        var digits = 0
        var index = text.utf8.startIndex
        let bytes = text.utf8
        func skipDigits() -> Int {
            var count = 0
            while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) {
                count += 1
                index = bytes.index(after: index)
            }
            return count
        }
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            index = bytes.index(after: index)
        }
        digits += skipDigits()
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            digits += skipDigits()
        }
        guard digits > 0 else { return nil }
        if index < bytes.endIndex, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index = bytes.index(after: index)
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index = bytes.index(after: index)
            }
            guard skipDigits() > 0 else { return nil }
        }
        guard index == bytes.endIndex, let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }
}
