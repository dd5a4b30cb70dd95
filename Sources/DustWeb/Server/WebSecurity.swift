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

/// Only GET and HEAD, small requests, a token where one is configured, and security headers on
/// every answer (SPEC §13).
struct WebSecurityMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: BearerToken?
    /// The Content-Security-Policy of every answer; pages get their own with the style hash.
    static var apiPolicy: String { "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'" }
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    static var frameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }
    /// Longest request target accepted.
    static var maxTargetLength: Int { 2048 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await checked(request, context: context, next: next)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        response.headers[Self.frameOptions] = "DENY"
        response.headers[.cacheControl] = response.headers[.cacheControl] ?? "no-store"
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.apiPolicy }
        return response
    }

    private func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            var response = WebResponse.text(.methodNotAllowed, "Only GET and HEAD are served.\n")
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        if request.uri.description.utf8.count > Self.maxTargetLength {
            return WebResponse.text(.uriTooLong, "The request target is too long.\n")
        }
        // Nothing here takes a body; refusing one keeps a client from making dustd read it.
        if let length = request.headers[.contentLength], length != "0" {
            return WebResponse.text(.contentTooLarge, "Requests with a body are not accepted.\n")
        }
        if request.headers[.transferEncoding] != nil {
            return WebResponse.text(.contentTooLarge, "Requests with a body are not accepted.\n")
        }
        if let token, request.uri.path != "/healthz", !token.accepts(request.headers[.authorization]) {
            var response = WebResponse.text(.unauthorized, "A bearer token is required (http.tokenFile).\n")
            response.headers[.wwwAuthenticate] = "Bearer realm=\"dustd\""
            return response
        }
        return try await next(request, context)
    }
}

/// Responses with their content types.
enum WebResponse {
    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// An HTML page whose only active content is one `<style>` element, allowed by its hash.
    static func html(_ page: String, styleSheet: String, status: HTTPResponse.Status = .ok) -> Response {
        let hash = Data(SHA256.hash(data: Data(styleSheet.utf8))).base64EncodedString()
        return Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: "default-src 'none'; style-src 'sha256-\(hash)'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ], body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}
