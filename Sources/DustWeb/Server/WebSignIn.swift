import Crypto
import DustServices
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Signing in from a browser (docs/REFERENCE.md §13): `GET /login` shows a form for a token,
/// `POST /login` checks it and sets the session cookie (`SessionCookie`: `HttpOnly`,
/// `SameSite=Strict`, `Secure` behind https), `POST /logout` removes it. The form is CSRF-safe
/// twice: a cross-site `Origin` (or `Sec-Fetch-Site`) is refused, and the form carries a random
/// value that must match a `SameSite=Strict` cookie set with it. Failed attempts are throttled
/// (`LoginThrottle`) and logged without the token.
enum WebSignIn {
    static let loginPath = "/login"
    static let logoutPath = "/logout"
    /// The largest form accepted: a token and the form's own fields.
    static let maxFormBytes = 4096
    /// The cookie holding the form's anti-forgery value, for the sign-in path only.
    static let formCookieName = "dustd_form"

    // MARK: - Answers

    /// What a request without a valid token gets: for a browser asking for a page, the sign-in form
    /// (status 401, so nothing mistakes it for the page); for anything else, a plain 401.
    static func unauthorized(_ request: Request) -> Response {
        if request.method == .get, request.headers[.accept]?.contains("text/html") == true {
            return form(request, status: .unauthorized, next: request.uri.description, problem: nil)
        }
        var response = WebResponse.text(.unauthorized, "A token is required: an Authorization: Bearer header, or sign in at /login.\n")
            .response
        response.headers[.wwwAuthenticate] = "Bearer realm=\"dustd\""
        return response
    }

    /// The sign-in page, with a fresh anti-forgery value in the form and in its cookie.
    static func form(_ request: Request, status: HTTPResponse.Status, next: String?, problem: Problem?) -> Response {
        let language = PageLanguage.asked(by: request)
        let value = SessionCookie.base64URL(Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
        let page = LoginPage.render(language: language, formValue: value, next: localPath(next), problem: problem)
        var reply = WebResponse.html(page, styleSheet: LoginPage.styleSheet, status: status)
        reply.headers[.contentLanguage] = language.rawValue
        var response = reply.response
        response.setCookie(
            Cookie(
                name: formCookieName, value: value, maxAge: 3600, path: loginPath, secure: isHTTPS(request), httpOnly: true,
                sameSite: .strict))
        return response
    }

    /// Why a sign-in failed, as the form says it.
    enum Problem: Sendable {
        case wrongToken
        case expiredForm
        case throttled(seconds: Int)
        /// This person signed out less than a second ago (`WebData.signedOutJustNow`).
        case signedOutJustNow
    }

    /// `POST /login`: checks the origin, the anti-forgery value, the throttle and the token, in
    /// that order; on success a 303 to the page asked for with the session cookie.
    /// `signOuts` gives the count of sign-outs the cookie of the principal whose token was given
    /// carries (`WebData.signOutCount(issuingTo:)`).
    static func signIn(
        _ request: Request, context: WebRequestContext, access: WebAccess, throttle: LoginThrottle, now: Date, logger: Logger,
        signOuts: (WebPrincipal) async throws(StorageFailure) -> Int64, signedOutJustNow: (WebPrincipal) -> Bool = { _ in false }
    ) async throws -> Response {
        guard isSameOrigin(request) else {
            return WebResponse.text(.forbidden, "Sign-in forms are accepted from this site only.\n").response
        }
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            return WebResponse.text(.unsupportedMediaType, "Send the sign-in form as application/x-www-form-urlencoded.\n").response
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: maxFormBytes) } catch {
            return WebResponse.text(.contentTooLarge, "The sign-in form is too large.\n").response
        }
        let fields = formFields(String(buffer: body))
        let next = localPath(fields["next"])
        guard let offered = fields["form"], let expected = request.cookies[formCookieName]?.value,
            SessionCookie.data(base64URL: offered).map({ $0.count == 32 }) == true,
            Array(offered.utf8) == Array(expected.utf8)
        else {
            return form(request, status: .forbidden, next: next, problem: .expiredForm)
        }
        let address = context.clientAddress
        if let seconds = throttle.retryAfter(address: address, now: now) {
            var response = form(request, status: .tooManyRequests, next: next, problem: .throttled(seconds: seconds))
            response.headers[.retryAfter] = String(seconds)
            return response
        }
        guard let token = fields["token"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty,
            let principal = access.principal(token: token)
        else {
            throttle.recordFailure(address: address, now: now)
            logger.notice("A sign-in with a wrong token was refused", metadata: ["client": "\(address)"])
            return form(request, status: .unauthorized, next: next, problem: .wrongToken)
        }
        if signedOutJustNow(principal) {
            var response = form(request, status: .tooManyRequests, next: next, problem: .signedOutJustNow)
            response.headers[.retryAfter] = "1"
            return response
        }
        let count: Int64
        do throws(StorageFailure) {
            count = try await signOuts(principal)
        } catch {
            logger.error("Could not read the sign-outs of the one signing in: \(error)")
            return WebResponse.text(.serviceUnavailable, "Signing in could not be checked; try again.\n").response
        }
        guard let cookie = sessionCookie(access: access, principal: principal, signOuts: count, request: request, now: now) else {
            return form(request, status: .unauthorized, next: next, problem: .wrongToken)
        }
        var response = Response(status: .seeOther, headers: [.location: next])
        response.setCookie(cookie)
        // The form's value is spent.
        response.setCookie(Cookie(name: formCookieName, value: "", maxAge: 0, path: loginPath, httpOnly: true, sameSite: .strict))
        return response
    }

