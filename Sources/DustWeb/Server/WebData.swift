import DustKit
import DustReports
import DustServices
import Foundation
import Synchronization

/// What the web pages and the API read, the same way `dustctl` reads it: the database dustd
/// writes, the settings it runs with, and its status record. Read through closures so a reloaded
/// configuration or a reopened database is seen at the next request.
public struct WebData: Sendable {
    /// The settings that shape a report.
    public struct ReportSettings: Sendable {
        public var stations: StationPreference
        public var calendar: DayCalendar
        public var intakeModel: any IntakeModel
        public var databasePath: String
        /// `forecast.region`; nil means the station's region.
        public var forecastRegion: ForecastRegion?
        /// Other files dustd reads (its configuration, key and token files): never shown on the web.
        public var otherPaths: [String]
        /// `advisories.district` and `advisories.area`; a nil district means the station's 시도.
        public var advisoryDistrict: String?
        public var advisoryArea: String?
        /// `people:` (docs/REFERENCE.md §18), the first the one a request names none means; empty:
        /// the one person `me` of `stations`, `intakeModel`.
        public var people: [Person]
        /// The radius §19 weights within when the concentration follows people; nil when it cannot.
        public var followingRadiusKilometres: Double?
        /// The indoor sensors dustd asks (every kind but `import`): a problem stored for another one
        /// (a monitor since changed to `kind: import`) is no longer so.
        public var askedIndoorSensors: Set<String>

        public init(
            stations: StationPreference, calendar: DayCalendar, intakeModel: any IntakeModel, databasePath: String,
            forecastRegion: ForecastRegion? = nil, otherPaths: [String] = [], advisoryDistrict: String? = nil, advisoryArea: String? = nil,
            people: [Person] = [], followingRadiusKilometres: Double? = nil, askedIndoorSensors: Set<String>? = nil
        ) {
            self.askedIndoorSensors = askedIndoorSensors ?? Set(people.flatMap(\.indoorSensors))
            self.people = people
            self.followingRadiusKilometres = followingRadiusKilometres
            self.advisoryDistrict = advisoryDistrict
            self.advisoryArea = advisoryArea
            self.stations = stations
            self.calendar = calendar
            self.intakeModel = intakeModel
            self.databasePath = databasePath
            self.forecastRegion = forecastRegion
            self.otherPaths = otherPaths
        }

        /// What web answers leave out: these paths, any other absolute path, and the PID.
        public var audience: WebAudience { WebAudience(knownPaths: [databasePath] + otherPaths) }
    }

    private let store: @Sendable () -> any FineDustStore
    private let settings: @Sendable () -> ReportSettings
    private let clock: any WallClock
    private let processIsDustd: @Sendable (Int32) -> Bool
    private let settingsGenerationNow: @Sendable () -> Int
    private let revocations = KeptRevocations()
    private let recentSignOuts = RecentSignOuts()
    private let generationReuse: Duration
    private let lastGeneration = KeptGeneration()
    private let monotonicNow: @Sendable () -> ContinuousClock.Instant

    /// - Parameter settingsGeneration: a number that changes whenever `settings` would answer
    ///   differently (a reloaded configuration): what the answers kept are keyed by, with the data's.
    public init(
        store: @escaping @Sendable () -> any FineDustStore, settings: @escaping @Sendable () -> ReportSettings,
        settingsGeneration: @escaping @Sendable () -> Int = { 0 },
        clock: any WallClock = SystemClock(), processIsDustd: @escaping @Sendable (Int32) -> Bool = DustServices.processIsDustd,
        generationReuse: Duration = .zero, monotonicNow: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.generationReuse = generationReuse
        self.monotonicNow = monotonicNow
        self.store = store
        self.settings = settings
        self.settingsGenerationNow = settingsGeneration
        self.clock = clock
        self.processIsDustd = processIsDustd
    }

    public var now: Date { clock.now }
    /// Which configuration the settings are (it changes at each reload).
    public var settingsGeneration: Int { settingsGenerationNow() }
    /// How far the database has been written (`DataGenerationStore`), read now.
    public func dataGeneration() async throws(StorageFailure) -> Int64 { try await store().dataGeneration() }

