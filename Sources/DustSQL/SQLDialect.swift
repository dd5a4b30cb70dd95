/// What differs between the engines' SQL, in one place: everything else the shared statements say
/// is the SQL both SQLite (3.35 or newer) and PostgreSQL accept as written.
public enum SQLDialect: Sendable, Hashable {
    case sqlite
    case postgres

    /// `a IS DISTINCT FROM b`: SQLite spells it `IS NOT` (its `IS DISTINCT FROM` came in 3.39).
    public var isDistinctFrom: String {
        switch self {
        case .sqlite: "IS NOT"
        case .postgres: "IS DISTINCT FROM"
        }
    }

    /// What ends a read whose rows the transaction must hold until it commits: PostgreSQL's
    /// `FOR UPDATE`; SQLite's one writer holds the whole database already.
    public var lockingRead: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE"
        }
    }

    /// The sum of `expression` added in the order of `key`, so both engines give the same total to
    /// the last bit: PostgreSQL is told the order; SQLite adds in the order it scans, which for the
    /// aggregates here is its primary key's (its `sum(… ORDER BY …)` came only in 3.44).
    public func sum(_ expression: String, orderedBy key: String) -> String {
        switch self {
        case .sqlite: "sum(\(expression))"
        case .postgres: "sum(\(expression) ORDER BY \(key))"
        }
    }

    /// The statement text the engine runs: SQLite takes `?` and `?NNN` as written; PostgreSQL numbers
    /// its parameters `$1`, `$2`, … (`?NNN` becomes `$NNN`). Quoted text and identifiers are kept.
    public func render(_ sql: String) -> String {
        guard self == .postgres else { return sql }
        // Byte by byte: every byte that matters here is ASCII, and UTF-8 never repeats one inside a
        // multi-byte character, so Korean text in a literal passes through untouched.
        let question = UInt8(ascii: "?")
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 16)
        var next = 1
        var quote: UInt8?
        var bytes = sql.utf8.makeIterator()
        var pending: UInt8?
        while let byte = pending ?? bytes.next() {
            pending = nil
            if let open = quote {
                result.append(byte)
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                quote = byte
                result.append(byte)
            case question:
                var digits: [UInt8] = []
                while let following = bytes.next() {
                    guard following >= UInt8(ascii: "0"), following <= UInt8(ascii: "9") else {
                        pending = following
                        break
                    }
                    digits.append(following)
                }
                result.append(UInt8(ascii: "$"))
                if digits.isEmpty {
                    result.append(contentsOf: String(next).utf8)
                    next += 1
                } else {
                    result.append(contentsOf: digits)
                }
            default:
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
