import AirKorea
import DustKit
import Foundation

/// The bundled demo: real and synthesized AirKorea responses replayed through the real pipeline
/// (parser → ingest → SQLite), good ones stored and bad ones rejected with their typed errors.
public struct DemoReplay: Sendable {
    /// The station the demo reports on, and the day its data ends (dataTime 2026-11-20 24:00).
    public static let station = "종로구"
    public static let lastDay = LocalDate(year: 2026, month: 11, day: 20)
    /// The demo's "now": 00:20 KST the next morning, after the last hour was published.
    public static let now = Date(timeIntervalSince1970: 1_795_188_000)

    /// A response to replay: its path below `Fixtures/`, and the station to name items that carry none.
    public struct Response: Sendable {
        public var path: String
        public var station: String?
    }

    public static let responses: [Response] = [
        Response(path: "synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml"),
        Response(path: "synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"),
        Response(path: "synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml"),
        Response(path: "synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml"),
        Response(path: "real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml", station: "강남대로"),
        Response(path: "real/rltm-sido-oldapi-gyeonggi-ver1.3-2019-11-28-truncated.xml"),
        Response(path: "real/rltm-sido-newapi-seoul-nover-2023-05-31-truncated.xml"),
        Response(path: "real/error-oldapi-22-limited-number-of-service-requests-exceeds.xml"),
        Response(path: "real/error-gateway-30-service-key-not-registered-OpenAPI_ServiceResponse-nonairkorea.xml"),
        Response(path: "synthesized/html-503-service-unavailable.html"),
        Response(path: "real/rltm-station-newapi-jongno-ver1.4-2023-05-13-first-item-only.xml"),
        Response(path: "hostile/billion-laughs.xml"),
        Response(path: "hostile/xxe-local-file.xml"),
        // Last, so every earlier response's outcome reads as before: the 서울 stations around jiho's walk
        // for its hours (docs/REFERENCE.md §19), so the demo can follow him.
        Response(path: walkArchiveFile),
    ]

    /// The national archive's 서울 rows for the hours of jiho's walk (dataTime 2026-11-20 16:00 and 17:00),
    /// the stations other than 종로구, whose hours the DAILY response stores.
    public static let walkArchiveFile = "synthesized/sido-seoul-walk-2026-11-20-16h00-17h00.xml"

    /// AirKorea's forecasts issued on the demo's last day (17시, 11시 and 05시), so the forecast of
    /// its "today" and tomorrow can be tried.
    public static let forecastFiles = ["synthesized/forecast-pm10-2026-11-20.xml", "synthesized/forecast-pm25-2026-11-20.xml"]

    /// AirKorea's weekly outlook published on the demo's last day, for the four days after
    /// (docs/REFERENCE.md §17).
    public static let weeklyOutlookFile = "synthesized/weekly-outlook-2026-11-20.xml"
    /// AirKorea's advisories of the demo's year (docs/REFERENCE.md §17), one story with its day: nothing in
    /// force for 종로구's 권역 (its readings and forecast were 좋음 to 보통), the year's 도심권 주의보 cleared,
    /// 경기's of the day before, ozone's of June.
    public static let advisoryFiles: [(file: String, pollutant: AdvisoryPollutant)] = [
        ("synthesized/demo-advisories-pm10-2026.xml", .pm10), ("synthesized/demo-advisories-pm25-2026.xml", .pm25),
        ("synthesized/advisories-o3-2026.xml", .o3),
    ]

    /// Walking distances for the demo week: the child's walks (she walks with the adult, and has no export).
    public static let activityFile = "activity/jongno-week-walks.csv"
    /// The adult's Apple Watch export for the demo week: the same walks, heart rate and sleep.
    public static let watchFile = "activity/demo-week-watch/export.xml"

