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
    private let token: BearerToken?
    private let limits: WebConnectionLimits
    private let echoes: any EchoDetector
    private let logger: Logger

    /// - Parameter registry: what the process counted through swift-metrics, rendered by `/metrics` before its gauges.
    /// - Parameter echoes: asked of every answer's whole text before it leaves (the service keys dustd
    ///   loaded); an answer that echoes one is withheld whole (503) and logged once per path.
    public init(
        data: WebData, registry: PrometheusCollectorRegistry, token: BearerToken?, limits: WebConnectionLimits = .standard,
        echoes: any EchoDetector = KeyEchoGuard.none, logger: Logger = Logger(label: "dustd.web")
    ) {
        self.data = data
        self.registry = registry
        self.token = token
        self.limits = limits
        self.echoes = echoes
        self.logger = logger
    }

    /// The Hummingbird application listening on `host:port`; run it as a service. Connections are
    /// capped and time out (`WebConnectionLimits`), and every answer carries the security headers.
    public func application(host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let gate = WebConnectionGate(limit: limits.maxConnections, maxWaiting: limits.maxWaiting)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [WebConnectionHandler(gate: gate)],
            idleTimeout: TimeAmount(limits.idleTimeout))
        return Application(
            router: router(), server: .http1(configuration: http1),
            configuration: .init(address: .hostname(host, port: port), serverName: "dustd"), logger: logger)
    }

    /// The routes, for the application and for tests.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: WebSecurityMiddleware(token: token))
        let data = self.data
        let registry = self.registry

        route(router, "/") { request in try await Self.page(.today, request: request, data: data) }
        route(router, "/day/:date") { request, context in
            let date: LocalDate
            do throws(TypedPeriodError) { date = try SupportedPeriod.date(context.parameters.get("date") ?? "") } catch {
                return Self.notFound(error)
            }
            return try await Self.page(.day(date), request: request, data: data)
        }
        route(router, "/week/:week") { request, context in
            let week: ISOWeek
            do throws(TypedPeriodError) { week = try SupportedPeriod.week(context.parameters.get("week") ?? "") } catch {
                return Self.notFound(error)
            }
            return try await Self.page(.week(week), request: request, data: data)
        }
        route(router, "/api/v1/today") { request in
            let person = request.uri.queryParameters.get("person")
            do throws(UnknownPerson) { _ = try data.statistics(person: person) } catch { return Self.notFound(error) }
            return WebResponse.json(try await data.todayDocument(person: person).serialized + "\n")
        }
        route(router, "/api/v1/forecast") { _ in
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
        route(router, "/api/v1/advisories") { _ in
            WebResponse.json(try await data.advisoryDocument().serialized + "\n")
        }
        route(router, "/api/v1/day/:date") { request, context in
            let date: LocalDate
            do throws(TypedPeriodError) { date = try SupportedPeriod.date(context.parameters.get("date") ?? "") } catch {
                return Self.notFound(error)
            }
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try data.statistics(person: request.uri.queryParameters.get("person")) } catch {
                return Self.notFound(error)
            }
            return WebResponse.json(ReportJSON.day(try await statistics.day(date), calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/week") { request in
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try data.statistics(person: request.uri.queryParameters.get("person")) } catch {
                return Self.notFound(error)
            }
            var end = statistics.today
            if let text = request.uri.queryParameters.get("end") {
                do throws(TypedPeriodError) {
                    end = try SupportedPeriod.date(text)
                } catch .notADate {
                    return Self.badRequest("end must be a date written YYYY-MM-DD.")
                } catch {
                    return Self.notFound(error)
                }
            }
            let report = try await statistics.rollingWeek(endingOn: end)
            return WebResponse.json(
                ReportJSON.week(report, station: statistics.stations.primary, calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/week/:week") { request, context in
            let week: ISOWeek
            do throws(TypedPeriodError) { week = try SupportedPeriod.week(context.parameters.get("week") ?? "") } catch {
                return Self.notFound(error)
            }
            let statistics: StatisticsService
            do throws(UnknownPerson) { statistics = try data.statistics(person: request.uri.queryParameters.get("person")) } catch {
                return Self.notFound(error)
            }
            let report = try await statistics.week(week)
            return WebResponse.json(
                ReportJSON.week(report, station: statistics.stations.primary, calendar: statistics.calendar).serialized + "\n")
        }
        route(router, "/api/v1/status") { _ in
            WebResponse.json(try await data.statusDocument().serialized + "\n")
        }
        route(router, "/healthz") { _ in
            let health = try await data.health()
            let problem = Self.healthProblem(health, now: data.now)
            return WebResponse.text(problem == nil ? .ok : .serviceUnavailable, (problem ?? "ok: \(health.dataSummary)") + "\n")
        }
        route(router, "/metrics") { _ in
            WebResponse.metrics(try await MetricsExposition(data: data, counters: registry).text())
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
        if health.stale { return "unhealthy: \(health.dataSummary)" }
        return nil
    }

    // MARK: - Pages

    /// A dashboard page for `?person=` (default: the first person); 404 for a person not configured,
    /// as the API answers (docs/REFERENCE.md §18).
    static func page(_ page: DashboardModel.Page, request: Request, data: WebData) async throws -> WebReply {
        let statistics: StatisticsService
        do throws(UnknownPerson) { statistics = try data.statistics(person: request.uri.queryParameters.get("person")) } catch {
            return notFound(error)
        }
        // With one person the page is what it was before people existed: no switcher, no person= in links.
        let people = data.reportSettings.people.map(\.name)
        let person = people.count > 1 ? statistics.person.name : nil
        var household: [DashboardModel.PersonWeek] = []
        let language = PageLanguage.negotiate(
            query: request.uri.queryParameters.get("lang"),
            acceptLanguage: request.headers[.acceptLanguage])
        let day: DayReport?
        let week: WeekReport
        switch page {
        case .today:
            day = try await statistics.day(statistics.today)
            week = try await statistics.rollingWeek(endingOn: statistics.today)
        case .day(let date):
            day = try await statistics.day(date)
            week = try await statistics.rollingWeek(endingOn: date)
        case .week(let isoWeek):
            day = nil
            household = try await data.householdWeek(isoWeek)
            if let own = household.first(where: { $0.person == person }) {
                week = own.week
            } else {
                week = try await statistics.week(isoWeek)
            }
        }
        let health = try await data.health()
        let forecast = try? await data.forecastOutlook()
        // The banner is a bonus, like the forecast: a database that cannot say leaves it out.
        let advisories = (try? await data.advisoryListing())?.concerning ?? []
        let model = DashboardModel(
            page: page, language: language, station: statistics.stations.primary, day: day, week: week,
            intakeUnit: statistics.intakeModel.unit,
            calendar: statistics.calendar, health: health, now: data.now,
            forecast: forecast, audience: data.reportSettings.audience, advisories: advisories,
            people: people.count > 1 ? people : [], person: person, household: household)
        var reply = WebResponse.html(DashboardPage.render(model), styleSheet: DashboardPage.styleSheet())
        reply.headers[.contentLanguage] = language.rawValue
        reply.headers[.vary] = "Accept-Language"
        return reply
    }

    // MARK: - Plumbing

    static func notFound(_ message: String) -> WebReply { WebResponse.text(.notFound, message + "\n") }
    /// `?person=` naming nobody configured: the API has no such person's document (docs/REFERENCE.md §18).
    static func notFound(_ unknown: UnknownPerson) -> WebReply { notFound("No such person: " + unknown.description + ".") }
    static func badRequest(_ message: String) -> WebReply { WebResponse.text(.badRequest, message + "\n") }

    /// A date or week outside `SupportedPeriod` has no page, like a malformed one: the pager's
    /// arithmetic on its neighbours must never reach year 0 (docs/RELIABILITY.md).
    static func notFound(_ refusal: TypedPeriodError) -> WebReply {
        switch refusal {
        case .notADate: notFound("No such day; write it YYYY-MM-DD.")
        case .notAWeek: notFound("No such week; write it YYYY-Www, e.g. 2026-W47.")
        case .unsupportedDate, .unsupportedWeek: notFound("No such page: " + refusal.description)
        }
    }

    /// GET and HEAD for one path; a storage failure is a 503 with its sentence, never a crash. The
    /// door of every answer: its whole text is checked for an echo of the service key (a page
    /// shows texts side by side, each harmless alone), and one that echoes is withheld.
    private func route(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        _ handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> WebReply
    ) {
        let (echoes, logger) = (echoes, logger)
        let guarded: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            var reply: WebReply
            do {
                reply = try await handler(request, context)
            } catch let failure as StorageFailure {
                reply = WebResponse.text(.serviceUnavailable, failure.description + "\n")
            }
            if echoes.echoes(reply.text) {
                logger.error("An answer to \(request.uri.path) was withheld: it held text that echoes the service key")
                reply = WebResponse.text(.serviceUnavailable, Self.withheldAnswer)
            }
            var response = reply.response
            if request.method == .head { response.body = .init() }
            return response
        }
        router.on(path, method: .get, use: guarded)
        router.on(path, method: .head, use: guarded)
    }

    /// What stands in for an answer that echoed the service key.
    static let withheldAnswer = "This answer was withheld: text AirKorea sent would have shown the service key. See dustd's log.\n"

    private func route(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        _ handler: @escaping @Sendable (Request) async throws -> WebReply
    ) {
        route(router, path) { request, _ in try await handler(request) }
    }
}
