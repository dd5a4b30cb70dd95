import Crypto
import DustServices
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The bearer token `http.tokenFile` holds, compared in constant time and never shown.
public struct BearerToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let bytes: [UInt8]

    /// The token from a file's first line; nil when it is empty.
    public init?(_ text: String) {
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { return nil }
        bytes = Array(token.utf8)
    }

    /// The fewest characters a configured token may have (dustd refuses a shorter one at start).
    public static let minimumLength = 16

    /// How many characters the token has.
    public var length: Int { String(decoding: bytes, as: UTF8.self).count }

    /// Whether `offered` is this token. The comparison takes as long for a wrong token of any
    /// length as for the right one.
    func matches(_ offered: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: offered.count ^ bytes.count) | (offered.count == bytes.count ? 0 : 1)
        for index in 0..<bytes.count {
            difference |= bytes[index] ^ (index < offered.count ? offered[index] : 0)
        }
        return difference == 0
    }

    /// Whether two tokens are one (for refusing a token configured twice; not constant time).
    public func isSameToken(as other: BearerToken) -> Bool { bytes == other.bytes }

    /// HMAC-SHA256 of `message` keyed by this token: what signs the session cookies it opens.
    func authenticationCode(for message: String) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key))
    }

    /// Whether `code` is `message`'s code under this token, compared in constant time.
    func isAuthenticationCode(_ code: Data, for message: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Data(message.utf8), using: key)
    }

    /// The HMAC key: derived from the token, so a cookie never holds anything the token can be read from.
    private var key: SymmetricKey { SymmetricKey(data: SHA256.hash(data: Data("dustd session key|".utf8) + Data(bytes))) }

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

    /// The name and port a request was addressed to: HTTP/1's `Host`, which the server hands on as the
    /// request's authority.
    static func host(of request: Request) -> String? {
        request.head.authority
    }

    /// `X-Forwarded-For`: read only from a trusted proxy (`WebAccess.clientAddress`).
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// Whether a request came with a second `Host` (left a header by the server, which takes the first):
    /// addressed to two names at once, which no browser sends. "localhost" then "evil.example" passed the
    /// name check of a dustd without a token on the first.
    static func addressedTwice(_ request: Request) -> Bool {
        request.headers[HTTPField.Name("Host")!] != nil
    }
}

/// What dustd's web knows of a request besides the request: where it came from and whom it opens.
public struct WebRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Set by `WebSecurityMiddleware` before any route runs; `everyone` only where no token is configured.
    public var principal: WebPrincipal = .everyone
    /// Whether the principal came from the session cookie (the page then offers to sign out).
    public var signedInByCookie: Bool { cookieSignOuts != nil }
    /// The count of sign-outs the session cookie that signed the request in carries; nil when no
    /// cookie did (a token, or nobody).
    public var cookieSignOuts: Int64?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = remoteAddress?.ipAddress ?? "local"
    }

    /// The client's address, for the sign-in throttle and the log: its IP, or `local` for a Unix socket
    /// or a test; behind a trusted proxy, the address the proxy forwards for (`WebAccess.clientAddress`,
    /// set by `WebSecurityMiddleware`).
    var clientAddress: String
}

/// GET and HEAD (POST only to sign in and out), small requests, a token where one is configured,
/// and security headers on every answer (docs/REFERENCE.md §13).
struct WebSecurityMiddleware: RouterMiddleware {
    typealias Context = WebRequestContext
    let access: WebAccess
    /// Wrong tokens in a header count as failed sign-ins do, by the client's address.
    let throttle: LoginThrottle
    let logger: Logger
    /// Warns once of a trusted proxy that does not say the scheme (the cookie cannot be `Secure`).
    let schemeNotice: ProxySchemeNotice
    let now: @Sendable () -> Date
    /// Each principal's sign-outs, by cookie name (`WebData.sessionRevocations`).
    let revocations: @Sendable () async throws(StorageFailure) -> [String: SignOuts]
    /// Longest request target accepted.
    static var maxTargetLength: Int { 2048 }
    /// The paths anyone may ask for, token or not.
    static let openPaths: Set<String> = ["/healthz", WebSignIn.loginPath, WebApp.manifestPath, WebApp.iconPath]
    /// The paths that take a POST (a form's few hundred bytes, at most `WebSignIn.maxFormBytes`).
    static let postPaths: Set<String> = [WebSignIn.loginPath, WebSignIn.logoutPath]

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

