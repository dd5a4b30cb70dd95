import DustKit
import DustReports
import DustServices
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import Prometheus

/// dustd on the web (docs/REFERENCE.md §13): the dashboard, the JSON API (the same documents as
/// `dustctl … --json`, byte for byte), `/metrics` and `/healthz`, read-only, from the same
/// database. Every handler only reads; a poll never waits for a request (SQLite WAL readers do
/// not block the writer).
public struct WebServer: Sendable {
    private let data: WebData
    private let registry: PrometheusCollectorRegistry
    private let access: WebAccess
    private let throttle: LoginThrottle
    private let limits: WebConnectionLimits
    private let echoes: any EchoDetector
    private let logger: Logger
    private let answers: WebAnswerCache
    private let schemeNotice = ProxySchemeNotice()

    /// - Parameter registry: what the process counted through swift-metrics, rendered by `/metrics` before its gauges.
    /// - Parameter echoes: asked of every answer's whole text before it leaves (the service keys dustd
    ///   loaded); an answer that echoes one is withheld whole (503) and logged once per path.
    /// - Parameter access: the tokens accepted and whom each opens (docs/REFERENCE.md §13).
    public init(
        data: WebData, registry: PrometheusCollectorRegistry, access: WebAccess, limits: WebConnectionLimits = .standard,
        echoes: any EchoDetector = KeyEchoGuard.none, throttle: LoginThrottle = LoginThrottle(), logger: Logger = Logger(label: "dustd.web")
    ) {
        self.data = data
        self.registry = registry
        self.access = access
        self.throttle = throttle
        self.limits = limits
        self.echoes = echoes
        self.logger = logger
        answers = WebAnswerCache()
    }

    /// The server with the administrator's token alone (nil: open to everyone).
    public init(
        data: WebData, registry: PrometheusCollectorRegistry, token: BearerToken?, limits: WebConnectionLimits = .standard,
        echoes: any EchoDetector = KeyEchoGuard.none, logger: Logger = Logger(label: "dustd.web")
    ) {
        self.init(data: data, registry: registry, access: WebAccess(administrator: token), limits: limits, echoes: echoes, logger: logger)
    }

