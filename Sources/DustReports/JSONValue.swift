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

    /// `{"pm10": …, "pm25": …}`.
    public static func pair<Value>(_ pair: DustPair<Value>, _ transform: (Value) -> JSON) -> JSON {
        .object([("pm10", transform(pair.fineDust)), ("pm25", transform(pair.ultraFineDust))])
    }

    /// Compact serialization, one line.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSON.string(member.0).write(to: &output)
                output += ":"
                member.1.write(to: &output)
            }
            output += "}"
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .string(let text):
            output += "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                // Besides what JSON requires (below 0x20), DEL, the C1 controls and the
                // bidirectional overrides are escaped: the same string to a parser, and nothing a
                // terminal acts on when the document is printed.
                case _
                where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
                    output +=
                        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                default: output.unicodeScalars.append(scalar)
                }
            }
            output += "\""
        case .number(let value):
            if !value.isFinite {
                output += "null"
            } else if value == value.rounded(), abs(value) < 1e15 {
                output += String(Int64(value))
            } else {
                output += "\(value)"
            }
        case .bool(let value):
            output += value ? "true" : "false"
        case .null:
            output += "null"
        }
    }
}
