import Foundation

/// Sends GET requests. Production uses `AsyncHTTPTransport` (DustHTTP's client); tests use a fake or a loopback server.
public protocol HTTPTransport: Sendable {
    /// Fetches `url`, giving up after `timeout` and refusing bodies larger than `maxBodyBytes`.
    /// A redirect is returned as it came, never followed.
    func get(_ url: String, timeout: Duration, maxBodyBytes: Int) async throws(TransportError) -> HTTPResponse
}

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
