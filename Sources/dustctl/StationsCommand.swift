import AirKorea
import AirKoreaHTTP
import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import DustStore
import Foundation

struct StationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stations",
        abstract: "AirKorea monitoring stations: fetch the list, show it, find the nearest.",
        subcommands: [StationsSyncCommand.self, StationsImportCommand.self, StationsListCommand.self, StationsNearestCommand.self])
}

struct StationsSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Fetch AirKorea's station list (names, addresses, coordinates) into the database.",
        discussion: """
            Needs the service key: DUSTD_API_SERVICE_KEY or a key file named by api.serviceKeyFile
            (never a command-line argument). Example:
              DUSTD_API_SERVICE_KEY_FILE=~/.airkorea-key dustctl stations sync --db ./dust.sqlite
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures { try await sync() }
    }

    private func sync() async throws {
        let settings = try options.settings()
        let key: ServiceKey
        do {
            key = try await ServiceKeyLoader().load(settings: settings).key
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
        let transport = AsyncHTTPTransport()
        let fetched: StationListService.Fetched
        do {
            fetched = try await StationListService.fetch(from: AirKoreaClient(api: settings.api, key: key, transport: transport))
            await transport.shutdown()
        } catch {
            await transport.shutdown()
            let status: ExitStatus = error.retryAdvice == .waitForNextHour ? .configuration : .unavailable
            // The client already removed the key from what the server sent; this is the last line
            // of defence, as in dustd's log handler.
            throw CommandFailure(status, key.redacting(StationListService.explain(error)))
        }
        if let (claimed, pages) = fetched.capped {
            standardError("warning: AirKorea claims \(claimed) stations; stopped after \(pages) pages, all the station list can fill.")
        }
        try StationListService(store: SQLiteStore(path: settings.storagePath)).save(fetched.stations)
        let stations = fetched.stations
        try standardOutputLine("\(stations.count) stations stored.")
    }
}

struct StationsImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store saved getMsrstnList responses (the station list) without the network.",
        discussion: "Example:\n  dustctl stations import Fixtures/real/msrstn-list-oldapi-bucheon-truncated.xml --db ./dust.sqlite")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Saved station-list XML responses.", completion: .file())
    var files: [String]

    func run() throws {
        try reportingFailures {
            let settings = try options.settings()
            var stations: [Station] = []
            for file in files {
                let body = try readInputFile(file, limit: ParserLimits().maxDocumentBytes)
                do throws(AirKoreaError) {
                    stations += try StationListService.parse(body)
                } catch {
                    throw CommandFailure(.dataError, "\(file): \(error.description)")
                }
            }
            try StationListService(store: SQLiteStore(path: settings.storagePath)).save(stations)
            try standardOutputLine("\(stations.count) stations stored.")
        }
    }
}

struct StationsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "The stations in the database.",
        discussion: "Example:\n  dustctl stations list --json")

    @OptionGroup var options: GlobalOptions

    func run() throws {
        try reportingFailures {
            let stations = try SQLiteStore(path: try options.settings().storagePath, mode: .readOnly).stations()
            if options.json {
                try standardOutputLine(JSON.array(stations.map(ReportJSON.station)).serialized)
            } else {
                for station in stations {
                    let place = [station.network, station.address].compactMap { $0 }.joined(separator: " · ")
                    try standardOutputLine(pad(station.name, 14) + place)
                }
            }
        }
    }
}

struct StationsNearestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearest",
        abstract: "The stations nearest to a place, from the synced station list.",
        discussion: "Example (Seoul City Hall):\n  dustctl stations nearest --lat 37.5663 --lon 126.9779")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Latitude, degrees north.") var lat: Double
    @Option(help: "Longitude, degrees east.") var lon: Double
    @Option(help: "How many stations to show.") var count = 5

    func validate() throws {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else { throw ValidationError("--lat must be within ±90 and --lon within ±180.") }
        guard count > 0 else { throw ValidationError("--count must be at least 1.") }
    }

    func run() throws {
        try reportingFailures {
            let stations = try SQLiteStore(path: try options.settings().storagePath, mode: .readOnly).stations()
            let located = stations.compactMap { station -> (Station, Double)? in
                guard let latitude = station.latitude, let longitude = station.longitude else { return nil }
                return (station, greatCircleKilometres(lat, lon, latitude, longitude))
            }.sorted { $0.1 < $1.1 }.prefix(count)
            guard !located.isEmpty else {
                throw CommandFailure(.noInput, "No station coordinates are stored yet; run `dustctl stations sync` (needs the service key) or `dustctl stations import FILE`.")
            }
            if options.json {
                try standardOutputLine(JSON.array(located.map { station, distance in
                    guard case var .object(members) = ReportJSON.station(station) else { return .null }
                    members.append(("distanceKm", .number(distance)))
                    return .object(members)
                }).serialized)
            } else {
                for (station, distance) in located {
                    try standardOutputLine(pad(station.name, 14) + pad(String(format: "%.1f km", distance), 10, alignRight: true) + "  " + (station.address ?? ""))
                }
            }
        }
    }
}

/// Distance on the Earth's surface (haversine, mean radius 6,371 km).
func greatCircleKilometres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let radians = Double.pi / 180
    let dLat = (lat2 - lat1) * radians, dLon = (lon2 - lon1) * radians
    let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
    return 2 * 6371 * asin(min(1, sqrt(a)))
}
