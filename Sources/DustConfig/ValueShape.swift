import DustKit
import Foundation
import Yams

/// What is wrong with a value: `problem` reads after the key's name, `path` (`[2].activity`) says
/// where inside a structured value, and `line` where in the file, when the value came from one.
struct ValueProblem: Error, Sendable, Hashable {
    var path = ""
    var problem: String
    var line: Int?

    init(_ problem: String) {
        self.problem = problem
    }

    /// A value as a refusal quotes it: in quotes, made safe for a terminal and cut at 80 characters
    /// (a value may be a megabyte of anything, and the sentence goes to a terminal and the journal).
    static func quoted(_ value: String) -> String {
        "\"" + TerminalSafeText.shown(value, characters: 80) + "\""
    }

    /// The problem as seen one level further out: `.activity`, then `[2]`, make `[2].activity`.
    func inside(_ segment: String) -> ValueProblem {
        var outer = self
        outer.path = segment + path
        return outer
    }

    /// The problem placed at `node`'s line, unless a node nearer to it already placed it.
    func at(_ node: Node) -> ValueProblem {
        var placed = self
        placed.line = line ?? node.mark?.line
        return placed
    }
}

/// How a key's value is written in the configuration file (a YAML node) and in a `DUSTD_…`
/// variable (text), and what makes it valid. Yams hands over every scalar as the text written,
/// untyped (see `ConfigurationFile`), so each shape decides what its text means.
struct ValueShape<Value: Sendable>: Sendable {
    /// The value a YAML node holds, or nil for an empty node (`key:`, `key: ~`), which means the default.
    let fromFile: @Sendable (Node) throws(ValueProblem) -> Value?
    /// How a `DUSTD_…` variable spells the value; nil when it cannot (a list of mappings).
    let fromEnvironment: EnvironmentForm<Value>?
}

/// What swift-configuration hands over for a `DUSTD_…` variable: its text, or its comma-separated items.
enum EnvironmentForm<Value: Sendable>: Sendable {
    case text(@Sendable (String) throws(ValueProblem) -> Value)
    case list(@Sendable ([String]) throws(ValueProblem) -> Value)
}

extension Node.Scalar {
    /// The text written, trimmed; nil when YAML means "no value": nothing, `~` or `null`, unquoted.
    var text: String? {
        let trimmed = string.trimmingWhiteSpace
        let isNull = style == .plain && ["", "~", "null", "Null", "NULL"].contains(trimmed)
        return isNull || trimmed.isEmpty || tag.rawValue == Tag.Name.null.rawValue ? nil : trimmed
    }
}

// MARK: - Single values

extension ValueShape {
    /// One value written as text; `parse` gets it trimmed and never empty.
    static func scalar(_ parse: @escaping @Sendable (String) throws(ValueProblem) -> Value) -> ValueShape {
        ValueShape(
            fromFile: { node throws(ValueProblem) in
                guard case .scalar(let scalar) = node else {
                    throw ValueProblem("must be a single value, not a list or a mapping").at(node)
                }
                guard let text = scalar.text else { return nil }
                do throws(ValueProblem) {
                    return try parse(text)
                } catch {
                    throw error.at(node)
                }
            },
            fromEnvironment: .text(parse))
    }
}

extension ValueShape where Value == String {
    /// Any text: a name or a path.
    static var text: ValueShape { .scalar { $0 } }

    /// Text FineDust shows on terminals, pages and in the journal (a station name): `DisplayName.problem`
    /// says what is refused; the rest is composed (`NameForm`), so a name copied from a Mac's file name
    /// is the station AirKorea and the database know.
    static var displayText: ValueShape {
        .scalar { text throws(ValueProblem) in
            if let problem = DisplayName.problem(in: text) { throw ValueProblem(problem.english) }
            return NameForm.composed(text)
        }
    }

    /// An `http` or `https` URL with a host.
    static var webAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard isWebAddress(text) else {
                throw ValueProblem("must be an http or https URL (with a port of 1–65535 if any), not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }

    private static func isWebAddress(_ text: String) -> Bool {
        guard let url = URL(string: text) else { return false }
        return ["http", "https"].contains(url.scheme?.lowercased() ?? "") && url.host != nil && hasValidPort(url, written: text)
    }

    /// A URL's port, when it names one, is a TCP port (1–65535). Foundation takes `:80800`, and the
    /// HTTP client then stopped dustd with a trap at the first request to it: an alert sink's typo was
    /// a crash at every start for as long as the alert waited to be delivered. A port too large for an
    /// Int Foundation reads as none, and the request went to port 80 or 443: written but not read is refused too.
    static func hasValidPort(_ url: URL, written text: String) -> Bool {
        if let port = url.port { return (1...65_535).contains(port) }
        guard let schemeEnd = text.range(of: "://") else { return true }
        let authority = text[schemeEnd.upperBound...].prefix { !"/?#".contains($0) }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
        let afterHost = hostAndPort.hasPrefix("[") ? hostAndPort.drop { $0 != "]" }.dropFirst() : hostAndPort.drop { $0 != ":" }
        return afterHost.isEmpty
    }

    /// An `http` or `https` URL with a host that may carry a secret (an ntfy topic, a webhook's
    /// path or query, user info): an error names the key (`alerts.sinks[2].ntfy`), never the text.
    static var secretWebAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard isWebAddress(text) else {
                throw ValueProblem(
                    "must be an http or https URL with a host and a port of 1–65535 if any (the value is not repeated here: it may hold a secret)"
                )
            }
            // Never sent: the server got no credentials and answered 401 to every alert.
            guard let url = URL(string: text), url.user == nil, url.password == nil else {
                throw ValueProblem(
                    "holds user info (user:password@), which FineDust does not send: an ntfy server's token goes in tokenFile, a webhook's secret in its path or query (the value is not repeated here)"
                )
            }
            return text
        }
    }
}

