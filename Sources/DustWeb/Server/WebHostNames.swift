import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The names a web without tokens answers to (docs/REFERENCE.md §13, "Addressed to this machine").
///
/// Without a token anyone who reaches the port reads everything, which is why the default listens on
/// loopback. A web page in a household's browser reaches it too, by DNS rebinding: `attacker.example`
/// answers DNS with 127.0.0.1 (or the server's LAN address), and the page's script then asks
/// `http://attacker.example:8478/api/v1/today`, a same-origin request to the browser, whose answer it
/// reads. The request says whose name it used in `Host`, so a web without tokens answers only names
/// that cannot be rebound by another: an IP address, `localhost`, this machine's host name, that name
/// under a home network's suffix (`pi.local`, a router's `pi.lan`), and the names `http.hostNames` lists.
/// Not any other name under a home suffix: no page from the internet has one, but any device on the
/// Wi-Fi can claim one (mDNS answers for `laptop.local` are anyone's to give, a router names a guest's
/// phone `phone.lan`) and point it at 127.0.0.1 once its page is open in a browser on this machine.
/// With tokens the check is not made: a rebound page holds no token and gets 401, like anyone else.
public struct WebHostNames: Sendable, Hashable {
    /// Lower-case names, without a trailing dot.
    let names: Set<String>
    /// This machine's host name and its first label (`pi` of `pi.example.org`), lower case; empty when unknown.
    let machine: Set<String>
    /// This machine's first label (`pi`), which a home suffix may follow; nil when unknown.
    let label: String?

    /// The suffixes under which a home network's own DNS (a router, mDNS) names a machine: this machine's
    /// name under one is allowed (a name another device would first have to take from this machine).
    static let homeSuffixes = ["local", "lan", "home", "home.arpa", "localdomain", "internal"]

    /// - Parameter configured: `http.hostNames`.
    /// - Parameter machine: this machine's host name; by default the system's (`gethostname`).
    public init(configured: [String] = [], machine: String? = WebHostNames.systemHostName()) {
        names = Set(configured.map(Self.normalized))
        let machine = machine.map(Self.normalized) ?? ""
        label = machine.isEmpty ? nil : String(machine.prefix { $0 != "." })
        self.machine = label.map { [machine, $0] } ?? []
    }

    /// `gethostname(2)`'s answer, or nil.
    public static func systemHostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    private static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Whether a request whose `Host` header is `host` was addressed to this machine. No header (an
    /// HTTP/1.0 client; every browser sends one) is allowed: rebinding works only through a browser.
    public func allows(host: String?) -> Bool {
        guard let host, !host.isEmpty else { return true }
        let name: String
        if host.hasPrefix("[") {
            // An IPv6 literal, `[::1]:8478`, perhaps with a zone (`[fe80::1%25eth0]`).
            guard let close = host.firstIndex(of: "]") else { return false }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCIIDigit) && rest.count > 1) else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            return Self.isIPv6(String(literal.prefix { $0 != "%" }))
        } else if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return false }
            name = Self.normalized(String(host[..<colon]))
        } else {
            name = Self.normalized(host)
        }
        if Self.isIPv4(name) || name == "localhost" || name.hasSuffix(".localhost") || names.contains(name) { return true }
        if machine.contains(name) { return true }
        // This machine's first label under a home suffix: `pi.local`, `pi.lan`, `pi.home.arpa`.
        guard let label, !label.isEmpty else { return false }
        return Self.homeSuffixes.contains { name == label + "." + $0 }
    }

    private static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    private static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
