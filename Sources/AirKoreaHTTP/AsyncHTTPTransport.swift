import AirKorea
import AsyncHTTPClient
import DustKit
import Foundation
import NIOCore
import NIOHTTP1

/// `HTTPTransport` on AsyncHTTPClient. Owns its client; call `shutdown()` before exit.
public final class AsyncHTTPTransport: HTTPTransport {
    private let client: HTTPClient

    public init() {
        var configuration = HTTPClient.Configuration()
        // Never follow a redirect: the service key is in the query and would go wherever it points,
        // in clear text after an HTTPS→HTTP hop. AirKoreaClient reports a 3xx as an error instead.
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(10))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    public func get(_ url: String, timeout: Duration, maxBodyBytes: Int) async throws(TransportError) -> HTTPResponse {
        let seconds = timeout.seconds
        do {
            // The deadline bounds the whole exchange, body included, not only the response head.
            return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.headers.add(name: "Accept", value: "application/xml, text/xml")
                    request.headers.add(name: "User-Agent", value: "FineDust-dustd")
                    let response = try await self.client.execute(request, timeout: .nanoseconds(Int64(seconds * 1e9)))
                    // Refuse oversized bodies up front when the length is declared, and stop reading otherwise.
                    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodyBytes {
                        throw TransportError.bodyTooLarge(limit: maxBodyBytes)
                    }
                    let body = try await response.body.collect(upTo: maxBodyBytes)
                    return HTTPResponse(
                        status: Int(response.status.code), body: Data(body.readableBytesView),
                        location: response.headers.first(name: "Location"))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw TransportError.timeout(seconds: seconds)
                }
                return response
            }
        } catch let error as TransportError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .bodyTooLarge(limit: maxBodyBytes)
        } catch let error as HTTPParserError {
            throw .notHTTP(Self.safeDescription(error))
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                throw .timeout(seconds: seconds)
            default:
                throw .connection(Self.safeDescription(error))
            }
        } catch {
            throw Self.unclassified(error)
        }
    }

    /// A failure no case above named: a socket this process could not make for want of descriptors is
    /// the process's (`tooManyOpenFiles`), anything else the connection's.
    static func unclassified(_ error: any Error) -> TransportError {
        if let failure = error as? IOError, failure.errnoCode == EMFILE || failure.errnoCode == ENFILE { return .tooManyOpenFiles }
        // A system call's failure in the system's words ("connection refused"), not NIO's description of
        // it, which read "connection reset (error set): Connection refused (errno: 111)" on the dashboard.
        if let failure = error as? IOError, failure.errnoCode != 0 {
            return .connection(String(cString: strerror(failure.errnoCode)).lowercased())
        }
        return .connection(safeDescription(error))
    }

    /// An error's description with anything that looks like a query string removed, so a URL
    /// carrying the service key can never reach a log through a library's error text.
    static func safeDescription(_ error: any Error) -> String {
        var text = TerminalSafeText.sanitized(String(describing: error))
        if let query = text.firstIndex(of: "?") { text = String(text[..<query]) + "?…" }
        return text
    }
}
