import ArgumentParser
import DustConfig
import DustKit
import DustServices
import Foundation

/// Options every dustctl command understands (docs/REFERENCE.md §6).
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Configuration file (default: $DUSTD_CONFIG, /etc/dustd/dustd.yaml, ./Config/dustd.yaml).", valueName: "path"),
        completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Database file; overrides storage.path.", valueName: "path"), completion: .file())
    var db: String?

    @Option(name: .long, help: ArgumentHelp("AirKorea station name; overrides station.name.", valueName: "name"))
    var station: String?

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    /// The settings from the configuration file and environment, with --db and --station applied;
    /// the loader's warnings (a misspelt `DUSTD_…` variable) go to stderr.
    func settings() throws -> FineDustSettings {
        var settings: FineDustSettings
        do {
            settings = try SettingsLoader().load(configurationFile: config)
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
        for warning in settings.warnings { standardError("warning: \(warning).") }
        if let db {
            do { try settings.useSQLite(at: db, option: "--db") } catch { throw CommandFailure(.configuration, error.description) }
        }
        if let station {
            // A person without a station of their own has `station.name`'s, which --station overrides.
            for index in settings.people.indices where settings.people[index].station == settings.station.name {
                settings.people[index].station = station
            }
            settings.station.name = station
        }
        return settings
    }

    /// The station that drives intake, or a usage error saying how to name one.
    func primaryStation(_ settings: FineDustSettings) throws -> StationPreference {
        guard let name = settings.station.name else {
            throw CommandFailure(.usage, "No station is configured; pass --station NAME or set station.name in the configuration file.")
        }
        return StationPreference(primary: name, fallbacks: settings.station.fallbacks)
    }

    /// The statistics service over the existing database, read-only, before a person is chosen (its
    /// `household` and `forPerson` give each person's), for as long as `body` runs.
    func withHousehold<T>(_ settings: FineDustSettings, _ body: (StatisticsService) async throws -> T) async throws -> T {
        try await withStore(settings, for: .read) { store in try await body(try household(settings, store: store)) }
    }

    /// The statistics service over `store`, the one the command opened.
    func household(
        _ settings: FineDustSettings, store: any FineDustStore, clock: any WallClock = SystemClock()
    ) throws -> StatisticsService {
        return StatisticsService(
            store: store, clock: clock, calendar: settings.calendar, intakeModel: settings.intakeModel,
            stations: try primaryStation(settings), followingRadiusKilometres: settings.followingRadiusKilometres)
    }
}
