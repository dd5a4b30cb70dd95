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
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var next = 1
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? characters.next() {
            pending = nil
            if let open = quote {
                result.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                result.append(character)
            case "?":
                var digits = ""
                while let following = characters.next() {
                    if following.isASCII, following.isNumber {
                        digits.append(following)
                    } else {
                        pending = following
                        break
                    }
                }
                if digits.isEmpty {
                    result += "$\(next)"
                    next += 1
                } else {
                    result += "$" + digits
                }
            default:
                result.append(character)
            }
        }
        return result
    }
}