    /// The demo household (docs/REFERENCE.md §6), both at 종로구: an adult with an Apple Watch, first
    /// (every output that names nobody means him), and a child without one.
    public static let people = [
        Person(name: "jiho", born: BirthMonth(year: 1988, month: 4)!, sex: .male, station: station, indoorSensors: [indoorSensor]),
        Person(name: "seoa", born: BirthMonth(year: 2018, month: 3)!, sex: .female, station: station, indoorSensors: [indoorSensor]),
    ]
    /// The household's living-room monitor (docs/REFERENCE.md §21), where both live.
    public static let indoorSensor = "living-room"
    /// Its samples of the demo's last day from 17:00, a minute each, synthesized (scripts/make-indoor-fixtures.py):
    /// indoors follows the station until a purifier is switched on at 19:00; a gap at 21:10 leaves that hour to the estimate.
    public static let indoorFile = "indoor/demo-living-room-2026-11-20.csv"
    /// A configuration naming the demo household (below `Fixtures/`), for exploring the demo database with
    /// `--config` (`--person`, `--everyone`); a test holds it equal to `people`.
    public static let householdConfigurationFile = "demo-household.yaml"
    /// The adult's GPX walk on the demo's last day, 15:10–15:50 from 종로구 to 숭례문: the track the demo
    /// follows (docs/REFERENCE.md §19).
    public static let walkFile = "activity/demo-walk-jongno-2026-11-20.gpx"
    /// Whose each activity file is: the Watch's export and the walk the adult's, the walks the child's.
    public static let activityImports: [(file: String, person: String)] = [
        (watchFile, people[0].name), (activityFile, people[1].name), (walkFile, people[0].name),
    ]
    /// How far from a position the demo looks for stations (`location.radiusKm`'s default, docs/REFERENCE.md §19).
    public static let locationRadiusKilometres = 10.0

    /// Station lists with coordinates, so `dustctl stations nearest` can be tried without the
    /// station-information service: a real one (two 부천 stations), and the 서울 stations around the walk
    /// that the demo's weighting places (docs/REFERENCE.md §19).
    public static let stationListFiles = ["real/msrstn-list-oldapi-bucheon-truncated.xml", "synthesized/msrstn-list-seoul-walk-8.xml"]

