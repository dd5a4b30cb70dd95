import DustKit
import Foundation

/// An HTTP response: status, body, and where a redirect pointed.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var body: Data
    /// The `Location` header of a 3xx answer (never followed: the key would go with the request).
    public var location: String?

    public init(status: Int, body: Data, location: String? = nil) {
        self.status = status
        self.body = body
        self.location = location
    }
}

/// Why an HTTP exchange failed before a response arrived. Descriptions never contain the URL.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No response within the per-request timeout.
    case timeout(seconds: Double)
    /// The connection could not be made, or broke (refused, reset, DNS, TLS).
    case connection(String)
    /// The body grew past the limit; reading stopped there.
    case bodyTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .timeout(let seconds):
            "AirKorea did not answer within \(seconds.formatted()) s (api.timeoutSeconds); FineDust retries with backoff."
        case .connection(let reason):
            "Could not reach AirKorea (\(reason)); check the network and api.baseURL. FineDust retries with backoff."
        case .bodyTooLarge(let limit):
            "The response was larger than \(limit / (1024 * 1024)) MiB, far beyond any AirKorea answer; reading stopped there."
        }
    }
}

/// Sends GET requests. Production uses AsyncHTTPClient; tests use a fake or a loopback server.
public protocol HTTPTransport: Sendable {
    /// Fetches `url`, giving up after `timeout` and refusing bodies larger than `maxBodyBytes`.
    /// A redirect is returned as it came, never followed.
    func get(_ url: String, timeout: Duration, maxBodyBytes: Int) async throws(TransportError) -> HTTPResponse
}

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
        case .httpStatus(let status): status >= 500 ? .retryWithBackoff : .waitForNextHour
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

/// A fetched page and where it came from.
public struct FetchedPage: Sendable {
    public var page: MeasurementPage
    public var httpStatus: Int

    public init(page: MeasurementPage, httpStatus: Int) {
        self.page = page
        self.httpStatus = httpStatus
    }
}

extension MeasurementPage {
    /// A page of readings built without a response body: for fakes of `MeasurementAPI`.
    public init(readings: [HourlyReading], paging: Paging, skipped: Int = 0) {
        self.init(readings: readings, paging: paging, skippedItems: skipped)
    }
}

/// Talks to AirKorea: builds the URL, sends it, and parses the answer into readings or a typed error.
///
/// It is the door through which AirKorea's text enters FineDust: every text of a page or an error
/// it returns has been checked by the key's `KeyEchoGuard` (its parser's fields and errors, the
/// redirect target, the transport's reason), so a text echoing the key is withheld whole here and
/// no store, log or page downstream has to look for it again.
public struct AirKoreaClient: Sendable {
    private let endpoint: AirKoreaEndpoint
    private let transport: any HTTPTransport
    private let parser: AirKoreaResponseParser
    private let timeout: Duration

    public init(
        endpoint: AirKoreaEndpoint, transport: any HTTPTransport, timeout: Duration = .seconds(30),
        parser: AirKoreaResponseParser = AirKoreaResponseParser()
    ) {
        self.endpoint = endpoint
        self.transport = transport
        self.timeout = timeout
        self.parser = parser.checking(with: endpoint.echoGuard)
    }

    /// The request as it may be logged or stored: `serviceKey=***`.
    public func redactedURL(for request: AirKoreaRequest) -> String {
        endpoint.redactedURL(for: request)
    }

    /// Fetches one page of measurements.
    public func measurements(_ request: AirKoreaRequest) async throws(FetchError) -> FetchedPage {
        let (page, status) = try await fetch(request) { body throws(AirKoreaError) in
            try parser.parseMeasurements(body, requestedStation: request.requestedStation)
        }
        return FetchedPage(page: page, httpStatus: status)
    }

    /// Fetches one page of the station list.
    public func stations(_ request: AirKoreaRequest) async throws(FetchError) -> StationPage {
        try await fetch(request) { body throws(AirKoreaError) in try parser.parseStations(body) }.0
    }

    /// Fetches one page of dust forecasts.
    public func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage {
        var (page, status) = try await fetch(request) { body throws(AirKoreaError) in try parser.parseForecasts(body) }
        page.httpStatus = status
        return page
    }

    private func fetch<Page>(
        _ request: AirKoreaRequest, parse: (Data) throws(AirKoreaError) -> Page
    ) async throws(FetchError) -> (Page, Int) {
        let response: HTTPResponse
        do {
            response = try await transport.get(endpoint.url(for: request), timeout: timeout, maxBodyBytes: parser.limits.maxDocumentBytes)
        } catch {
            throw .transport(withholdingEchoes(error))
        }
        if (300..<400).contains(response.status) {
            // A host can carry the key too (`KEY.evil.example`), or half of it.
            throw .redirect(status: response.status, host: endpoint.echoGuard.checked(endpoint.redacting(Self.host(of: response.location))))
        }
        let success = (200..<300).contains(response.status)
        // A server or proxy that echoes the request (an error page quoting the URL, an errMsg
        // with the query) would hand the key to every message, log line and row built from the
        // body: it is removed from the bytes before anything reads them.
        let body = endpoint.redacting(response.body)
        do {
            let page = try parse(body)
            guard success else { throw FetchError.httpStatus(response.status) }
            return (page, response.status)
        } catch let error as AirKoreaError {
            // An error status with an AirKorea error body (gateway 05 comes with 504) names the real
            // cause; an error status with anything else is reported as the status.
            if case .service = error { throw .response(error, httpStatus: response.status) }
            if !success { throw .httpStatus(response.status) }
            throw .response(error, httpStatus: response.status)
        } catch let error as FetchError {
            throw error
        } catch {
            throw .httpStatus(response.status)
        }
    }

    /// A transport failure whose reason (which may quote what the server sent) is checked too.
    private func withholdingEchoes(_ error: TransportError) -> TransportError {
        guard case .connection(let reason) = error else { return error }
        return .connection(endpoint.echoGuard.checked(reason))
    }

    /// The host a redirect points at, safe to show: no path or query (they may carry the key).
    public static func host(of location: String?) -> String {
        guard let location, !location.isEmpty else { return "an unnamed location" }
        guard let components = URLComponents(string: location) else { return "an unreadable location" }
        guard let host = components.host, !host.isEmpty else { return "another path on the same host" }
        let scheme = components.scheme.map { "\($0)://" } ?? ""
        let port = components.port.map { ":\($0)" } ?? ""
        return TerminalSafeText.sanitized(scheme + host + port)
    }
}