    /// `POST /logout`: the session cookie removed from this browser, then the sign-in page.
    static func signOut(_ request: Request) -> Response {
        guard isSameOrigin(request) else {
            return WebResponse.text(.forbidden, "Signing out is accepted from this site only.\n").response
        }
        var response = Response(status: .seeOther, headers: [.location: loginPath])
        response.setCookie(
            Cookie(name: SessionCookie.name, value: "", maxAge: 0, path: "/", secure: isHTTPS(request), httpOnly: true, sameSite: .strict))
        return response
    }

    /// A session cookie for `principal` under its `signOuts` count, for every path.
    static func sessionCookie(access: WebAccess, principal: WebPrincipal, signOuts: Int64, request: Request, now: Date) -> Cookie? {
        guard let (value, expires) = SessionCookie(access: access).issue(for: principal, signOuts: signOuts, now: now) else { return nil }
        return Cookie(
            name: SessionCookie.name, value: value, maxAge: Int(expires.timeIntervalSince(now)), path: "/", secure: isHTTPS(request),
            httpOnly: true, sameSite: .strict)
    }

    // MARK: - Checks

    /// Whether a form came from a page of this dustd: a browser's `Sec-Fetch-Site` says so (a page
    /// cannot set it), or, from a browser without it, the `Origin` names this host. Under
    /// `Referrer-Policy: no-referrer` a browser sends `Origin: null` for a form, so `Sec-Fetch-Site`
    /// decides where it is sent. A client sending neither (curl) is no browser another site drives.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased() {
            return site == "same-origin" || site == "none"
        }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
        guard !WebSecurityHeaders.addressedTwice(request), let host = WebSecurityHeaders.host(of: request),
            let components = URLComponents(string: origin), let scheme = components.scheme, scheme == "http" || scheme == "https",
            let originHost = components.host
        else { return false }
        let originAuthority = components.port.map { "\(originHost):\($0)" } ?? originHost
        let bracketed = originHost.contains(":") ? "[\(originHost)]" + (components.port.map { ":\($0)" } ?? "") : originAuthority
        return host.lowercased() == originAuthority.lowercased() || host.lowercased() == bracketed.lowercased()
    }

    /// Whether the browser reached dustd over https (through a proxy that says so): the cookie is then `Secure`.
    static func isHTTPS(_ request: Request) -> Bool {
        if request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" { return true }
        if let forwarded = request.headers[HTTPField.Name("Forwarded")!]?.lowercased(), forwarded.contains("proto=https") { return true }
        return request.headers[HTTPField.Name("Origin")!]?.lowercased().hasPrefix("https://") == true
    }

    /// `text` if it is a path of this site (`/…`, not `//…` or `/\…`, printable ASCII), else `/`:
    /// a sign-in never sends a browser elsewhere.
    static func localPath(_ text: String?) -> String {
        guard let text, text.utf8.count <= WebSecurityMiddleware.maxTargetLength, text.hasPrefix("/"), !text.hasPrefix("//"),
            !text.hasPrefix("/\\"), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }), !text.hasPrefix(loginPath)
        else { return "/" }
        return text
    }

    /// The fields of an `application/x-www-form-urlencoded` body; a name given twice keeps its first value.
    static func formFields(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : ""), fields[name] == nil else { continue }
            fields[name] = value
        }
        return fields
    }
}