    /// The data generation a kept answer is looked up by (docs/REFERENCE.md §13, "Answers kept"): read
    /// now, or, where a read is a round trip to a server (`generationReuse`, PostgreSQL's), the one a
    /// read began at most that long ago, so a burst of requests costs one query, not one each. A write
    /// then shows on the web at most that much later; nothing about who may see what depends on it
    /// (`sessionRevocations` reads the number now).
    public func answerGeneration() async throws(StorageFailure) -> Int64 {
        guard generationReuse > .zero else { return try await dataGeneration() }
        let began = monotonicNow()
        if let kept = lastGeneration.kept(since: began - generationReuse) { return kept }
        let generation = try await dataGeneration()
        lastGeneration.keep(generation, readFrom: began)
        return generation
    }
    public var reportSettings: ReportSettings { settings() }

    /// The statistics service `dustctl` would build for the same settings, for the first person.
    public func statistics() -> StatisticsService {
        let settings = settings()
        let service = household(settings)
        return settings.people.first.map(service.forPerson) ?? service
    }

    /// The statistics service `dustctl` would build for the same settings, for the person named
    /// `person` (nil: the first configured), or `UnknownPerson` naming the configured ones.
    public func statistics(person name: String?) throws(UnknownPerson) -> StatisticsService {
        let settings = settings()
        guard let name else { return statistics() }
        let configured = settings.people.isEmpty ? [Person.defaultName] : settings.people.map(\.name)
        guard configured.contains(name) else { throw UnknownPerson(name: name, configured: configured) }
        guard let person = settings.people.first(where: { $0.name == name }) else { return household(settings) }
        return household(settings).forPerson(person)
    }

    /// Each configured person's ISO week, the readings read once (docs/REFERENCE.md §18); empty
    /// with fewer than two people, where there is no household to set side by side.
    public func householdWeek(_ week: ISOWeek) async throws(StorageFailure) -> [DashboardModel.PersonWeek] {
        let settings = settings()
        guard settings.people.count > 1 else { return [] }
        let weeks = try await household(settings).householdWeek(settings.people, week)
        return zip(settings.people, weeks).map { DashboardModel.PersonWeek(person: $0.name, week: $1) }
    }

    /// Each person's today with their home station, the readings read once, in the configured
    /// order; without `people:`, `me`'s (`/metrics`, docs/REFERENCE.md §13).
    public func everyoneToday() async throws(StorageFailure) -> [(person: String, station: String, day: DayReport)] {
        let settings = settings()
        let service = household(settings)
        guard !settings.people.isEmpty else {
            return [(Person.defaultName, settings.stations.primary, try await service.day(service.today))]
        }
        let days = try await service.household(settings.people, from: service.today, through: service.today)
        return zip(settings.people, days).map { ($0.name, $0.station ?? settings.stations.primary, $1[0]) }
    }

    /// Each indoor sensor's sample that stands now (taken within its hold: 5 minutes, a Home
    /// Assistant state 60), by sensor (docs/REFERENCE.md §21); a sensor without one is left out.
    public func indoorNow() async throws(StorageFailure) -> [IndoorSample] {
        var sensors: [String] = []
        for name in settings().people.flatMap(\.indoorSensors) where !sensors.contains(name) { sensors.append(name) }
        guard !sensors.isEmpty else { return [] }
        let now = clock.now
        let samples = try await store().indoorSamples(
            sensors: sensors, from: now.addingTimeInterval(-TimeInterval(IndoorSample.stateHoldSeconds)), to: now.addingTimeInterval(60))
        return sensors.sorted().compactMap { sensor in
            samples.last { $0.sensor == sensor && $0.at.addingTimeInterval(TimeInterval($0.holdSeconds)) > now }
        }
    }

    /// Each principal's sign-outs, by cookie name (`SessionRevocationStore`), read once per data
    /// generation: a request signed in by cookie costs no read more than the one it makes anyway.
    public func sessionRevocations() async throws(StorageFailure) -> [String: SignOuts] {
        let generation = try await dataGeneration()
        if let kept = revocations.kept(at: generation) { return kept }
        let signOuts = try await store().sessionRevocations()
        revocations.keep(signOuts, at: generation)
        return signOuts
    }

