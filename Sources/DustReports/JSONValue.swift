import DustKit

/// A JSON value with ordered object keys, so output reads in the order docs/REFERENCE.md §6 documents: the one
/// encoder of every document dustctl prints and dustd serves, so the two are byte-identical.
public indirect enum JSON: Sendable {
    case object([(String, JSON)])
    case array([JSON])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    public static func number(_ value: Double?) -> JSON { value.map(JSON.number) ?? .null }
    public static func integer(_ value: Int) -> JSON { .number(Double(value)) }

    /// A number FineDust computed (a mean, an intake, a ventilation, a distance), rounded to at most 3
    /// decimals as the CSV export writes it (docs/REFERENCE.md §6, "Numbers"): `5.670000000000001` is
    /// `5.67`. What was stored as given (a concentration, a gas, a coordinate) keeps every digit.
    public static func measured(_ value: Double?) -> JSON {
        guard let value, value.isFinite else { return .null }
        return .number(measuredValue(value))
    }

    /// `value` rounded as `measured` writes it, for a surface that shows the same number (`/metrics`).
    public static func measuredValue(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// `{"pm10": …, "pm25": …}`.
    public static func pair<Value>(_ pair: DustPair<Value>, _ transform: (Value) -> JSON) -> JSON {
        .object([("pm10", transform(pair.fineDust)), ("pm25", transform(pair.ultraFineDust))])
    }

    /// Compact serialization, one line.
    public var serialized: String {
        var output: [UInt8] = []
        output.reserveCapacity(4096)
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the compact serialization to `output`: a document written piece by piece.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: member.0, to: &output)
                output.append(UInt8(ascii: ":"))
                member.1.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .string(let text):
            Self.write(string: text, to: &output)
        case .number(let value):
            if !value.isFinite {
                output.append(contentsOf: "null".utf8)
            } else if value == value.rounded(), abs(value) < 1e15 {
                output.append(contentsOf: String(Int64(value)).utf8)
            } else {
                output.append(contentsOf: "\(value)".utf8)
            }
        case .bool(let value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case .null:
            output.append(contentsOf: "null".utf8)
        }
    }

    /// `text` quoted. Besides what JSON requires (`"`, `\\`, below 0x20), what a terminal acts on
    /// (`TerminalSafeText.isUnsafe`: DEL, the C1 controls, the line separators, the bidirectional
    /// controls) is escaped: the same string to a parser, and nothing a terminal acts on when the
    /// document is printed. A text with none of them is copied as it is.
    private static func write(string text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let plain = text.utf8.withContiguousStorageIfAvailable(isPlain) ?? isPlain(Array(text.utf8))
        if plain {
            output.append(contentsOf: text.utf8)
        } else {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": output.append(contentsOf: "\\\"".utf8)
                case "\\": output.append(contentsOf: "\\\\".utf8)
                case "\n": output.append(contentsOf: "\\n".utf8)
                case "\r": output.append(contentsOf: "\\r".utf8)
                case "\t": output.append(contentsOf: "\\t".utf8)
                case _ where TerminalSafeText.isUnsafe(scalar):
                    let hex = String(scalar.value, radix: 16)
                    output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                default: output.append(contentsOf: String(scalar).utf8)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Whether UTF-8 `bytes` hold nothing `write(string:to:)` escapes: no `"` or `\\`, nothing
    /// `TerminalSafeText.startsUnsafeScalar` names (which covers every byte below 0x20).
    private static func isPlain<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || TerminalSafeText.startsUnsafeScalar(bytes, at: index) {
                return false
            }
            index += 1
        }
        return true
    }
}
