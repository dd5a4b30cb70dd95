import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The bearer token `http.tokenFile` holds, compared in constant time and never shown.
public struct BearerToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let bytes: [UInt8]

    /// The token from a file's first line; nil when it is empty.
    public init?(_ text: String) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return nil }
        bytes = Array(token.utf8)
    }

    /// True when an `Authorization` header carries this token (`Bearer <token>`). The comparison
    /// takes as long for a wrong token of any length as for the right one.
    public func accepts(_ authorization: String?) -> Bool {
        guard let authorization, authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else { return false }
        let offered = Array(authorization.dropFirst(7).utf8)
        var difference = UInt8(truncatingIfNeeded: offered.count ^ bytes.count)
        for index in 0..<bytes.count {
            difference |= bytes[index] ^ (index < offered.count ? offered[index] : 0)
        }
        return difference == 0
    }

    public var description: String { "***" }
    public var debugDescription: String { "***" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The headers every answer carries, whoever writes it: the router's middleware puts them on what
/// the routes answer, `WebConnectionHandler` on whatever else reaches the wire (Hummingbird's own
/// 400, an error thrown past the middleware).
enum WebSecurityHeaders {
    /// The Content-Security-Policy of every answer; pages get their own with the style hash.
    static var apiPolicy: String { "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'" }
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }

    /// Adds what is missing; a page's own policy and cache rule stay.
    static func apply(to headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[referrerPolicy] = "no-referrer"
        headers[frameOptions] = "DENY"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = apiPolicy }
    }

    /// Whether a request says a body follows: nothing here takes one.
    static func carriesBody(_ headers: HTTPFields) -> Bool {
        headers[.transferEncoding] != nil || headers[.contentLength].map { $0 != "0" } == true
    }
}

/// Only GET and HEAD, small requests, a token where one is configured, and security headers on
/// every answer (docs/REFERENCE.md §13).
struct WebSecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: BearerToken?
    /// Longest request target accepted.
    static var maxTargetLength: Int { 2048 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await checked(request, context: context, next: next)
        } catch let error as any HTTPResponseError {
            // The router's 404 for an unknown path arrives as an error: answered here, so it
            // carries the headers like any other answer.
            response = try error.response(from: request, context: context)
        }
        WebSecurityHeaders.apply(to: &response.headers)
        return response
    }

    private func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            var response = WebResponse.text(.methodNotAllowed, "Only GET and HEAD are served.\n").response
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        if request.uri.description.utf8.count > Self.maxTargetLength {
            return WebResponse.text(.uriTooLong, "The request target is too long.\n").response
        }
        // Nothing here takes a body; refusing one keeps a client from making dustd read it (and
        // WebConnectionHandler closes the connection after this answer).
        if WebSecurityHeaders.carriesBody(request.headers) {
            return WebResponse.text(.contentTooLarge, "Requests with a body are not accepted.\n").response
        }
        if let token, request.uri.path != "/healthz", !token.accepts(request.headers[.authorization]) {
            var response = WebResponse.text(.unauthorized, "A bearer token is required (http.tokenFile).\n").response
            response.headers[.wwwAuthenticate] = "Bearer realm=\"dustd\""
            return response
        }
        return try await next(request, context)
    }
}

/// What a handler answers, before it leaves: `WebServer.route`, the one door of every page and
/// document, checks its whole text for an echo of the service key, then makes it a `Response`.
struct WebReply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var text: String

    var response: Response { Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text))) }
}

/// Answers with their content types.
enum WebResponse {
    static func text(_ status: HTTPResponse.Status, _ text: String) -> WebReply {
        WebReply(status: status, headers: [.contentType: "text/plain; charset=utf-8"], text: text)
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> WebReply {
        WebReply(status: status, headers: [.contentType: "application/json; charset=utf-8"], text: text)
    }

    /// An HTML page whose only active content is one `<style>` element, allowed by its hash.
    static func html(_ page: String, styleSheet: String, status: HTTPResponse.Status = .ok) -> WebReply {
        let hash = Data(SHA256.hash(data: Data(styleSheet.utf8))).base64EncodedString()
        return WebReply(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'sha256-\(hash)'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            ], text: page)
    }

    /// The Prometheus text exposition.
    static func metrics(_ text: String) -> WebReply {
        WebReply(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], text: text)
    }
}