extension ValueShape where Value == Int {
    /// A whole number within `range`.
    static func integer(in range: ClosedRange<Int>) -> ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let value = Int(text), range.contains(value) else {
                throw ValueProblem(
                    "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(ValueProblem.quoted(text))")
            }
            return value
        }
    }

    /// An hour of the day within `range`, written `7`, `07` or `07:00`.
    static func hour(in range: ClosedRange<Int>) -> ValueShape {
        .scalar { text throws(ValueProblem) in
            let hour = text.hasSuffix(":00") ? String(text.dropLast(3)) : text
            guard let value = Int(hour), range.contains(value) else {
                throw ValueProblem(
                    "must be an hour from \(range.lowerBound) to \(range.upperBound) such as 7 or 07:00, not \(ValueProblem.quoted(text))")
            }
            return value
        }
    }
}

extension ValueShape where Value == Double {
    /// A finite number within `range`.
    static func number(in range: ClosedRange<Double>) -> ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw ValueProblem(
                    "must be a number from \(range.lowerBound.formatted()) to \(range.upperBound.formatted()), not \(ValueProblem.quoted(text))"
                )
            }
            return value
        }
    }
}

extension ValueShape where Value == Double {
    /// A finite number above 0 and at most `maximum`.
    static func positiveNumber(atMost maximum: Double) -> ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let value = Double(text), value.isFinite, value > 0, value <= maximum else {
                throw ValueProblem(
                    "must be a number above 0 and at most \(maximum.formatted()), not \(ValueProblem.quoted(text))")
            }
            return value
        }
    }
}

extension ValueShape where Value: RawRepresentable & CaseIterable, Value.RawValue == String {
    /// One of the enumeration's raw values, in any letter case.
    static var choice: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let value = Value(rawValue: text.lowercased()) else {
                throw ValueProblem(
                    "must be one of \(Value.allCases.map(\.rawValue).joined(separator: ", ")), not \(ValueProblem.quoted(text))")
            }
            return value
        }
    }
}

extension ValueShape where Value == TimeZone {
    /// An IANA time zone name.
    static var timeZone: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let zone = TimeZone(identifier: text) else {
                throw ValueProblem("must be an IANA time zone such as Asia/Seoul, not \(ValueProblem.quoted(text))")
            }
            return zone
        }
    }
}

// MARK: - Structures

extension ValueShape {
    /// A YAML list of `element`s; a single value counts as a list of one, and empty items are left
    /// out. In an environment variable the items are separated by commas, when `element` can be
    /// written as text at all.
    static func list<Element>(of element: ValueShape<Element>) -> ValueShape where Value == [Element] {
        let fromEnvironment: EnvironmentForm<[Element]>?
        if case .text(let parse) = element.fromEnvironment {
            fromEnvironment = .list { items throws(ValueProblem) in
                var values: [Element] = []
                for (index, item) in items.enumerated() {
                    let text = item.trimmingWhiteSpace
                    guard !text.isEmpty else { continue }
                    do throws(ValueProblem) {
                        values.append(try parse(text))
                    } catch {
                        throw error.inside("[\(index)]")
                    }
                }
                return values
            }
        } else {
            fromEnvironment = nil
        }
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                let items: [Node]
                switch node {
                case .sequence(let sequence): items = Array(sequence)
                case .scalar(let scalar):
                    guard scalar.text != nil else { return nil }
                    items = [node]
                default: throw ValueProblem("must be a list").at(node)
                }
                var values: [Element] = []
                for (index, item) in items.enumerated() {
                    do throws(ValueProblem) {
                        if let value = try element.fromFile(item) { values.append(value) }
                    } catch {
                        throw error.inside("[\(index)]").at(item)
                    }
                }
                return values
            },
            fromEnvironment: fromEnvironment)
    }

    /// A YAML mapping with the named fields and no others, which `build` turns into a value.
    static func record(_ fields: [String], _ build: @escaping @Sendable (RecordFields) throws(ValueProblem) -> Value) -> ValueShape {
        let written = "{\(fields.joined(separator: ", "))}"
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                guard case .mapping(let mapping) = node else {
                    throw ValueProblem("must be a mapping \(written)").at(node)
                }
                var nodes: [String: Node] = [:]
                for (name, value) in mapping {
                    guard let name = name.scalar?.string, fields.contains(name) else {
                        let field = name.scalar?.string ?? "that is not text"
                        let suggestion = SpellingDistance.nearest(to: field, among: fields).map { " (did you mean \($0)?)" } ?? ""
                        throw ValueProblem("has a field \(field) that is not one of \(fields.joined(separator: ", "))\(suggestion)").at(
                            name)
                    }
                    nodes[name] = value
                }
                do throws(ValueProblem) {
                    return try build(RecordFields(nodes: nodes))
                } catch {
                    throw error.at(node)
                }
            },
            fromEnvironment: nil)
    }
}

/// The fields of one mapping in a structured value, read through their own shapes.
struct RecordFields {
    let nodes: [String: Node]

    /// The field's value; a missing or empty field is an error.
    func required<Value>(_ name: String, _ shape: ValueShape<Value>) throws(ValueProblem) -> Value {
        guard let value = try optional(name, shape) else {
            throw ValueProblem("is missing").inside(".\(name)")
        }
        return value
    }

    /// The field's value, or nil when it is missing or empty.
    func optional<Value>(_ name: String, _ shape: ValueShape<Value>) throws(ValueProblem) -> Value? {
        guard let node = nodes[name] else { return nil }
        do throws(ValueProblem) {
            return try shape.fromFile(node)
        } catch {
            throw error.inside(".\(name)")
        }
    }
}
