/// A value bound to a statement or read from a row, in the five kinds both engines store: what the
/// shared statements of this target speak, so that neither GRDB's nor PostgresNIO's types leave
/// their engine (docs/ARCHITECTURE.md, "Storage written once").
public enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    /// NULL, with the type the column would have had: PostgreSQL must know a parameter's type even
    /// when it is NULL (`$3 IS NULL` alone leaves it undecided).
    case null(SQLType)
}

/// The type of a column or a parameter.
public enum SQLType: Sendable, Hashable {
    case integer, real, text, blob
}

/// A Swift value a statement can bind.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
    /// The type of this kind of value, for a NULL of it.
    static var sqlType: SQLType { get }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .integer(self) }
    public static var sqlType: SQLType { .integer }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public static var sqlType: SQLType { .integer }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .real(self) }
    public static var sqlType: SQLType { .real }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
    public static var sqlType: SQLType { .text }
}

extension Array: SQLBindable where Element == UInt8 {
    public var sqlValue: SQLValue { .blob(self) }
    public static var sqlType: SQLType { .blob }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null(Wrapped.sqlType) }
    public static var sqlType: SQLType { Wrapped.sqlType }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
    /// Only asked of a NULL of an unknown kind, which a statement never binds.
    public static var sqlType: SQLType { .text }
}
