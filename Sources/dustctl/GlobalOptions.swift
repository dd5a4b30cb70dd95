import ArgumentParser
import DustConfig
import DustKit
import DustServices
import Foundation

/// Options every dustctl command understands (docs/REFERENCE.md §6).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: .localized(
            "설정 파일 (기본: $DUSTD_CONFIG, /etc/dustd/dustd.yaml, ./Config/dustd.yaml).",
            "Configuration file (default: $DUSTD_CONFIG, /etc/dustd/dustd.yaml, ./Config/dustd.yaml).", valueName: "path"),
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Option(
        name: .long, help: .localized("데이터베이스 파일; storage.path 대신 씁니다.", "Database file; overrides storage.path.", valueName: "path"),
        completion: .file())
    var db: String?

    @Option(
        name: .long,
        help: .localized("AirKorea 측정소 이름; station.name 대신 씁니다.", "AirKorea station name; overrides station.name.", valueName: "name"))
    var station: String?

    @Flag(name: .long, help: .localized("텍스트 대신 JSON을 출력합니다.", "Print JSON instead of text."))
    var json = false

    @Option(
        name: .long,
        help: .localized(
            "이 시각을 지금으로 보고 답합니다: 설정된 시간대의 YYYY-MM-DDTHH:MM, 또는 오프셋을 붙인 시각 (기본: $FINEDUST_NOW, 없으면 현재). import와 activity import는 받지 않습니다.",
            "Answer as at this moment: YYYY-MM-DDTHH:MM in the configured zone, or with an offset (default: $FINEDUST_NOW, else now). import and activity import refuse it.",
            valueName: "time"))
    var now: String?

    /// A path given empty, or longer than any path can be, is a usage error before anything is opened:
    /// "There is no database at ;" said nothing, and a 100 KB value was quoted whole in the error after.
    func validate() throws {
        for (name, value) in [("--db", db), ("--config", config)] {
            guard let value else { continue }
            if value.isEmpty {
                throw ValidationError(korean: "\(name)에 빈 경로를 주었습니다. 파일 경로를 주세요.", english: "\(name) was given an empty path; name a file.")
            }
            if value.utf8.count > Int(PATH_MAX) {
                let shown = TerminalSafeText.shown(value, characters: 80)
                throw ValidationError(
                    korean: "\(name)의 값(\(shown))이 경로가 될 수 있는 길이(\(PATH_MAX)바이트)보다 깁니다.",
                    english: "\(name) \"\(shown)\" is longer than a path can be (\(PATH_MAX) bytes).")
            }
        }
    }

    /// The clock `today`, `week`, `export`, `forecast`, `advisories` and `status` read: `--now`, else
    /// `$FINEDUST_NOW`, else the system's (docs/REFERENCE.md §6). Exploring a database of another
    /// day, such as the demo's, needs it.
    func clock(_ settings: FineDustSettings) throws -> any WallClock {
        let environment = EnvironmentVariables.read(named: ["FINEDUST_NOW"])["FINEDUST_NOW"].flatMap { $0.isEmpty ? nil : $0 }
        guard let text = now ?? environment else { return SystemClock() }
        guard let instant = Self.instant(text, in: settings.calendar.timeZone) else {
            let origin = now != nil ? "--now" : "FINEDUST_NOW"
            let given = "\(origin) \"\(TerminalSafeText.shown(text, characters: 80))\""
            throw CommandFailure(
                .usage,
                korean: "\(given)은(는) 시각이 아닙니다: YYYY-MM-DDTHH:MM(설정된 시간대)으로 쓰거나 오프셋을 붙이세요. 예: 2026-11-21T00:30+09:00.",
                english:
                    "\(given) is not a time: write YYYY-MM-DDTHH:MM (the configured zone) or add an offset, e.g. 2026-11-21T00:30+09:00."
            )
        }
        // The day it falls on where reports are made, not the year as typed: 2099-12-31T23:59-12:00 is
        // already 2100 in Korea, 1999-12-31T20:00Z already 2000.
        let day = settings.calendar.date(containing: instant)
        guard SupportedPeriod.contains(day) else {
            let origin = now != nil ? "--now" : "FINEDUST_NOW"
            let given = "\(origin) \"\(TerminalSafeText.shown(text, characters: 80))\""
            let range = "\(SupportedPeriod.firstDate) – \(SupportedPeriod.lastDate)"
            throw CommandFailure(
                .usage,
                korean: "\(given)은(는) 설정된 시간대로 \(day)이어서 FineDust가 다루는 날짜(\(range)) 밖입니다.",
                english: "\(given) is \(day) in the configured zone, outside the dates FineDust keeps (\(range)).")
        }
        return FixedClock(instant)
    }

    /// `YYYY-MM-DDTHH:MM[:SS]` in `zone`, or with `Z` or `±HH:MM`; any year from 0001 as written (the day
    /// it falls on in the configured zone is held to `SupportedPeriod` by `clock`, whose sentence names the
    /// range: a well-formed 1970 was called "not a time").
    static func instant(_ text: String, in zone: TimeZone) -> Date? {
        let pattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?$/.asciiOnlyDigits()
        guard let match = text.wholeMatch(of: pattern), let year = Int(match.1), (1...9999).contains(year) else { return nil }
        var zoneUsed = zone
        if let offset = match.7 {
            if offset == "Z" {
                zoneUsed = TimeZone(secondsFromGMT: 0)!
            } else {
                let sign = offset.hasPrefix("-") ? -1 : 1
                let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts[0] <= 14, parts[1] < 60,
                    let fixed = TimeZone(secondsFromGMT: sign * (parts[0] * 3600 + parts[1] * 60))
                else { return nil }
                zoneUsed = fixed
            }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zoneUsed
        let components = DateComponents(
            year: year, month: Int(match.2), day: Int(match.3), hour: Int(match.4), minute: Int(match.5),
            second: match.6.flatMap { Int($0) } ?? 0)
        guard let date = calendar.date(from: components),
            calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
                == DateComponents(year: year, month: Int(match.2), day: Int(match.3), hour: Int(match.4), minute: Int(match.5))
        else { return nil }
        return date
    }

    /// The settings from the configuration file and environment, with --db and --station applied;
    /// the loader's warnings (a misspelt `DUSTD_…` variable) go to stderr.
    func settings() throws -> FineDustSettings {
        var settings: FineDustSettings
        do {
            // The warning of a birth ahead speaks of this machine's clock, not of `--now`.
            settings = try SettingsLoader().load(configurationFile: config, now: SystemClock().now)
        } catch {
            throw CommandFailure(.configuration, korean: koreanConfigurationError(error), english: error.description)
        }
        TerminalDoor.watch(for: settings)
        for warning in settings.warnings { standardWarning("\(koreanSettingsWarning(warning)).", "\(warning).") }
        if let db {
            do { try settings.useSQLite(at: db, option: "--db") } catch { throw CommandFailure(.configuration, error.description) }
        }
        if let station = stationName {
            // What station.name may not hold, --station may not either: it names what `import` stores and
            // what `export` writes into a file.
            guard !station.isEmpty else {
                throw CommandFailure(.usage, korean: "--station에 측정소 이름을 쓰세요.", english: "--station needs a station's name.")
            }
            if let problem = DisplayName.problem(in: station) {
                throw CommandFailure(.usage, korean: "--station: \(problem.korean).", english: "--station \(problem.english).")
            }
            // A person without a station of their own has `station.name`'s, which --station overrides.
            for index in settings.people.indices where settings.people[index].station == settings.station.name {
                settings.people[index].station = station
            }
            settings.station.name = station
        }
        return settings
    }

    /// A command that stores what files say (`import`, `activity import`) judges their times against this
    /// machine's clock (an hour stamped ahead of it is refused): `--now` there was accepted and did
    /// nothing, so it is refused, saying so. (`$FINEDUST_NOW`, set for exploring, is left alone.)
    func refuseNow(_ command: String) throws {
        guard now != nil else { return }
        throw ValidationError(
            korean: "\(command)은(는) --now를 읽지 않습니다: 파일의 시각을 이 기계의 시계에 견줍니다. --now는 보고 명령(today, day, week, export …)의 것입니다.",
            english:
                "\(command) does not read --now: it judges the files' times against this machine's clock; --now is for the report commands (today, day, week, export, …)."
        )
    }

    /// `--station` trimmed and composed as `station.name` is (`NameForm`), so that a name pasted with a
    /// no-break space or copied from a Mac's file name is the station it looks like.
    var stationName: String? { station.map(NameForm.given) }

    /// Nothing when `name` has readings or is in the station list, or the database holds no station
    /// at all (a new one: the report says there is nothing yet); otherwise the error of `--station`
    /// (64) or of `station.name` (78), with the nearest stored names.
    /// - Parameter person: the person whose `people[].station` names the station; nil for the primary.
    private func checkStored(_ name: String, store: any FineDustStore, person: String? = nil) async throws {
        if try await store.newestSlot(station: name, endingBy: .distantFuture) != nil { return }
        let known = try await store.stationsWithReadings()
        guard !known.isEmpty else { return }
        let sentence = StationNames.notStored(name, known: known)
        let korean = Self.koreanNotStored(name, known: known)
        if person == nil, station != nil { throw CommandFailure(.usage, korean: korean + ".", english: sentence + ".") }
        // Where the name came from, as the operator would look for it.
        let (koreanSource, englishSource): (String, String) =
            if let person {
                ("설정 파일에서 \(person)의 people[].station이", "\(person)'s station in the configuration file (people[].station)")
            } else if ProcessInfo.processInfo.environment["DUSTD_STATION_NAME"]?.isEmpty == false {
                ("환경 변수 DUSTD_STATION_NAME이", "DUSTD_STATION_NAME in the environment")
            } else {
                ("설정 파일의 station.name이", "station.name in the configuration file")
            }
        throw CommandFailure(
            .configuration, korean: korean + ". \(koreanSource) 이 데이터베이스에 없는 측정소를 가리킵니다.",
            english: sentence + "; \(englishSource) names no station this database holds.")
    }

    /// The configured station, where a command reads it only for where it is (the forecast's region,
    /// the advisories' district) and nothing else says where: checked as `household` checks it, so
    /// that a mistyped `--station` is named as such (64), not as a province FineDust does not know.
    /// A station of the synced list (`dustctl stations sync`) with no hour stored is known too: its
    /// province is what these commands read.
    func checkStation(_ settings: FineDustSettings, store: any FineDustStore) async throws {
        guard let name = settings.station.name, try await store.stationLocation(name: name) == nil else { return }
        try await checkStored(name, store: store)
    }

    /// `StationNames.notStored` in Korean: the same nearest names.
    static func koreanNotStored(_ name: String, known: [String]) -> String {
        let nearest = SpellingDistance.nearest(StationNames.suggestions, to: name, among: known)
        let list = known.count <= StationNames.suggestions ? "측정값이 있는 측정소: " : "측정값이 있는 가장 비슷한 측정소: "
        return "측정소 \(TerminalSafeText.shown(name, characters: 80))의 측정값은 저장되어 있지 않습니다. \(list)\(nearest.joined(separator: ", "))"
    }

    /// The station that drives intake, or a usage error saying how to name one.
    func primaryStation(_ settings: FineDustSettings) throws -> StationPreference {
        guard let name = settings.station.name else {
            throw CommandFailure(
                .usage, korean: "설정된 측정소가 없습니다. --station NAME을 주거나 설정 파일에 station.name을 쓰세요.",
                english: "No station is configured; pass --station NAME or set station.name in the configuration file.")
        }
        return StationPreference(primary: name, fallbacks: settings.station.fallbacks)
    }

    /// The statistics service over the existing database, read-only, before a person is chosen (its
    /// `household` and `forPerson` give each person's), for as long as `body` runs.
    func withHousehold<T>(
        _ settings: FineDustSettings, people: [Person] = [], _ body: (StatisticsService) async throws -> T
    ) async throws -> T {
        try await withStore(settings, for: .read) { store in try await body(try await household(settings, store: store, people: people)) }
    }

    /// The statistics service over `store`, the one the command opened, once the station is known
    /// to it: a name the database never stored is an error naming the nearest stored ones, not an
    /// empty report (docs/REFERENCE.md §6).
    /// - Parameter people: the people the command reports on: a station of their own the database
    ///   never stored is the same error (a mistyped `people[].station` made an empty report headed with it).
    func household(
        _ settings: FineDustSettings, store: any FineDustStore, clock given: (any WallClock)? = nil, people: [Person] = []
    ) async throws -> StatisticsService {
        let clock = try given ?? self.clock(settings)
        let stations = try primaryStation(settings)
        try await checkStored(stations.primary, store: store)
        for person in people {
            guard let own = person.station, own != stations.primary else { continue }
            try await checkStored(own, store: store, person: person.name)
        }
        return StatisticsService(
            store: store, clock: clock, calendar: settings.calendar, intakeModel: settings.intakeModel,
            stations: try primaryStation(settings), followingRadiusKilometres: settings.followingRadiusKilometres)
    }
}