/// The sign-in page: one form, no script, the dashboard's colours.
enum LoginPage {
    static func render(language: PageLanguage, formValue: String, next: String, problem: WebSignIn.Problem?) -> String {
        let korean = language == .korean
        let title = korean ? "FineDust 로그인" : "Sign in to FineDust"
        let label = korean ? "토큰" : "Token"
        let hint =
            korean
            ? "관리자가 준 토큰(http.tokenFile 또는 people[].tokenFile의 내용)을 붙여 넣으세요. 이 브라우저는 30일 동안 로그인 상태를 유지합니다."
            : "Paste the token you were given (what http.tokenFile or your people[].tokenFile holds). This browser stays signed in for 30 days."
        let button = korean ? "로그인" : "Sign in"
        var message = ""
        switch problem {
        case .wrongToken?: message = korean ? "이 토큰으로는 열 수 있는 것이 없습니다." : "That token opens nothing here."
        case .expiredForm?: message = korean ? "양식이 만료되었습니다. 다시 시도하세요." : "The form expired; try again."
        case .throttled(let seconds)?:
            message = korean ? "실패한 시도가 너무 많습니다. \(seconds)초 후에 다시 시도하세요." : "Too many failed attempts; try again in \(seconds) s."
        case .signedOutJustNow?:
            message = korean ? "방금 로그아웃했습니다. 잠시 후 다시 로그인하세요." : "You signed out a moment ago; sign in again in a second."
        case nil: break
        }
        let alert: HTML = message.isEmpty ? .empty : "\n<p id=\"problem\" class=\"problem\" role=\"alert\">\(message)</p>"
        // The field says what went wrong and what to paste (WCAG 3.3.1, 1.3.1): a screen reader
        // arriving on it (autofocus) hears the problem and the hint, not only "Token, password".
        let described: HTML = message.isEmpty ? "hint" : "problem hint"
        let invalid: HTML = if case .wrongToken? = problem { " aria-invalid=\"true\"" } else { .empty }
        return StandalonePage.document(
            language: language, title: title, styleSheet: styleSheet,
            main: """
                <h1>\(title)</h1>\(alert)
                <form method="post" action="/login">
                <label for="token">\(label)</label>
                <input id="token" name="token" type="password" autocomplete="current-password" autocapitalize="off" spellcheck="false" required autofocus aria-describedby="\(described)"\(invalid)>
                <input type="hidden" name="form" value="\(formValue)">
                <input type="hidden" name="next" value="\(next)">
                <button type="submit">\(button)</button>
                </form>
                <p id="hint" class="hint">\(hint)</p>
                """)
    }

    /// `--on-accent` is the button's text: white on the light scheme's deep blue, the page's dark
    /// background on the dark scheme's light blue (white there was 2.4:1, below WCAG's 4.5:1). The
    /// body's size is the browser's default, so a reader's larger text setting applies.
    static let styleSheet = """
        :root{color-scheme:light dark;--fg:#1b1f24;--bg:#fafafa;--muted:#5b636e;--accent:#1f6feb;--on-accent:#fff;--bad:#b42318}
        @media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#0f1115;--muted:#9aa4b2;--accent:#6ea8fe;--on-accent:#0f1115;\
        --bad:#ff8a80}}
        body{margin:0;font:100%/1.5 system-ui,-apple-system,"Apple SD Gothic Neo","Noto Sans KR",sans-serif;color:var(--fg);background:var(--bg)}
        main{max-width:24rem;margin:0 auto;padding:2rem 1rem}
        h1{font-size:1.4rem}
        form{display:flex;flex-direction:column;gap:.5rem}
        input[type=password]{font:inherit;padding:.7rem;border:1px solid var(--muted);border-radius:.5rem;background:transparent;color:inherit}
        button{font:inherit;padding:.7rem;border:0;border-radius:.5rem;background:var(--accent);color:var(--on-accent)}
        .hint{color:var(--muted);font-size:.9rem}
        .problem{color:var(--bad);font-weight:600}
        """
}
