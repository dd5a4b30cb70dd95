import AirKorea
import DustHTTP
import DustKit
import Foundation

/// `HTTPTransport` on dustd's HTTP client (`OneShotHTTPClient`, DustHTTP): a redirect is an answer,
/// never followed (the service key is in the query and would go wherever it points, in clear text
/// after an HTTPS→HTTP hop; AirKoreaClient reports a 3xx as an error instead), and the deadline
/// bounds the whole exchange, body included.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client = OneShotHTTPClient(connectTimeout: .seconds(10), userAgent: "FineDust-dustd")

    public init() {}

    /// Nothing to close: each exchange has a connection of its own, closed with it.
    public func shutdown() async {}

    public func get(_ url: String, timeout: Duration, maxBodyBytes: Int) async throws(TransportError) -> HTTPResponse {
        do {
            let answer = try await client.exchange(
                .GET, url, headers: [("Accept", "application/xml, text/xml")], deadline: timeout,
                limit: { _ in .refuseOver(maxBodyBytes) })
            return HTTPResponse(status: answer.status, body: Data(answer.body), location: answer.headers.first(name: "Location"))
        } catch {
            throw Self.transportError(error, timeout: timeout)
        }
    }

    /// The client's failure as AirKorea's transport says it.
    static func transportError(_ failure: HTTPExchangeFailure, timeout: Duration) -> TransportError {
        switch failure {
        case .timedOut: .timeout(seconds: timeout.seconds)
        case .noConnection: .timeout(seconds: timeout.seconds)
        case .notAnHTTPURL: .connection("api.baseURL is not an http or https URL")
        case .unreachable: .connection("its host name did not resolve, or nothing answered at its address")
        case .system(let words): .connection(words)
        case .tooManyOpenFiles: .tooManyOpenFiles
        case .closedBeforeAnswer: .connection("the connection closed before an answer")
        case .notHTTP(let reason): .notHTTP(TerminalSafeText.sanitized(reason))
        case .tls: .connection("TLS failed: a certificate this machine does not trust, or no TLS at that address")
        case .bodyTooLarge(let limit): .bodyTooLarge(limit: limit)
        }
    }
}