    /// Whether a cookie of `principal` issued at `issuedAt` under `signOuts` was not ended by a sign-out
    /// since: it carries the principal's count of sign-outs, which a sign-in reads after the last one was
    /// written, so the count alone decides (a cookie issued in the second of a sign-out, after it, is
    /// good). A sign-out recorded before counts were kept (count 0) has only its time: a cookie of its
    /// own second counts as before it. A database that cannot say is a no (the cookie is refused, the
    /// sign-in form shown).
    private func stillSignedIn(_ principal: WebPrincipal, issuedAt: Date, signOuts: Int64) async -> Bool {
        do {
            guard let recorded = try await revocations()[principal.cookieName] else { return signOuts == 0 }
            return signOuts == recorded.count && (recorded.count > 0 || issuedAt > recorded.last)
        } catch {
            return false
        }
    }

    private func checked(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let posting = request.method == .post && Self.postPaths.contains(path)
        let methodServed = request.method == .get || request.method == .head || posting
        var methodNotAllowed: Response {
            var response = WebResponse.text(.methodNotAllowed, "Only GET and HEAD are served here.\n").response
            response.headers[.allow] = Self.postPaths.contains(path) ? "GET, HEAD, POST" : "GET, HEAD"
            return response
        }
        // A path that holds someone's data says which methods it takes only to one let in: to anyone else it
        // answers 401 and nothing else, whatever the method (below, once the token or cookie is checked).
        let methodCheckedAfterAccess = access.requiresTokens && !Self.openPaths.contains(path) && !Self.postPaths.contains(path)
        if !methodServed, !methodCheckedAfterAccess { return methodNotAllowed }
        if request.uri.description.utf8.count > Self.maxTargetLength {
            return WebResponse.text(.uriTooLong, "The request target is too long.\n").response
        }
        // Only a sign-in form takes a body, and a small one; refusing others keeps a client from
        // making dustd read them (and WebConnectionHandler closes the connection after this answer).
        if WebSecurityHeaders.carriesBody(request.headers),
            !posting || request.headers[.contentLength].flatMap(Int.init).map({ $0 > WebSignIn.maxFormBytes }) ?? true
        {
            return WebResponse.text(.contentTooLarge, "Requests with a body are not accepted.\n").response
        }
        var context = context
        if !access.trustedProxies.isEmpty {
            context.clientAddress = access.clientAddress(
                peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: WebSecurityHeaders.forwardedFor])
            if access.requiresTokens { schemeNotice.check(request, peer: context.remoteAddress?.ipAddress, access: access, logger: logger) }
        }
        guard access.requiresTokens else {
            // The open paths hold no one's data, and a monitor may ask /healthz by any name.
            guard
                Self.openPaths.contains(path)
                    || (!WebSecurityHeaders.addressedTwice(request) && access.hostNames.allows(host: WebSecurityHeaders.host(of: request)))
            else {
                // The name is not quoted back: it is the asker's, and says nothing to a reader of the page.
                return WebResponse.text(
                    .misdirectedRequest,
                    "This dustd serves without a token, so it answers only requests addressed to this machine by an IP "
                        + "address, localhost or its host name (a web page elsewhere could otherwise read it through DNS "
                        + "rebinding). Add the name you used to http.hostNames, or set http.tokenFile (docs/REFERENCE.md §13).\n"
                ).response
            }
            return try await next(request, context)
        }
        // Two Authorization fields (a client's beside a proxy's, or one sent twice) are read joined, which is no
        // token: counted as a guess, the right token sent twice locked out everyone behind that address.
        if request.headers[values: .authorization].count > 1 {
            return WebResponse.text(.badRequest, "A request carries at most one Authorization field.\n").response
        }
        let now = now()
        var renewal: Cookie?
        let authorization = request.headers[.authorization]
        // (Only the Bearer scheme: a proxy's own Basic credentials pass to the cookie as before.)
        let bearer = authorization.map { $0.prefix(7).lowercased() == "bearer " } == true
        var cookie: (principal: WebPrincipal, expires: Date, signOuts: Int64)?
        if let value = request.cookies[SessionCookie.name]?.value,
            let verified = SessionCookie(access: access).verify(value, now: now),
            await stillSignedIn(
                verified.principal, issuedAt: verified.expires.addingTimeInterval(-SessionCookie.lifetime), signOuts: verified.signOuts)
        {
            cookie = verified
        }
        var principal: WebPrincipal?
        if bearer, Self.openPaths.contains(path) {
            // An open path answers anyone alike: a guess there learns nothing, and is not counted.
            principal = access.principal(authorization: authorization)
        } else if bearer {
            // A token in a header is guessed no faster than through the sign-in form: after ten wrong ones in
            // ten minutes, 429 before the token is looked at. Beside a signed-in cookie (a proxy that sends a
            // Bearer token of its own) the count is the one signed in's, not the address a proxy shares with
            // everyone, and once it is spent the header is ignored and the cookie serves.
            let counted = cookie.map { "signed in as \($0.principal.cookieName)" } ?? context.clientAddress
            if let seconds = throttle.retryAfter(address: counted, now: now) {
                if cookie == nil {
                    var response = WebResponse.text(.tooManyRequests, "Too many wrong tokens from this address; try again later.\n")
                        .response
                    response.headers[.retryAfter] = String(seconds)
                    return response
                }
            } else if let offered = access.principal(authorization: authorization) {
                principal = offered
            } else {
                throttle.recordFailure(address: counted, now: now)
                logger.notice("A request with a wrong token was refused", metadata: ["client": "\(context.clientAddress)"])
                if cookie == nil { return WebSignIn.unauthorized(request) }
            }
        }
        if principal == nil, let cookie {
            principal = cookie.principal
            context.cookieSignOuts = cookie.signOuts
            // Past half its life, a visit renews it: a phone used weekly stays signed in.
            if cookie.expires.timeIntervalSince(now) < SessionCookie.lifetime / 2 {
                renewal = WebSignIn.sessionCookie(
                    access: access, principal: cookie.principal, signOuts: cookie.signOuts, request: request, now: now)
            }
        }
        if let principal {
            if !methodServed { return methodNotAllowed }
            context.principal = principal
        } else if Self.openPaths.contains(path) {
            // Open to anyone: /healthz says only whether dustd is well; /login is the way in; the
            // manifest and icon (which a browser fetches without the cookie) hold no data.
            context.principal = .anonymous
        } else {
            return WebSignIn.unauthorized(request)
        }
        var response = try await next(request, context)
        if let renewal { response.setCookie(renewal) }
        return response
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

    /// An HTML page whose only active content is one `<style>` element, allowed by its hash; its
    /// forms may post to dustd itself (signing in and out), nowhere else.
    static func html(_ page: String, styleSheet: String, status: HTTPResponse.Status = .ok) -> WebReply {
        let hash = Data(SHA256.hash(data: Data(styleSheet.utf8))).base64EncodedString()
        return WebReply(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy:
                    "default-src 'none'; style-src 'sha256-\(hash)'; img-src 'self' data:; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            ], text: page)
    }

    /// The Prometheus text exposition.
    static func metrics(_ text: String) -> WebReply {
        WebReply(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], text: text)
    }
}
