/// Why a request to AirKorea failed.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No usable HTTP response.
    case transport(TransportError)
    /// An HTTP error status whose body named no AirKorea error.
    case httpStatus(Int)
    /// A 3xx answer pointing at `host`; not followed, because the service key would travel with it.
    case redirect(status: Int, host: String)
    /// A response whose body is an AirKorea error or cannot be used.
    case response(AirKoreaError, httpStatus: Int)

    public var description: String {
        switch self {
        case .transport(let error): error.description
        case .httpStatus(let status) where status < 200:
            "AirKorea's address answered HTTP \(status), which ends no request (an informational status as the answer): a server "
                + "or proxy in between is broken; FineDust retries with backoff."
        case .httpStatus(let status):
            status >= 500
                ? "AirKorea answered HTTP \(status); the service is having trouble, FineDust retries with backoff."
                : "AirKorea answered HTTP \(status); check api.baseURL and the service key."
        case .redirect(let status, let host):
            "AirKorea's address answered HTTP \(status), redirecting to \(host); FineDust never follows a redirect because the service key would go with it. Check api.baseURL (it should be \(AirKoreaEndpoint.defaultBaseURL)) and any proxy in between."
        case .response(let error, _): error.description
        }
    }

    /// When to try again (docs/REFERENCE.md §7).
    public var retryAdvice: RetryAdvice {
        switch self {
        case .transport: .retryWithBackoff
        // 1xx as the answer is a broken peer, not a key or an address to fix: tried again like a 5xx.
        case .httpStatus(let status): status >= 500 || status < 200 ? .retryWithBackoff : .waitForNextHour
        case .redirect: .waitForNextHour
        case .response(let error, _): error.retryAdvice
        }
    }

    /// The HTTP status, when a response arrived.
    public var httpStatus: Int? {
        switch self {
        case .transport: nil
        case .httpStatus(let status), .redirect(let status, _): status
        case .response(_, let status): status
        }
    }

    /// The AirKorea result code, when the body carried one.
    public var resultCode: String? {
        if case .response(.service(_, let reported, _), _) = self { return reported }
        return nil
    }
}
