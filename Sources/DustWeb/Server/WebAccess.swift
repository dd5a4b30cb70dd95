import Crypto
import Foundation
import Synchronization

/// Who a request is (docs/REFERENCE.md §13, "Who may see whose data"): everyone's data, or one
/// person's alone.
public enum WebPrincipal: Sendable, Hashable {
    /// The administrator's token, or no token configured at all: every person, `/metrics`, `/api/v1/status`.
    case everyone
    /// A person's own token: their pages and documents, the air they share, and nothing of anyone else's.
    case person(String)
    /// No token, where tokens are configured: `/healthz` and the sign-in page only.
    case anonymous

    /// The name a session cookie carries.
    /// Whether this is one person (not the administrator, not anonymous).
    var isPerson: Bool {
        if case .person = self { return true }
        return false
    }

    var cookieName: String {
        switch self {
        case .everyone: "*"
        case .person(let name): "p:" + name
        case .anonymous: "-"
        }
    }
}

/// The tokens dustd's web accepts: the administrator's (`http.tokenFile`) and each person's
/// (`people[].tokenFile`). With none, everything is open, as it was before tokens (and should then
/// listen on loopback only). Compared in constant time: a request's token is compared with every
/// configured one, whichever matches.
public struct WebAccess: Sendable {
    public let administrator: BearerToken?
    public let people: [(name: String, token: BearerToken)]
    /// The names a web without tokens answers to (`WebHostNames`); with tokens, any.
    public let hostNames: WebHostNames
    /// The reverse proxies whose `X-Forwarded-For` is believed (`http.trustedProxies`), canonical.
    public let trustedProxies: Set<String>

    /// A token of random bytes no one holds: a cookie naming no configured person is checked against it,
    /// so that it takes as long to refuse as one naming a person (`SessionCookie.verify`).
    let decoy: BearerToken

    public init(
        administrator: BearerToken?, people: [(name: String, token: BearerToken)] = [], hostNames: WebHostNames = WebHostNames(),
        trustedProxies: [String] = []
    ) {
        self.administrator = administrator
        self.people = people
        self.hostNames = hostNames
        self.trustedProxies = Set(trustedProxies.compactMap(Self.canonicalAddress))
        var generator = SystemRandomNumberGenerator()
        decoy = BearerToken((0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined())!
    }

    public var requiresTokens: Bool { administrator != nil || !people.isEmpty }

    /// Whether `other` opens the web to exactly whom this does, with the same tokens (for a reload to
    /// tell that a token changed in its file).
    public func opensTheSame(as other: WebAccess) -> Bool {
        func same(_ a: BearerToken?, _ b: BearerToken?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): a.isSameToken(as: b)
            default: false
            }
        }
        return same(administrator, other.administrator) && hostNames == other.hostNames && trustedProxies == other.trustedProxies
            && people.count == other.people.count
            && zip(people, other.people).allSatisfy { $0.name.utf8.elementsEqual($1.name.utf8) && $0.token.isSameToken(as: $1.token) }
    }

    /// Whom a request came from, for the sign-in throttle and the log: the peer's address, or, when the
    /// peer is a trusted reverse proxy, the address it says it forwards for. That is the rightmost entry
    /// of `X-Forwarded-For` (every field, in order) that is not itself a trusted proxy: the one the
    /// nearest proxy appended; what a client writes there itself stands to its left, and is not read.
    /// A proxy whose entry is not an address (`unknown`, a name) is taken for the client itself.
    public func clientAddress(peer: String?, forwardedFor: [String]) -> String {
        guard let peer else { return "local" }
        guard let canonicalPeer = Self.canonicalAddress(peer), trustedProxies.contains(canonicalPeer) else { return peer }
        for entry in forwardedFor.flatMap({ $0.split(separator: ",") }).reversed() {
            guard let address = Self.canonicalAddress(entry.trimmingCharacters(in: .whitespaces)) else { return peer }
            if !trustedProxies.contains(address) { return address }
        }
        return peer
    }

    /// An address as inet_ntop writes it (`::ffff:10.0.0.1` as `10.0.0.1`; `[::1]`, `[::1]:443` and
    /// `10.0.0.1:443`, as a proxy may write a client, without brackets and port); nil when not one.
    static func canonicalAddress(_ text: some StringProtocol) -> String? {
        var text = String(text)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        guard text.utf8.count <= 64 else { return nil }
        var v4 = in_addr()
        var v6 = in6_addr()
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if inet_pton(AF_INET, text, &v4) == 1 {
            guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            // An IPv4 client on a dual-stack socket: ::ffff:a.b.c.d is a.b.c.d.
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12..<16].map(String.init).joined(separator: ".")
            }
            guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        } else {
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The principal a token opens; nil when it opens nothing. Every configured token is compared,
    /// whether or not an earlier one matched.
    public func principal(token offered: String) -> WebPrincipal? {
        let bytes = Array(offered.utf8)
        var found: WebPrincipal?
        if let administrator, administrator.matches(bytes) { found = .everyone }
        for (name, token) in people where token.matches(bytes) {
            if found == nil { found = .person(name) }
        }
        return found
    }

    /// The principal of an `Authorization: Bearer …` header; nil when it names no token.
    public func principal(authorization: String?) -> WebPrincipal? {
        guard let authorization, authorization.utf8.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return nil }
        return principal(token: String(authorization.dropFirst(7)))
    }

    /// The token of `principal`, which signs its session cookies. A person's name is matched byte for byte
    /// against every configured name: Swift's `==` takes 민지 composed and decomposed for one name, which
    /// the sign-outs, stored by name, do not.
    func token(of principal: WebPrincipal) -> BearerToken? {
        switch principal {
        case .everyone: administrator
        case .person(let name): people.filter { $0.name.utf8.elementsEqual(name.utf8) }.first?.token
        case .anonymous: nil
        }
    }
}