    /// The Fixtures directory: `explicit` if given, else `./Fixtures`, else next to the installed
    /// binary (`../share/finedust/Fixtures`) or the build folder of a checkout.
    public static func locateFixtures(explicit: String?, executable: String = runningExecutable) -> URL? {
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates =
            explicit.map { [$0] } ?? [
                "Fixtures",
                installedFixtures(executable: executable),
                binary.appendingPathComponent("../../Fixtures").path,
                binary.appendingPathComponent("../../../Fixtures").path,
            ]
        return candidates.lazy
            .map { URL(fileURLWithPath: $0).standardizedFileURL }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(activityFile).path) }
    }

    /// Where an installation keeps the fixtures: `share/finedust/Fixtures` beside the directory of the
    /// running program (`/usr/share/…` for the package, `/usr/local/share/…` for `scripts/install.sh`).
    public static func installedFixtures(executable: String = runningExecutable) -> String {
        URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../share/finedust/Fixtures").standardizedFileURL.path
    }

    /// The running program's path: `/proc/self/exe` names it even when it was started as a bare
    /// `dustctl` from `$PATH`, where `argv[0]` holds no directory.
    public static var runningExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// What happened to one replayed response.
    public enum Outcome: Sendable {
        case stored(IngestReport)
        case rejected(IngestError)
    }

    /// One activity file imported for a person of the household.
    public struct ActivityImport: Sendable {
        public var file: String
        public var person: String
        public var summary: ActivityImportSummary

        /// What the file gave the person: `14 hours of walking, 1351 heart-rate samples, 50.9 h asleep`.
        public var held: String {
            var held = ["\(summary.slotsTouched) hour\(summary.slotsTouched == 1 ? "" : "s") of walking"]
            if summary.heartRateSamples > 0 {
                held.append("\(summary.heartRateSamples) heart-rate sample\(summary.heartRateSamples == 1 ? "" : "s")")
            }
            if summary.sleepIntervals > 0 { held.append(String(format: "%.1f h asleep", Double(summary.asleepSeconds) / 3600)) }
            if summary.trackedMinutes > 0 {
                held.append("\(summary.trackedMinutes) tracked minute\(summary.trackedMinutes == 1 ? "" : "s")")
            }
            return held.joined(separator: ", ")
        }
    }

    /// What the replay did: each response's outcome, then each activity file's import.
    public struct Replay: Sendable {
        public var responses: [(Response, Outcome)]
        public var activity: [ActivityImport]
        /// How many samples of the living-room monitor's export were stored.
        public var indoorSamples = 0
    }

    private let fixtures: URL
    private let ingest: IngestService
    private let activity: ActivityService
    private let stations: StationListService
    private let forecasts: any ForecastStore
    private let advisories: any AdvisoryStore
    private let indoor: any IndoorStore
    private let status: any DaemonStatusStore
    private let calendar: DayCalendar

    /// The database holds what the demo did not write: the demo replays only into a new database or
    /// one it made.
    public struct DatabaseInUse: Error, Sendable, Hashable {}

    public init(fixtures: URL, store: any FineDustStore, calendar: DayCalendar) {
        self.fixtures = fixtures
        self.indoor = store
        self.status = store
        self.calendar = calendar
        self.forecasts = store
        self.advisories = store
        let clock = FixedClock(Self.now)
        self.ingest = IngestService(store: store, clock: clock)
        self.activity = ActivityService(store: store, calendar: calendar, clock: clock, people: Self.people.map(\.name))
        self.stations = StationListService(store: store, clock: clock)
    }

    /// Replays every response in order, then imports each person's activity and stores the forecasts and the weekly outlook.
    /// Throws `DatabaseInUse`, having written nothing, when the database holds data the demo did not write.
    public func run() async throws -> Replay {
        guard try await status.claimForDemo(at: Self.now) else { throw DatabaseInUse() }
        var outcomes: [(Response, Outcome)] = []
        for response in Self.responses {
            let body = try Data(contentsOf: fixtures.appendingPathComponent(response.path))
            do {
                outcomes.append((response, .stored(try await ingest.ingest(body, requestedStation: response.station))))
            } catch {
                outcomes.append((response, .rejected(error)))
            }
        }
        var imports: [ActivityImport] = []
        for (file, person) in Self.activityImports {
            let summary = try await activity.importFile(atPath: fixtures.appendingPathComponent(file).path, person: person)
            imports.append(ActivityImport(file: file, person: person, summary: summary))
        }
        for file in Self.stationListFiles {
            try await stations.save(try StationListService.parse(try Data(contentsOf: fixtures.appendingPathComponent(file))))
        }
        for file in Self.forecastFiles {
            let page = try AirKoreaResponseParser().parseForecasts(try Data(contentsOf: fixtures.appendingPathComponent(file)))
            _ = try await forecasts.saveForecasts(page.forecasts, fetchedAt: Self.now)
        }
        let outlooks = try AirKoreaResponseParser().parseWeeklyOutlooks(
            try Data(contentsOf: fixtures.appendingPathComponent(Self.weeklyOutlookFile)))
        for outlook in outlooks.outlooks {
            _ = try await forecasts.saveWeeklyOutlook(outlook, fetchedAt: Self.now)
        }
        for (file, pollutant) in Self.advisoryFiles {
            let page = try AirKoreaResponseParser().parseAdvisories(
                try Data(contentsOf: fixtures.appendingPathComponent(file)), pollutant: pollutant)
            _ = try await advisories.saveAdvisories(page.advisories, fetchedAt: Self.now)
        }
        // The living-room monitor's export, through the parser `dustctl indoor import` uses.
        let rows = try IndoorCSVParser(calendar: calendar, sensor: Self.indoorSensor).parse(
            try Data(contentsOf: fixtures.appendingPathComponent(Self.indoorFile)), now: Self.now)
        try await indoor.importIndoorSeries(rows.series)
        return Replay(responses: outcomes, activity: imports, indoorSamples: rows.series.count)
    }
}
