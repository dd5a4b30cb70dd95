import AirKorea
import Foundation

extension APISettings {
    /// A warning when the service key would cross the network in clear text: `api.baseURL` is plain
    /// `http://` to a host other than this machine (tests use a loopback server, which is fine).
    public var cleartextWarning: String? {
        guard let host = clearTextHost(of: baseURL) else { return nil }
        return
            "api.baseURL is plain http:// to \(host): the service key travels in clear text and anyone on the way can read it; use \(AirKoreaEndpoint.defaultBaseURL)"
    }
}

/// The host of a plain `http://` URL that leaves this machine (what it sends, anyone on the way
/// can read); nil for https, a loopback host or no URL at all.
public func clearTextHost(of url: String) -> String? {
    guard let url = URL(string: url), url.scheme?.lowercased() == "http", let host = url.host?.lowercased(),
        !isLoopbackHost(host)
    else { return nil }
    return host
}

/// True for a host only this machine can reach: `localhost`, an IPv4 address in 127/8, `::1` (bracketed or
/// not). An address, not a prefix of a name: `127.evil.example` is anyone's.
public func isLoopbackHost(_ host: String) -> Bool {
    let name = host.lowercased()
    if name == "localhost" || name == "::1" || name == "[::1]" { return true }
    var address = in_addr()
    guard inet_pton(AF_INET, name, &address) == 1 else { return false }
    return UInt32(bigEndian: address.s_addr) >> 24 == 127
}