    /// Ends every session cookie of `principal` issued before now, on every device: the count of
    /// sign-outs goes up by one, whatever the clocks said. `cookieSignOuts` is the count the cookie
    /// asking carries: when the recorded count has moved past it (the same cookie's sign-out posted
    /// in turn, or from two tabs), that cookie is ended already and nothing is written; at once, the
    /// store counts one (`ifCount`). Each write raises the data generation, and every kept answer of
    /// everyone is computed again, so how often one person can sign out is paced by the sign-in before
    /// it (`signedOutJustNow`).
    public func revokeSessions(of principal: WebPrincipal, cookieSignOuts: Int64) async throws(StorageFailure) {
        let recorded = try await sessionRevocations()[principal.cookieName]?.count ?? 0
        guard recorded == cookieSignOuts else { return }
        try await store().revokeSessions(of: principal.cookieName, at: clock.now, ifCount: cookieSignOuts)
        recentSignOuts.record(principal.cookieName, at: monotonicNow())
    }

    /// Whether this dustd wrote a sign-out of `principal` less than a second ago: a sign-in then is
    /// answered 429 for a second (`WebSignIn`), so that signing in and out in a loop writes at most
    /// one sign-out a second. Timed by the monotonic clock: the demo's wall clock stands still.
    public func signedOutJustNow(_ principal: WebPrincipal) -> Bool {
        recentSignOuts.within(.seconds(1), of: principal.cookieName, now: monotonicNow())
    }

    /// The count of sign-outs a cookie issued now to `principal` (who has just given their token)
    /// carries: the count decides whether the cookie is still good (`WebSecurityMiddleware`), whatever
    /// the clocks said when each was written.
    ///
    /// A sign-out recorded before counts were kept (count 0) has only its time, and a cookie is good
    /// only if issued after it: stamped this second or later (a clock that was ahead, a Raspberry Pi's
    /// set right since), no cookie issued now ever would be, and the person could never sign in. It
    /// is counted then, once, which ends every cookie issued before, as that sign-out meant to.
    public func signOutCount(issuingTo principal: WebPrincipal) async throws(StorageFailure) -> Int64 {
        let now = clock.now
        guard let signOuts = try await sessionRevocations()[principal.cookieName] else { return 0 }
        guard signOuts.count == 0, now.timeIntervalSince(signOuts.last) < 1 else { return signOuts.count }
        try await store().revokeSessions(of: principal.cookieName, at: now.addingTimeInterval(-1))
        return 1
    }

    /// Statistics before a person is chosen: without `people:`, `me`'s.
    private func household(_ settings: ReportSettings) -> StatisticsService {
        StatisticsService(
            store: store(), clock: clock, calendar: settings.calendar, intakeModel: settings.intakeModel,
            stations: settings.stations, followingRadiusKilometres: settings.followingRadiusKilometres)
    }

    /// dustd's health as `dustctl status` judges it.
    public func health() async throws(StorageFailure) -> DaemonHealth {
        try await DaemonHealth.read(from: store(), station: settings().stations.primary, now: clock.now, processIsDustd: processIsDustd)
    }

    /// The indoor monitors among `sensors` that have a problem now (not answering, answers without a
    /// value), as `dustctl status` says them: only those dustd asks.
    public func indoorProblems(of sensors: [String]) async throws(StorageFailure) -> [IndoorSensorState] {
        let named = Set(sensors).intersection(settings().askedIndoorSensors)
        guard !named.isEmpty else { return [] }
        return try await store().indoorSensorStates().filter { named.contains($0.sensor) && $0.problem != nil }
    }

    /// The `dustctl status --json` document, less what the web never shows (`WebAudience`).
    public func statusDocument() async throws(StorageFailure) -> JSON {
        let settings = settings()
        let reading = try await StatusReading.read(
            from: store(), station: settings.stations.primary, now: clock.now, processIsDustd: processIsDustd)
        let sensors = Set(settings.people.flatMap(\.indoorSensors)).intersection(settings.askedIndoorSensors)
        let indoor = sensors.isEmpty ? [] : try await store().indoorSensorStates().filter { sensors.contains($0.sensor) }
        return ReportJSON.status(
            reading.health, database: settings.databasePath, station: settings.stations.primary, rows: reading.rows,
            calendar: settings.calendar, forecastCallsToday: reading.forecastCallsToday, web: settings.audience, indoor: indoor)
    }

    /// Today's and tomorrow's forecast for the region, as `dustctl forecast` reads it.
    public func forecastOutlook() async throws(ForecastReadError) -> ForecastOutlook {
        let settings = settings()
        return try await ForecastReader(store: store(), timeZone: settings.calendar.timeZone)
            .outlook(station: settings.stations.primary, override: settings.forecastRegion, now: clock.now)
    }

