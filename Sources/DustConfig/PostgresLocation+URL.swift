import DustKit
import Foundation

/// Reading `storage.url` (docs/REFERENCE.md §11, §20): libpq's URL forms, without the ones that carry a password.
///
/// No error repeats the text of the URL's authority (`USER:PASSWORD@HOST:PORT`): a password written
/// there, or a port that is really the end of one, must not reach a terminal or the journal. Only the
/// scheme, a query parameter's name and an `sslmode` value are quoted.
extension PostgresLocation {
    /// The port PostgreSQL listens on unless the URL names another.
    public static let defaultPort = 5432
    /// The URL schemes libpq accepts.
    public static let schemes: Set<String> = ["postgresql", "postgres"]

    /// The location a `storage.url` names; the error names the key `storage.url` and says what to write.
    public init(url text: String) throws(ConfigurationError) {
        do throws(ValueProblem) {
            self = try Self.parse(url: text)
        } catch {
            throw ConfigurationError(key: "storage.url", problem: error.problem)
        }
    }

    /// What an example of the key looks like, for the sentences below.
    static let example = "postgresql://USER@HOST:PORT/DB"

    static func parse(url raw: String) throws(ValueProblem) -> PostgresLocation {
        let text = raw.trimmingWhiteSpace
        guard let separator = text.range(of: "://") else {
            throw ValueProblem("must be a URL such as \(example) (or postgres://…)")
        }
        let scheme = text[..<separator.lowerBound]
        // Quoted only when it is a scheme at all: `USER:PASSWORD@HOST://…` must not come back.
        guard scheme.first?.isLetter == true, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            throw ValueProblem("must start with postgresql:// or postgres:// (\(example))")
        }
        guard schemes.contains(scheme.lowercased()) else {
            throw ValueProblem(
                "has the scheme \"\(TerminalSafeText.sanitized(String(scheme)))\"; only postgresql:// and postgres:// are understood (\(example))"
            )
        }
        var rest = text[separator.upperBound...]
        // The user information ends at the last `@`: a password pasted as is may hold `/`, `?` or `#`.
        var userInfo: Substring?
        if let at = rest.lastIndex(of: "@") {
            userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        // Encoded (`%3A`, `%253A`) it is a password all the same: the decoded user is what libpq would split.
        if let userInfo, userInfo.contains(":") || Self.fullyDecoded(userInfo).contains(":") {
            throw ValueProblem(
                "holds a password (USER:PASSWORD@); FineDust never reads one from the URL, which is shown in logs, status and process listings: write \(example) without it and put the password in the file named by storage.passwordFile (mode 0600) or in the systemd credential \(PostgresPasswordLoader.credentialName)"
            )
        }
        guard !rest.contains("#") else {
            throw ValueProblem("has a fragment (#…); remove it: \(example)")
        }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let authority: Substring
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = rest[rest.index(after: slash)...]
        } else {
            authority = rest
        }
        let parameters = try Self.parameters(query)
        guard let userInfo, !userInfo.isEmpty else {
            throw ValueProblem("names no user; write the role FineDust logs in as before an @: \(example)")
        }
        let user = try decoded(userInfo, part: "user")
        guard !path.isEmpty else {
            throw ValueProblem("names no database; write it after the host: \(example)")
        }
        guard !path.contains("/") else {
            throw ValueProblem("has more than one name after the host; write the database alone: \(example)")
        }
        let database = try decoded(path, part: "database")
        let (host, port) = try hostAndPort(authority)
        let endpoint: Endpoint
        switch (host, parameters.socketDirectory) {
        case (nil, let directory?):
            endpoint = .unixSocket(directory: directory, port: port)
        case (let host?, nil) where host.hasPrefix("/"):
            endpoint = .unixSocket(directory: host, port: port)
        case (let host?, nil):
            endpoint = .tcp(host: host, port: port)
        case (nil, nil):
            throw ValueProblem(
                "names no host; write \(example), or for the server's Unix socket postgresql://USER@%2Frun%2Fpostgresql/DB or postgresql://USER@/DB?host=/run/postgresql"
            )
        case (_?, _?):
            throw ValueProblem("names the server twice, as the host and as ?host=; keep one")
        }
        return PostgresLocation(endpoint: endpoint, user: user, database: database, tls: parameters.tls ?? .prefer)
    }

    /// The host (percent-decoded: `%2Frun%2Fpostgresql` is a socket directory) and the port; a nil
    /// host when the authority names none (`postgresql://USER@/DB?host=/run/postgresql`).
    private static func hostAndPort(_ authority: Substring) throws(ValueProblem) -> (host: String?, port: Int) {
        var hostText: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ValueProblem("has an IPv6 address without its closing ]; write it as [::1]")
            }
            hostText = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ValueProblem("has text after the IPv6 address's ]; write [ADDRESS]:PORT") }
                portText = after.dropFirst()
            }
            guard !hostText.isEmpty, hostText.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw ValueProblem("has an IPv6 address in [ ] that is not one; write it as [::1]")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostText = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
            guard !hostText.contains(":") else { throw ValueProblem("has an IPv6 address without brackets; write it as [::1]:PORT") }
        } else {
            hostText = authority
        }
        var port = defaultPort
        if let portText {
            // The text is not repeated: a bad port may be the end of a password.
            guard let number = Int(portText), portText.allSatisfy(\.isASCII), (1...65535).contains(number) else {
                throw ValueProblem("has a port that is not a number from 1 to 65535; write HOST:PORT, e.g. localhost:\(defaultPort)")
            }
            port = number
        }
        guard !hostText.isEmpty else { return (nil, port) }
        let host = try decoded(hostText, part: "host")
        if host.hasPrefix("/") {
            return (host, port)
        }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "%" }) else {
            throw ValueProblem(
                "has a host that is neither a name, an address nor a socket directory (%2Frun%2Fpostgresql); write \(example)")
        }
        return (host, port)
    }

    /// `?sslmode=` and `?host=` (a socket directory); any other parameter is refused by name.
    private static func parameters(_ query: Substring) throws(ValueProblem) -> (tls: TLSMode?, socketDirectory: String?) {
        var tls: TLSMode?
        var socketDirectory: String?
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name = pair.prefix { $0 != "=" }
            let value = pair.dropFirst(name.count + 1)
            let shownName = TerminalSafeText.sanitized(String(name))
            guard seen.insert(String(name)).inserted else {
                throw ValueProblem("gives ?\(shownName)= twice; keep one")
            }
            switch name {
            case "sslmode":
                let mode = try decoded(value, part: "sslmode")
                guard let chosen = TLSMode(rawValue: mode) else {
                    throw ValueProblem(
                        "has ?sslmode=\(TerminalSafeText.sanitized(mode)), which is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                tls = chosen
            case "host":
                let directory = try decoded(value, part: "host")
                guard directory.hasPrefix("/") else {
                    throw ValueProblem(
                        "has ?host= that is not the absolute directory of the server's Unix socket (e.g. ?host=/run/postgresql); write a TCP host before the port instead"
                    )
                }
                socketDirectory = directory
            case "password":
                throw ValueProblem(
                    "holds a password (?password=); FineDust never reads one from the URL: remove it and put the password in the file named by storage.passwordFile (mode 0600) or in the systemd credential \(PostgresPasswordLoader.credentialName)"
                )
            default:
                throw ValueProblem(
                    "has the parameter ?\(shownName)=, which FineDust does not understand; only ?sslmode= and ?host= are read")
            }
        }
        return (tls, socketDirectory)
    }

    /// A part of the URL, percent-decoded; refused when the escapes are broken, it is empty, or it
    /// holds a control character (it is printed in status and logs). The text is not repeated.
    private static func decoded(_ text: Substring, part: String) throws(ValueProblem) -> String {
        guard let value = String(text).removingPercentEncoding else {
            throw ValueProblem("has a \(part) with a broken %-escape; write each special character as % and two hex digits")
        }
        guard !value.isEmpty else { throw ValueProblem("has an empty \(part): \(example)") }
        guard !value.unicodeScalars.contains(where: TerminalSafeText.isUnsafe) else {
            throw ValueProblem("has a \(part) holding a control character; write it without one")
        }
        return value
    }

    /// `text` percent-decoded until nothing changes (at most 8 rounds): what any layer that decodes
    /// the user once more would see.
    private static func fullyDecoded(_ text: Substring) -> String {
        var current = String(text)
        for _ in 0..<8 {
            guard let next = current.removingPercentEncoding, next != current else { break }
            current = next
        }
        return current
    }
}
