import DustKit
import Foundation

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

    /// Fetches one page of the weekly outlook.
    public func weeklyOutlooks(_ request: AirKoreaRequest) async throws(FetchError) -> WeeklyOutlookPage {
        var (page, status) = try await fetch(request) { body throws(AirKoreaError) in try parser.parseWeeklyOutlooks(body) }
        page.httpStatus = status
        return page
    }

    /// Fetches one page of advisories; `request` must be an `.advisories` request.
    public func advisories(_ request: AirKoreaRequest) async throws(FetchError) -> AdvisoryPage {
        // A programmer's error, never the network's: no other request is answered with advisories.
        guard case .advisories(_, let pollutant, _, _) = request else { preconditionFailure("advisories(_:) needs an .advisories request") }
        var (page, status) = try await fetch(request) { body throws(AirKoreaError) in try parser.parseAdvisories(body, pollutant: pollutant)
        }
        page.httpStatus = status
        return page
    }

    /// - Parameter parse: run on a thread of its own (`OwnThread.result`): libxml2 reading a national
    ///   answer or a 3MONTH backfill never holds one of the task pool's threads.
    private func fetch<Page: Sendable>(
        _ request: AirKoreaRequest, parse: @escaping @Sendable (Data) throws(AirKoreaError) -> Page
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
            let page = try await OwnThread.result { () throws(AirKoreaError) -> Page in try parse(body) }
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
        switch error {
        case .connection(let reason): .connection(endpoint.echoGuard.checked(reason))
        case .notHTTP(let reason): .notHTTP(endpoint.echoGuard.checked(reason))
        case .timeout, .bodyTooLarge, .tooManyOpenFiles: error
        }
    }

    /// The host a redirect points at, safe to show: no path or query (they may carry the key), and
    /// only a host a resolver could look up (letters, digits, `-`, `.`, an IP address; at most 253
    /// bytes, as DNS allows) after an `http` or `https` scheme. A header may be 80 KiB long and a
    /// host percent-encoded into any characters: anything else is not quoted.
    public static func host(of location: String?) -> String {
        guard let location, !location.isEmpty else { return "an unnamed location" }
        guard let components = URLComponents(string: location) else { return "an unreadable location" }
        let scheme = components.scheme?.lowercased()
        guard scheme == nil || scheme == "http" || scheme == "https" else { return "a location of another scheme" }
        guard let host = components.percentEncodedHost, !host.isEmpty else { return "another path on the same host" }
        let hostBytes = host.utf8
        guard hostBytes.count <= 253, hostBytes.allSatisfy(isHostByte) else { return "a host no resolver could look up" }
        // The host is the server's text, and a server holds the key: `k.8w0wjLMzgdY.x.rcPWfRtNKr4.…` spelt it
        // whole in the log. Named only when it is one of data.go.kr's or AirKorea's, or a private or
        // loopback IPv4 address (a captive portal's, a proxy's), and its port only when it is a web port:
        // any other address or port is bits of the server's choosing, a piece of the key a redirect.
        guard knownHosts.contains(host.lowercased()) || isPrivateIPv4(host) else { return "another host" }
        let port = components.port.map { webPorts.contains($0) ? ":\($0)" : "" } ?? ""
        return (scheme.map { "\($0)://" } ?? "") + host.lowercased() + port
    }

    /// The ports a web server answers on by custom.
    static let webPorts: Set<Int> = [80, 443, 8000, 8080, 8443]

    /// Whether `host` is an IPv4 address of a private network (RFC 1918, shared 100.64/10, link-local)
    /// or of this machine (127/8).
    static func isPrivateIPv4(_ host: String) -> Bool {
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        let value = UInt32(bigEndian: address.s_addr)
        let (a, b) = (value >> 24, (value >> 16) & 0xFF)
        return a == 10 || a == 127 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 169 && b == 254)
            || (a == 100 && (64...127).contains(b))
    }

    /// The hosts AirKorea's API has been served from.
    static let knownHosts: Set<String> = [
        "apis.data.go.kr", "data.go.kr", "www.data.go.kr", "openapi.airkorea.or.kr", "airkorea.or.kr", "www.airkorea.or.kr",
    ]

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"): true
        default: false
        }
    }
}