    /// The `dustctl forecast --json` document.
    public func forecastDocument() async throws(ForecastReadError) -> JSON {
        let settings = settings()
        return ReportJSON.forecast(try await forecastOutlook(), station: settings.stations.primary, calendar: settings.calendar)
    }

    /// The advisories in force and the year's, for the user's district, as `dustctl advisories` reads them.
    public func advisoryListing() async throws(StorageFailure) -> AdvisoryListing {
        let (reader, region) = try await advisoryRegion()
        return try await reader.listing(region: region, now: clock.now)
    }

    /// The user's district and 권역 (`advisories.*`, else the station's 시도) with the reader that found it.
    private func advisoryRegion() async throws(StorageFailure) -> (AdvisoryReader, AdvisoryRegion?) {
        let settings = settings()
        let reader = AdvisoryReader(store: store())
        let region = try await reader.region(
            district: settings.advisoryDistrict, area: settings.advisoryArea, station: settings.stations.primary)
        return (reader, region)
    }

    /// The advisories in force for the user's district and 권역 (what `/metrics` exports); nil when
    /// the district is not known.
    public func advisoriesInForce() async throws(StorageFailure) -> [Advisory]? {
        let (reader, region) = try await advisoryRegion()
        guard let region else { return nil }
        return try await reader.inForce(region: region, now: clock.now)
    }

    /// The `dustctl advisories --json` document.
    public func advisoryDocument() async throws(StorageFailure) -> JSON {
        ReportJSON.advisories(try await advisoryListing(), calendar: settings().calendar, now: clock.now)
    }

    /// The `dustctl today --json` document of `person` (nil: the first), with its `forecastTomorrow` member.
    public func todayDocument(person: String? = nil) async throws -> JSON {
        let statistics = try statistics(person: person)
        let day = try await statistics.day(statistics.today)
        let outlook = try? await forecastOutlook()
        let listing = try? await advisoryListing()
        let latest = try await statistics.latestReading()
        return ReportJSON.day(
            day, calendar: statistics.calendar, forecastTomorrow: ReportJSON.forecastTomorrow(outlook, calendar: statistics.calendar),
            advisory: ReportJSON.todayAdvisory(listing, calendar: statistics.calendar, now: clock.now),
            latest: ReportJSON.latest(latest, calendar: statistics.calendar))
    }
}

/// The sign-out times last read, and the data generation they were read at.
/// The data generation last read and when its read began, for `WebData.answerGeneration`.
private final class KeptGeneration: Sendable {
    private let kept = Mutex<(generation: Int64, began: ContinuousClock.Instant)?>(nil)

    /// The generation of a read that began at `earliest` or later.
    func kept(since earliest: ContinuousClock.Instant) -> Int64? {
        kept.withLock { $0.flatMap { $0.began >= earliest ? $0.generation : nil } }
    }

    /// Keeps `generation` unless a read that began later is kept already (reads may end out of order).
    func keep(_ generation: Int64, readFrom began: ContinuousClock.Instant) {
        kept.withLock { current in
            if current.map({ $0.began <= began }) ?? true { current = (generation, began) }
        }
    }
}

/// When this dustd last wrote each principal's sign-out, by the monotonic clock (at most one entry a
/// principal: the household's people and the administrator).
private final class RecentSignOuts: Sendable {
    private let written = Mutex<[String: ContinuousClock.Instant]>([:])

    func record(_ principal: String, at instant: ContinuousClock.Instant) {
        written.withLock { $0[principal] = instant }
    }

    func within(_ span: Duration, of principal: String, now: ContinuousClock.Instant) -> Bool {
        written.withLock { $0[principal].map { now - $0 < span } ?? false }
    }
}

private final class KeptRevocations: Sendable {
    private let kept = Mutex<(generation: Int64, signOuts: [String: SignOuts])?>(nil)

    func kept(at generation: Int64) -> [String: SignOuts]? {
        kept.withLock { $0.flatMap { $0.generation == generation ? $0.signOuts : nil } }
    }

    func keep(_ signOuts: [String: SignOuts], at generation: Int64) {
        kept.withLock { $0 = (generation, signOuts) }
    }
}
