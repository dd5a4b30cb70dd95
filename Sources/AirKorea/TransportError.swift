import Foundation

/// Why an HTTP exchange failed before a response arrived. Descriptions never contain the URL.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No response within the per-request timeout.
    case timeout(seconds: Double)
    /// The connection could not be made, or broke (refused, reset, DNS, TLS).
    case connection(String)
    /// The body grew past the limit; reading stopped there.
    case bodyTooLarge(limit: Int)
    /// Something answered at the address, but not in HTTP (an SSH or mail server on that port, a
    /// broken proxy): the HTTP decoder's reason, which quotes nothing the server sent.
    case notHTTP(String)
    /// This process has as many files open as it may (EMFILE, ENFILE): no socket could be made. The
    /// network is not at fault, and saying "check the network" sent the operator the wrong way.
    case tooManyOpenFiles

    public var description: String {
        switch self {
        case .timeout(let seconds):
            "AirKorea did not answer within \(seconds.formatted()) s (api.timeoutSeconds); FineDust retries with backoff."
        case .connection(let reason):
            "Could not reach AirKorea (\(reason)); check the network and api.baseURL. FineDust retries with backoff."
        case .notHTTP(let reason):
            "Something answered at api.baseURL's address, but not in HTTP (\(reason)): another kind of server or a broken proxy is "
                + "there; check api.baseURL's scheme, host and port. FineDust retries with backoff."
        case .tooManyOpenFiles:
            "dustd could not open a connection to AirKorea: it has as many files open as it may (too many open files: the "
                + "unit's LimitNOFILE, or a leak to report). FineDust retries with backoff; if this persists, restart dustd."
        case .bodyTooLarge(let limit):
            "The response was larger than \(limit / (1024 * 1024)) MiB, far beyond any AirKorea answer; reading stopped there."
        }
    }
}