/// The cookie a browser signs in with (`POST /login`): `v2.<principal>.<expiry>.<sign-outs>.<MAC>`, the
/// MAC an HMAC-SHA256 keyed by the principal's own token. Nothing is kept on the server but each
/// principal's count of sign-outs (`SignOuts`): the cookie survives a restart, expires after
/// `lifetime`, is ended by the next sign-out (its count no longer the principal's), and changing a
/// token (then restarting dustd) ends every session it opened. A `v1` cookie of an older FineDust
/// (no count) counts 0 sign-outs.
public struct SessionCookie: Sendable {
    public static let name = "dustd_session"
    /// 30 days; a request in the second half of it renews the cookie.
    public static let lifetime: TimeInterval = 30 * 86_400

    let access: WebAccess

    public init(access: WebAccess) { self.access = access }

    /// A new cookie value for `principal`, issued under its `signOuts` count, valid until `now +
    /// lifetime`; nil when it has no token.
    public func issue(for principal: WebPrincipal, signOuts: Int64, now: Date) -> (value: String, expires: Date)? {
        guard let token = access.token(of: principal) else { return nil }
        let expiry = Int64(now.timeIntervalSince1970) + Int64(Self.lifetime)
        let subject = Self.base64URL(Data(principal.cookieName.utf8))
        let mac = Self.base64URL(Data(token.authenticationCode(for: "dustd-session-v2|\(subject)|\(expiry)|\(signOuts)")))
        return ("v2.\(subject).\(expiry).\(signOuts).\(mac)", Date(timeIntervalSince1970: TimeInterval(expiry)))
    }

    /// The principal a cookie value opens now, when it expires and the count of sign-outs it was issued
    /// under; nil for anything else.
    public func verify(_ value: String, now: Date) -> (principal: WebPrincipal, expires: Date, signOuts: Int64)? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        // v1.<principal>.<expiry>.<MAC> (no count: 0), or v2.<principal>.<expiry>.<count>.<MAC>.
        let version2 = parts.count == 5 && parts[0] == "v2"
        guard value.utf8.count <= 512, version2 || (parts.count == 4 && parts[0] == "v1") else { return nil }
        let signOutsText = version2 ? String(parts[3]) : "0"
        guard let expiry = Int64(parts[2]), let signOuts = Int64(signOutsText), signOuts >= 0,
            expiry > Int64(now.timeIntervalSince1970), expiry <= Int64(now.timeIntervalSince1970 + Self.lifetime) + 60,
            let subjectData = Self.data(base64URL: String(parts[1])), let subject = String(data: subjectData, encoding: .utf8),
            let mac = Self.data(base64URL: String(parts[parts.count - 1]))
        else { return nil }
        let principal: WebPrincipal
        if subject == "*" {
            principal = .everyone
        } else if subject.hasPrefix("p:") {
            principal = .person(String(subject.dropFirst(2)))
        } else {
            return nil
        }
        // A name nobody configured costs the same HMAC as one that is: the time a refusal takes does not
        // tell a stranger which names have a token.
        let token = access.token(of: principal)
        let signedText = version2 ? "dustd-session-v2|\(parts[1])|\(expiry)|\(parts[3])" : "dustd-session-v1|\(parts[1])|\(expiry)"
        let signed = (token ?? access.decoy).isAuthenticationCode(mac, for: signedText)
        guard token != nil, signed else { return nil }
        return (principal, Date(timeIntervalSince1970: TimeInterval(expiry)), signOuts)
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        guard text.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}

