import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// Says once per server that a trusted reverse proxy (`http.trustedProxies`) forwards requests without saying
/// their scheme (`X-Forwarded-Proto`, or `proto=` in `Forwarded`). dustd makes a session cookie `Secure` only
/// when the request says it came over https (docs/REFERENCE.md §13), so behind such a proxy the cookie of a
/// phone signed in over https is sent again in the clear to any `http://` address of the same name (the
/// proxy's port-80 redirect), where anyone on the way may copy it for its 30 days.
final class ProxySchemeNotice: Sendable {
    private let said = Atomic<Bool>(false)

    /// Checks a request that reached dustd; logs the warning the first time one a trusted proxy forwarded (it says
    /// whom for) says no scheme. A request of the proxy's machine's own (a monitor's `curl /healthz`) says neither.
    func check(_ request: Request, peer: String?, access: WebAccess, logger: Logger) {
        guard !said.load(ordering: .relaxed), let peer, let address = WebAccess.canonicalAddress(peer),
            access.trustedProxies.contains(address), Self.isForwarded(request.headers), !Self.saysScheme(request.headers)
        else { return }
        guard !said.exchange(true, ordering: .relaxed) else { return }
        logger.warning(
            "The trusted proxy \(address) forwards requests without X-Forwarded-Proto: a session cookie set through it is not Secure, so a browser signed in over https sends it again over plain http. Add `proxy_set_header X-Forwarded-Proto $scheme;` (nginx) to the proxy (docs/REFERENCE.md §13)."
        )
    }

    /// Whether a proxy says it forwarded the request for someone (`X-Forwarded-For`, or `for=` in `Forwarded`).
    static func isForwarded(_ headers: HTTPFields) -> Bool {
        if headers[HTTPField.Name("X-Forwarded-For")!] != nil { return true }
        return headers[values: HTTPField.Name("Forwarded")!].contains { $0.lowercased().contains("for=") }
    }

    /// Whether the request carries the scheme a proxy forwarded it from, either way.
    static func saysScheme(_ headers: HTTPFields) -> Bool {
        if headers[HTTPField.Name("X-Forwarded-Proto")!] != nil { return true }
        return headers[values: HTTPField.Name("Forwarded")!].contains { $0.lowercased().contains("proto=") }
    }
}
