import DustKit

/// One row a statement returned: its values by column name, as the shared statements read them.
/// A value of another kind than asked for (text where a number is stored) is a `SQLDecodingError`,
/// never a silent zero.
public struct SQLRow: Sendable {
    public let columns: SQLColumns
    public let values: [SQLValue]

    public init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of column `name`; a column the statement did not select is a programming error.
    public subscript(_ name: String) -> SQLValue {
        guard let index = columns.index(of: name) else { preconditionFailure("no column \(name) in \(columns.names)") }
        return values[index]
    }

    public func int64(_ name: String) throws(SQLDecodingError) -> Int64 { try required(name, optionalInt64(name)) }

    public func optionalInt64(_ name: String) throws(SQLDecodingError) -> Int64? {
        switch self[name] {
        case .integer(let value): value
        case .null: nil
        // SQLite hands back an INTEGER column's value stored as REAL only when it is whole.
        case .real(let value) where value.rounded() == value && abs(value) < 9.2e18: Int64(value)
        case let other: throw SQLDecodingError(column: name, found: other)
        }
    }

    public func int(_ name: String) throws(SQLDecodingError) -> Int { Int(try int64(name)) }

    public func optionalInt(_ name: String) throws(SQLDecodingError) -> Int? { try optionalInt64(name).map(Int.init) }

    public func double(_ name: String) throws(SQLDecodingError) -> Double { try required(name, optionalDouble(name)) }

    /// A stored number; an infinite one (PostgreSQL's `'Infinity'`, SQLite's `9e999`), which FineDust
    /// never writes, is a damaged row.
    public func optionalDouble(_ name: String) throws(SQLDecodingError) -> Double? {
        switch self[name] {
        case .real(let value): try StoredValue.number(value, column: name)
        case .integer(let value): Double(value)
        case .null: nil
        case let other: throw SQLDecodingError(column: name, found: other)
        }
    }

    /// The hour that starts at column `name`'s instant; one that is not a whole hour is a damaged row.
    public func slot(_ name: String) throws(SQLDecodingError) -> Slot { try StoredValue.slot(try int64(name), column: name) }

    public func string(_ name: String) throws(SQLDecodingError) -> String { try required(name, optionalString(name)) }

    public func optionalString(_ name: String) throws(SQLDecodingError) -> String? {
        switch self[name] {
        case .text(let value): value
        case .null: nil
        case let other: throw SQLDecodingError(column: name, found: other)
        }
    }

    /// `value`, or the failure of column `name` holding NULL where a value is required.
    private func required<T>(_ name: String, _ value: T?) throws(SQLDecodingError) -> T {
        guard let value else { throw SQLDecodingError(column: name, found: self[name]) }
        return value
    }

    public func bytes(_ name: String) throws(SQLDecodingError) -> [UInt8] {
        switch self[name] {
        case .blob(let value): value
        case let other: throw SQLDecodingError(column: name, found: other)
        }
    }
}

/// The names of a result's columns, shared by all its rows and looked up by name.
public struct SQLColumns: Sendable {
    public let names: [String]
    private let indices: [String: Int]

    public init(_ names: [String]) {
        self.names = names
        indices = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func index(of name: String) -> Int? { indices[name] }
}

/// A stored value of another kind than the statement's reader expects: a damaged or foreign row.
public struct SQLDecodingError: Error, Sendable, CustomStringConvertible {
    public var column: String
    public var found: SQLValue
    /// What the value should have been, when it is of the right kind but not a value FineDust writes.
    public var expected: String?

    public init(column: String, found: SQLValue, expected: String? = nil) {
        self.column = column
        self.found = found
        self.expected = expected
    }

    public var description: String {
        if let expected {
            return "the column \(column) holds \(found.shown) where FineDust writes \(expected) (a row changed by hand?)"
        }
        let kind =
            switch found {
            case .integer: "an integer"
            case .real: "a real number"
            case .text: "text"
            case .blob: "bytes"
            case .null: "NULL"
            }
        return "the column \(column) holds \(kind) where FineDust expects another kind of value"
    }
}

extension SQLValue {
    /// The value as a message quotes it: a number as written, a text or bytes by their kind only.
    var shown: String {
        switch self {
        case .integer(let value): "\(value)"
        case .real(let value): "\(value)"
        case .text: "text"
        case .blob: "bytes"
        case .null: "NULL"
        }
    }
}

/// What every reader of stored rows refuses, the shared statements' (`SQLRow`) and each engine's own
/// long reads alike: a value FineDust never writes, from a row changed by hand.
public enum StoredValue {
    /// The hour starting at `start`; an instant that is not a whole hour is a damaged row.
    public static func slot(_ start: Int64, column: String) throws(SQLDecodingError) -> Slot {
        guard let slot = Slot(validating: start) else {
            throw SQLDecodingError(column: column, found: .integer(start), expected: "a whole hour")
        }
        return slot
    }

    /// An alert delivery's attempt: FineDust writes 0 (stopped before the first) to `alerts.maxAttempts`
    /// (at most 20); one outside 0–1,000 is a damaged row (`Int.max` trapped the next attempt's `+ 1`
    /// at every start).
    public static func attempt(_ value: Int64, column: String) throws(SQLDecodingError) -> Int {
        guard (0...1_000).contains(value) else { throw SQLDecodingError(column: column, found: .integer(value), expected: "0 to 1000") }
        return Int(value)
    }

    /// A stored number: NaN (PostgreSQL's `'NaN'`) is unknown, an infinite one a damaged row.
    public static func number(_ value: Double, column: String) throws(SQLDecodingError) -> Double? {
        if value.isFinite { return value }
        if value.isNaN { return nil }
        throw SQLDecodingError(column: column, found: .real(value), expected: "a finite number")
    }
}