/// Failed sign-ins, counted per client address: past `perAddress` failures from one address within
/// `window`, `POST /login` and a Bearer request from it answer 429 until the window has moved on. A
/// success does not count; nothing else is remembered about a client. There is no count of all
/// addresses together: 50 guesses from five addresses held back every household member's sign-in for
/// ten minutes, renewable by a stranger at will, while a token of 16 characters or more is beyond any
/// number of addresses guessing ten each per ten minutes.
///
/// Failures are kept per address and forgotten by time, never by count: a client rotating through
/// many addresses cannot push its own older failures out. An IPv6 client counts by its /64, which one
/// host is given whole. At most `maxAddresses` addresses are remembered; while that many have failed
/// within the window, an address not among them is held back too (answered 429), rather than anyone
/// forgotten.
public final class LoginThrottle: Sendable {
    public let perAddress: Int
    public let window: TimeInterval
    public let maxAddresses: Int
    /// Each address's failures within the window, oldest first, at most `perAddress` of them.
    private let failures = Mutex<[String: [Date]]>([:])

    public init(perAddress: Int = 10, window: TimeInterval = 600, maxAddresses: Int = 4096) {
        self.perAddress = perAddress
        self.window = window
        self.maxAddresses = maxAddresses
    }

    /// Seconds until `address` may try again; nil when it may now.
    public func retryAfter(address: String, now: Date) -> Int? {
        let key = Self.key(address)
        return failures.withLock { failures in
            forgetOld(&failures, now: now)
            let blocking: Date?
            if let own = failures[key], own.count >= perAddress {
                blocking = own[own.count - perAddress]
            } else if failures[key] == nil, failures.count >= maxAddresses {
                blocking = failures.values.compactMap(\.first).min()
            } else {
                blocking = nil
            }
            return blocking.map { max(1, Int((window - now.timeIntervalSince($0)).rounded(.up))) }
        }
    }

    public func recordFailure(address: String, now: Date) {
        let key = Self.key(address)
        failures.withLock { failures in
            if failures[key] == nil, failures.count >= maxAddresses {
                forgetOld(&failures, now: now)
                // Still full: this address is held back by `retryAfter` until some leave the window.
                guard failures.count < maxAddresses else { return }
            }
            var own = failures[key, default: []]
            own.append(now)
            failures[key] = Array(own.suffix(perAddress))
        }
    }

    private func forgetOld(_ failures: inout [String: [Date]], now: Date) {
        for (key, times) in failures {
            let kept = times.filter { now.timeIntervalSince($0) < window && $0 <= now }
            failures[key] = kept.isEmpty ? nil : kept
        }
    }

    /// The address a failure counts against: an IPv6 address by its first 64 bits (an IPv4 address
    /// mapped into IPv6 as the IPv4 address), anything else as it is.
    static func key(_ address: String) -> String {
        // (The IPv4-mapped rule is `WebAccess.canonicalAddress`'s.)
        guard let canonical = WebAccess.canonicalAddress(address) else { return address }
        var bytes = in6_addr()
        guard canonical.contains(":"), inet_pton(AF_INET6, canonical, &bytes) == 1 else { return canonical }
        let octets = withUnsafeBytes(of: bytes) { Array($0) }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16) }
            .joined(separator: ":") + "::/64"
    }
}