    /// The Hummingbird application listening on `host:port`; run it as a service. Connections are
    /// capped and time out (`WebConnectionLimits`), and every answer carries the security headers.
    /// `onRunning` is called once the port is bound, so "serving" is never said of a port another
    /// program holds.
    public func application(
        host: String, port: Int, logger: Logger, onRunning: @escaping @Sendable () async -> Void = {}
    ) -> some ApplicationProtocol {
        let gate = WebConnectionGate(limit: limits.maxConnections, maxWaiting: limits.maxWaiting)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [WebConnectionHandler(gate: gate, answerTimeout: limits.answerTimeout)],
            idleTimeout: TimeAmount(limits.idleTimeout))
        return Application(
            router: router(), server: .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port), serverName: "dustd"),
            onServerRunning: { _ in await onRunning() }, logger: logger)
    }

    /// The routes, for the application and for tests.
    public func router() -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        let data = self.data
        let registry = self.registry
        let (access, throttle, logger) = (access, throttle, logger)
        router.add(
            middleware: WebSecurityMiddleware(
                access: access, throttle: throttle, logger: logger, schemeNotice: schemeNotice, now: { data.now },
                revocations: { () async throws(StorageFailure) in try await data.sessionRevocations() }))

        // Signing in (docs/REFERENCE.md §13): open to anyone, and only where tokens are configured.
        @Sendable func loginPage(_ request: Request) -> Response {
            guard access.requiresTokens else { return Response(status: .seeOther, headers: [.location: "/"]) }
            return WebSignIn.form(request, status: .ok, next: request.uri.queryParameters.get("next"), problem: nil)
        }
        router.get(RouterPath(WebSignIn.loginPath)) { request, _ in loginPage(request) }
        router.head(RouterPath(WebSignIn.loginPath)) { request, _ -> Response in
            // Without the form's cookie: a probe must not replace the one of a form open in a browser.
            var response = Self.answering(.head, loginPage(request))
            response.headers[.setCookie] = nil
            return response
        }
        router.post(RouterPath(WebSignIn.loginPath)) { request, context -> Response in
            guard access.requiresTokens else { return Response(status: .seeOther, headers: [.location: "/"]) }
            return try await WebSignIn.signIn(
                request, context: context, access: access, throttle: throttle, now: data.now, logger: logger,
                signOuts: { principal throws(StorageFailure) in try await data.signOutCount(issuingTo: principal) },
                signedOutJustNow: { data.signedOutJustNow($0) })
        }
        router.post(RouterPath(WebSignIn.logoutPath)) { request, context -> Response in
            let response = WebSignIn.signOut(request)
            // Signing out ends every cookie of the one signed in, on every device (a copied cookie too). A
            // request carrying a token alone has no session to end: a script posting it in a loop (or once)
            // neither signs the person out on their phone nor writes, which emptied everyone's kept answers.
            if response.status == .seeOther, let cookieSignOuts = context.cookieSignOuts,
                context.principal == .everyone || context.principal.isPerson
            {
                do throws(StorageFailure) {
                    try await data.revokeSessions(of: context.principal, cookieSignOuts: cookieSignOuts)
                } catch {
                    logger.error("Could not end the sessions of the one who signed out: \(error)")
                    return WebResponse.text(.serviceUnavailable, "Signing out could not be recorded; try again.\n").response
                }
            }
            return response
        }

        route(router, "/", kept: .minute) { request, context in try await Self.page(.today, request: request, context: context, data: data)
        }
        route(router, "/day/:date", kept: .minute) { request, context in
            let date: LocalDate
            do throws(TypedPeriodError) { date = try SupportedPeriod.date(context.parameters.get("date") ?? "") } catch {
                return Self.pageNotFound(NotFoundPage.reason(error), request)
            }
            return try await Self.page(.day(date), request: request, context: context, data: data)
        }
        route(router, "/week/:week", kept: .minute) { request, context in
            let week: ISOWeek
            do throws(TypedPeriodError) { week = try SupportedPeriod.week(context.parameters.get("week") ?? "") } catch {
                return Self.pageNotFound(NotFoundPage.reason(error), request)
            }
            return try await Self.page(.week(week), request: request, context: context, data: data)
        }
        route(router, "/api/v1/today", kept: .hour) { request, context in
            let person: String?
            do throws(UnknownPerson) { person = try Self.statistics(request, context, data).person.name } catch {
                return Self.notFound(error)
            }
            // Without ?person= the administrator's document is the first person's, as before people had tokens;
            // with it, the configured person's name as configured, whatever form the query spelled it in.
            let asked = request.uri.queryParameters.get("person")
            let named = context.principal == .everyone && asked == nil ? nil : person
            return WebResponse.json(try await data.todayDocument(person: named).serialized + "\n")
        }
        route(router, "/api/v1/forecast", kept: .hour) { _, _ in
            // The region unknown is what dustctl forecast reports as a configuration error.
            let document: JSON
            do throws(ForecastReadError) {
                document = try await data.forecastDocument()
            } catch let .region(problem) {
                return Self.notFound(problem.description)
            } catch let .storage(failure) {
                throw failure
            }
            return WebResponse.json(document.serialized + "\n")
        }
        route(router, "/api/v1/advisories", kept: .hour) { _, _ in
            WebResponse.json(try await data.advisoryDocument().serialized + "\n")
        }
        route(router, "/api/v1/day/:date", kept: .hour) { request, context in
            let date: LocalDate
            do throws(TypedPeriodError) { date = try SupportedPeriod.date(context.parameters.get("date") ?? "") } catch {
                return Self.notFound(error)
            }
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try Self.statistics(request, context, data) } catch {
                return Self.notFound(error)
            }
            return WebResponse.json(ReportJSON.day(try await statistics.day(date), calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/week", kept: .hour) { request, context in
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try Self.statistics(request, context, data) } catch {
                return Self.notFound(error)
            }
            var end = statistics.today
            if let text = request.uri.queryParameters.get("end") {
                do throws(TypedPeriodError) {
                    end = try SupportedPeriod.weekEnd(text)
                } catch {
                    return Self.notFound(error)
                }
            }
            // Today's week on a clock in 2000's first days (or a board's before its first time from NTP) would
            // begin outside the period: refused as `?end=` refuses it.
            guard end >= SupportedPeriod.firstWeekEnd else { return Self.notFound(TypedPeriodError.unsupportedWeekEnd(end)) }
            let report = try await statistics.rollingWeek(endingOn: end)
            return WebResponse.json(
                ReportJSON.week(report, station: statistics.stations.primary, calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/week/:week", kept: .hour) { request, context in
            let week: ISOWeek
            do throws(TypedPeriodError) { week = try SupportedPeriod.week(context.parameters.get("week") ?? "") } catch {
                return Self.notFound(error)
            }
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try Self.statistics(request, context, data) } catch {
                return Self.notFound(error)
            }
            let report = try await statistics.week(week)
            return WebResponse.json(
                ReportJSON.week(report, station: statistics.stations.primary, calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/status") { _, context in
            guard context.principal == .everyone else { return Self.notFound("Not found.") }
            return WebResponse.json(try await data.statusDocument().serialized + "\n")
        }
        route(router, RouterPath(WebApp.manifestPath)) { _ in WebApp.manifestReply }
        route(router, RouterPath(WebApp.iconPath)) { _ in WebApp.iconReply }
        route(router, "/healthz") { _ in
            let health = try await data.health()
            let problem = Self.healthProblem(health, now: data.now)
            return WebResponse.text(problem == nil ? .ok : .serviceUnavailable, (problem ?? "ok: \(health.dataSummary)") + "\n")
        }
        route(router, "/metrics") { _, context in
            guard context.principal == .everyone else { return Self.notFound("Not found.") }
            return WebResponse.metrics(try await MetricsExposition(data: data, counters: registry).text())
        }
        return router
    }

    /// Why `/healthz` is not ok: the last poll did not succeed within 3 hours, or the data is stale.
    static func healthProblem(_ health: DaemonHealth, now: Date) -> String? {
        guard let success = health.status?.lastSuccess else { return "unhealthy: dustd has not polled successfully yet" }
        let since = now.timeIntervalSince(success.at)
        if since > DaemonHealth.staleAfter {
            return "unhealthy: the last successful poll was \(DaemonHealth.age(since)) ago"
        }
        if health.stale || health.clockBehind != nil { return "unhealthy: \(health.dataSummary)" }
        return nil
    }

    // MARK: - Pages

    /// A dashboard page for `?person=` (default: the first person); 404 for a person not configured,
    /// as the API answers (docs/REFERENCE.md §18).
    static func page(_ page: DashboardModel.Page, request: Request, context: WebRequestContext, data: WebData) async throws -> WebReply {
        let statistics: StatisticsService
        do throws(UnknownPerson) { statistics = try Self.statistics(request, context, data) } catch {
            return pageNotFound(NotFoundPage.reason(error), request)
        }
        // With one person the page is what it was before people existed: no switcher, no person= in
        // links. A person's own token sees one person: theirs (no page lists the others).
        let people = context.principal == .everyone ? data.reportSettings.people.map(\.name) : []
        let person = people.count > 1 ? statistics.person.name : nil
        var household: [DashboardModel.PersonWeek] = []
        let language = PageLanguage.asked(by: request)
        let day: DayReport?
        let week: WeekReport
        var latest: HourlyReading?
        switch page {
        case .today:
            day = try await statistics.day(statistics.today)
            if let day, day.totals.hours.fineDust + day.totals.hours.ultraFineDust == 0 { latest = try await statistics.latestReading() }
            week = try await statistics.rollingWeek(endingOn: statistics.today)
        case .day(let date):
            day = try await statistics.day(date)
            week = try await statistics.rollingWeek(endingOn: date)
        case .week(let isoWeek):
            day = nil
            if context.principal == .everyone { household = try await data.householdWeek(isoWeek) }
            if let own = household.first(where: { $0.person == person }) {
                week = own.week
            } else {
                week = try await statistics.week(isoWeek)
            }
        }
        let health = try await data.health()
        // The monitors of the person shown that do not answer: their hours at home fall back to the
        // station's value, which the page says. A bonus like the forecast: unreadable, left out.
        let indoorProblems = (try? await data.indoorProblems(of: statistics.person.indoorSensors)) ?? []
        let forecast = try? await data.forecastOutlook()
        // The banner is a bonus, like the forecast: a database that cannot say leaves it out.
        let advisories = (try? await data.advisoryListing())?.concerning ?? []
        let model = DashboardModel(
            page: page, language: language, station: statistics.stations.primary, day: day, week: week,
            intakeUnit: statistics.intakeModel.unit,
            calendar: statistics.calendar, health: health, now: data.now,
            forecast: forecast, audience: data.reportSettings.audience, advisories: advisories,
            people: people.count > 1 ? people : [], person: person, household: household, signedIn: context.signedInByCookie,
            latest: latest, indoorProblems: indoorProblems,
            named: data.reportSettings.people.count > 1 ? statistics.person.name : nil,
            showsOperatorDetail: context.principal == .everyone
        )
        // `?refresh=off` stops the page's reload every 10 minutes (a screen reader's place in the hourly table).
        let refresh = AutoRefresh(query: request.uri.queryParameters.get("refresh"))
        var reply = WebResponse.html(DashboardPage.render(model, refresh: refresh), styleSheet: DashboardPage.styleSheet())
        reply.headers[.contentLanguage] = language.rawValue
        reply.headers[.vary] = "Accept-Language"
        return reply
    }

    // MARK: - Plumbing

    /// The statistics of the person a request asks for (`?person=`; none: the principal's own, or
    /// the first configured for the administrator). A person's token asking for anyone else gets
    /// the answer a name nobody has gets, and that answer names no one else.
    static func statistics(_ request: Request, _ context: WebRequestContext, _ data: WebData) throws(UnknownPerson) -> StatisticsService {
        let asked = request.uri.queryParameters.get("person").map(NameForm.given)
        switch context.principal {
        case .everyone:
            return try data.statistics(person: asked)
        case .person(let own):
            guard asked == nil || asked == own, let statistics = try? data.statistics(person: own) else {
                throw UnknownPerson(name: asked ?? own, configured: [])
            }
            return statistics
        case .anonymous:
            throw UnknownPerson(name: asked ?? "", configured: [])
        }
    }

    static func notFound(_ message: String) -> WebReply { WebResponse.text(.notFound, message + "\n") }
    /// A dashboard page's 404: a page in the language the page would have had.
    static func pageNotFound(_ reason: NotFoundPage.Reason, _ request: Request) -> WebReply {
        NotFoundPage.reply(reason, language: PageLanguage.asked(by: request))
    }
    /// `?person=` naming nobody configured: the API has no such person's document (docs/REFERENCE.md §18).
    static func notFound(_ unknown: UnknownPerson) -> WebReply {
        // Without the configured names, a person's token learns nothing of the household.
        notFound(NotFoundPage.reason(unknown).english)
    }

    /// A date or week outside `SupportedPeriod` has no page, like a malformed one (docs/REFERENCE.md
    /// §13: a 404, `?end=` too): the pager's arithmetic on its neighbours must never reach year 0
    /// (docs/RELIABILITY.md). The sentence is dustctl's: which part of a date or week written right is
    /// wrong (it quotes the text only when it is digits written as a date or week).
    static func notFound(_ refusal: TypedPeriodError) -> WebReply {
        notFound(NotFoundPage.reason(refusal).english)
    }

    /// `response` as `method` is answered: a HEAD answer without its body, saying the length its GET
    /// would have (RFC 9110 §9.3.2; a client that probes with HEAD reads it), and a 304 without one
    /// (NIO's encoder drops a 304's framing headers).
    static func answering(_ method: HTTPRequest.Method, _ response: Response) -> Response {
        guard method == .head || response.status == .notModified else { return response }
        var response = response
        let length = response.body.contentLength
        response.body = .init()
        // Set after the body: its setter writes 0 where the old length was not known.
        if method == .head, response.status != .notModified { response.headers[.contentLength] = length.map(String.init) }
        return response
    }

    /// GET and HEAD for one path; a storage failure is a 503 with its sentence, never a crash. The
    /// door of every answer: its whole text is checked for an echo of the service key (a page
    /// shows texts side by side, each harmless alone), and one that echoes is withheld.
    ///
    /// `kept`: how the answer depends on the clock, for a path whose answers are kept
    /// (`WebAnswerCache`): an answer kept for the same asker, target, data, settings and clock step
    /// is served as it was, with its `ETag`, and `If-None-Match` naming that tag is answered 304.
    private func route(
        _ router: Router<WebRequestContext>, _ path: RouterPath, kept freshness: WebAnswerCache.Freshness? = nil,
        _ handler: @escaping @Sendable (Request, WebRequestContext) async throws -> WebReply
    ) {
        let (echoes, logger, answers, data) = (echoes, logger, answers, data)
        let guarded: @Sendable (Request, WebRequestContext) async throws -> Response = { request, context in
            var reply: WebReply
            var entityTag: String?
            do {
                if let freshness {
                    let key = try await Self.answerKey(request, context, data: data, freshness: freshness)
                    if let answer = answers.answer(for: key) {
                        (reply, entityTag) = (answer.reply, answer.entityTag)
                    } else {
                        reply = Self.checked(try await handler(request, context), path: request.uri.path, echoes: echoes, logger: logger)
                        if reply.status == .ok { entityTag = answers.keep(reply, for: key).entityTag }
                    }
                } else {
                    reply = Self.checked(try await handler(request, context), path: request.uri.path, echoes: echoes, logger: logger)
                }
            } catch let failure as StorageFailure {
                // The sentence names where the data lives: never a path, and to one who showed no token
                // (`/healthz` is open to anyone) not even the database, only that it cannot be read.
                let sentence =
                    context.principal == .anonymous
                    ? Self.storageUnavailable : data.reportSettings.audience.hidingPaths(in: failure.description) + "\n"
                reply = Self.checked(
                    WebResponse.text(.serviceUnavailable, sentence), path: request.uri.path, echoes: echoes, logger: logger)
            }
            if let entityTag {
                reply.headers[.eTag] = entityTag
                if let asked = request.headers[.ifNoneMatch], Self.matches(asked, entityTag) {
                    reply = WebReply(status: .notModified, headers: reply.headers, text: "")
                }
            }
            return Self.answering(request.method, reply.response)
        }
        router.on(path, method: .get, use: guarded)
        router.on(path, method: .head, use: guarded)
    }

    /// `reply`, or the withheld answer when its whole text echoes the service key.
    private static func checked(_ reply: WebReply, path: String, echoes: any EchoDetector, logger: Logger) -> WebReply {
        guard echoes.echoes(reply.text) else { return reply }
        logger.error("An answer to \(path) was withheld: it held text that echoes the service key")
        return WebResponse.text(.serviceUnavailable, Self.withheldAnswer)
    }

    /// What an answer depends on besides its handler's code: who asks (a person's answer is never
    /// another's), what, in which language, and the data, settings and clock step it was computed for.
    private static func answerKey(
        _ request: Request, _ context: WebRequestContext, data: WebData, freshness: WebAnswerCache.Freshness
    ) async throws(StorageFailure) -> WebAnswerCache.Key {
        // The settings' generation first: an answer computed with newer settings than its key says
        // is never asked for again, while the other order could keep old settings' answer as new.
        let settingsGeneration = data.settingsGeneration
        let language =
            freshness == .minute
            ? PageLanguage.asked(by: request).rawValue : nil
        return WebAnswerCache.Key(
            principal: context.principal, target: request.uri.description, language: language,
            signedInByCookie: context.signedInByCookie, dataGeneration: try await data.answerGeneration(),
            settingsGeneration: settingsGeneration, clockStep: freshness.step(data.now))
    }

    /// Whether an `If-None-Match` value names `tag` (a list of tags, weak or strong, or `*`).
    static func matches(_ ifNoneMatch: String, _ tag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            var candidate = candidate.trimmingCharacters(in: .whitespaces)
            if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            return candidate == "*" || candidate == tag
        }
    }

    /// A storage failure's answer to one who showed no token.
    static let storageUnavailable = "unhealthy: the database cannot be read; dustd's log and dustctl status say why\n"

    /// What stands in for an answer that echoed the service key.
    static let withheldAnswer = "This answer was withheld: text AirKorea sent would have shown the service key. See dustd's log.\n"

    private func route(
        _ router: Router<WebRequestContext>, _ path: RouterPath, kept freshness: WebAnswerCache.Freshness? = nil,
        _ handler: @escaping @Sendable (Request) async throws -> WebReply
    ) {
        route(router, path, kept: freshness) { request, _ in try await handler(request) }
    }
}

extension PageLanguage {
    /// The language a request asks for: its `?lang=`, else its `Accept-Language` (`negotiate`).
    static func asked(by request: Request) -> PageLanguage {
        negotiate(query: request.uri.queryParameters.get("lang"), acceptLanguage: request.headers[.acceptLanguage])
    }
}
