import AirKorea
import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct StationsCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stations",
            abstract: helpAbstract(
                "AirKorea 측정소: 목록 가져오기, 보기, 가장 가까운 측정소 찾기.",
                "AirKorea monitoring stations: fetch the list, show it, find the nearest."),
            subcommands: [StationsSyncCommand.self, StationsImportCommand.self, StationsListCommand.self, StationsNearestCommand.self])
    }
}

struct StationsSyncCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sync",
            abstract: helpAbstract(
                "AirKorea 측정소 목록(이름, 주소, 좌표)을 데이터베이스로 가져옵니다.",
                "Fetch AirKorea's station list (names, addresses, coordinates) into the database."),
            discussion: helpText(
                """
                서비스 키가 필요합니다: DUSTD_API_SERVICE_KEY 또는 api.serviceKeyFile이
                가리키는 키 파일(명령줄 인자로는 받지 않습니다). 이 설정과 데이터베이스로
                `dustd --sync-stations`를 실행합니다(dustd는 dustctl과 함께 설치되는,
                네트워크와 통신하는 FineDust 프로그램입니다). 위치가 구성원을 따라가면
                (station.mode: nation), 이어서 최근 366일 가운데 옮겨진 측정소 때문에 바뀐
                시간을 dustd가 다음 수집 뒤에 하듯 다시 계산합니다: 한 해 분량의 트랙이면
                몇 초 걸립니다.
                예:
                  DUSTD_API_SERVICE_KEY_FILE=~/.airkorea-key dustctl stations sync
                """,
                """
                Needs the service key: DUSTD_API_SERVICE_KEY or a key file named by
                api.serviceKeyFile (never a command-line argument). Runs
                `dustd --sync-stations` (dustd, installed beside dustctl, is the FineDust
                program that talks to the network) with this configuration and database.
                Where location follows people (station.mode: nation), it then weighs
                again the hours of the last 366 days that a moved station changed, as
                dustd would after its next poll: with a year of tracks, some seconds.
                Example:
                  DUSTD_API_SERVICE_KEY_FILE=~/.airkorea-key dustctl stations sync
                """))
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            // dustd loads and checks the settings (and says what is wrong with them).
            try DaemonExecutable.run(["--sync-stations"], options: options, for: "dustctl stations sync")
        }
    }
}

/// dustd, found beside the running dustctl (an installation or a build directory), then on PATH.
enum DaemonExecutable {
    static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let beside = URL(fileURLWithPath: DemoReplay.runningExecutable).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("dustd").path
        let onPath = (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/dustd" }
        return ([beside] + onPath).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `dustd ARGUMENTS` in this process's place with the global options' configuration,
    /// database and station (`--db` as `DUSTD_STORAGE_PATH`, `--station` as `DUSTD_STATION_NAME`; the environment, service key included, as it is,
    /// never on a command line). Returns only by throwing.
    static func run(_ arguments: [String], options: GlobalOptions, for command: String) throws -> Never {
        guard let dustd = locate() else {
            let (run, beside) = ("dustd \(arguments.joined(separator: " "))", DemoReplay.runningExecutable)
            throw CommandFailure(
                .unavailable,
                korean: "\(command)은(는) \(run)을(를) 실행하는데, dustctl 옆(\(beside))에도 PATH에도 dustd가 없습니다. FineDust를 통째로 설치하세요.",
                english: "\(command) runs \(run), and no dustd was found beside dustctl (\(beside)) or on PATH; install FineDust whole.")
        }
        var argv = [dustd] + arguments
        if let config = options.config { argv += ["--config", config] }
        var environment = ProcessInfo.processInfo.environment
        if let db = options.db { environment["DUSTD_STORAGE_PATH"] = db }
        if let station = options.stationName { environment["DUSTD_STATION_NAME"] = station }
        let error = replaceProcess(with: argv, environment: environment)
        throw CommandFailure(.unavailable, korean: "\(dustd)을(를) 실행할 수 없습니다: \(error).", english: "Cannot run \(dustd): \(error).")
    }

    /// `execve`: dustd takes over this process (its output, exit status and signals are the
    /// command's). Returns only when the exec failed, with the reason.
    static func replaceProcess(with arguments: [String], environment: [String: String]) -> String {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(arguments[0], argv, envp)
        let reason = systemErrorText(errno)
        for item in (argv + envp) { free(item) }
        return reason
    }
}

struct StationsImportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "import",
            abstract: helpAbstract(
                "저장해 둔 getMsrstnList 응답(측정소 목록)을 네트워크 없이 저장합니다.",
                "Store saved getMsrstnList responses (the station list) without the network."),
            discussion: helpText("예:", "Example:") + "\n  dustctl stations import Fixtures/real/msrstn-list-*.xml --db ./dust.sqlite")
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: .localized("저장해 둔 측정소 목록 XML 응답.", "Saved station-list XML responses."), completion: .file())
    var files: [String]

    func run() async throws {
        try await reportingFailures {
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
            // A name in two files (saved pages that overlap) is one station, stored and counted once.
            stations = StationListService.merged(stations)
            let language = ReportLanguage.process
            try await withStore(settings, for: .write) { store in
                let unlocated = try await StationListService(store: store).save(stations)
                try standardOutputLine(Self.storedSummary(count: stations.count, unlocated: unlocated, language: language))
                // A station placed anew or moved forgets every kept place: the year dustd keeps is weighed again now.
                let days = SlotPlace.keptDays(through: settings.calendar.date(containing: SystemClock().now))
                await keepPlaces(of: settings.people, from: days.first, through: days.last, store: store, settings: settings)
            }
        }
    }

    /// `StationListService.storedSummary`'s line, in `language` (the same counts).
    static func storedSummary(count: Int, unlocated: Int, language: ReportLanguage) -> String {
        guard language == .korean else { return StationListService.storedSummary(count: count, unlocated: unlocated) }
        guard unlocated > 0 else { return "측정소 \(count)곳 저장됨." }
        return "측정소 \(count)곳 저장됨; \(unlocated)곳은 위치 없음 (주어지지 않았거나, 좌표가 위도 ±90°·경도 ±180° 밖이거나, "
            + "0°/0° 자리표시값)."
    }
}

struct StationsListCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "list",
            abstract: helpAbstract(
                "데이터베이스에 있는 측정소.",
                "The stations in the database."),
            discussion: helpText("예:", "Example:") + "\n  dustctl stations list --json")
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let stations = try await withStore(try options.settings(), for: .read) { try await $0.stations() }
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

struct StationsNearestCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "nearest",
            abstract: helpAbstract(
                "동기화한 측정소 목록에서 한 곳에 가장 가까운 측정소.",
                "The stations nearest to a place, from the synced station list."),
            discussion: helpText("예 (서울시청):", "Example (Seoul City Hall):") + "\n  dustctl stations nearest --lat 37.5663 --lon 126.9779")
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: .localized("위도 (북위, 도 단위).", "Latitude, degrees north."), transform: decimalDegrees) var lat: Double
    @Option(help: .localized("경도 (동경, 도 단위).", "Longitude, degrees east."), transform: decimalDegrees) var lon: Double
    @Option(help: .localized("보여 줄 측정소 수.", "How many stations to show.")) var count = 5

    func validate() throws {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw ValidationError(
                korean: "--lat은 ±90, --lon은 ±180 안이어야 합니다.", english: "--lat must be within ±90 and --lon within ±180.")
        }
        guard count > 0 else { throw ValidationError(korean: "--count는 1 이상이어야 합니다.", english: "--count must be at least 1.") }
    }

    func run() async throws {
        try await reportingFailures {
            let language = ReportLanguage.process
            let stations = try await withStore(try options.settings(), for: .read) { try await $0.stations() }
            let located = stations.compactMap { station -> (Station, Double)? in
                // A database written before positions were checked may still hold dmX 999.
                guard station.hasPlausibleLocation, let latitude = station.latitude, let longitude = station.longitude else { return nil }
                return (station, GreatCircle.kilometres(latitude1: lat, longitude1: lon, latitude2: latitude, longitude2: longitude))
            }.sorted { $0.1 < $1.1 }.prefix(count)
            guard !located.isEmpty else {
                throw CommandFailure(
                    .noInput,
                    language.say(
                        "저장된 측정소 좌표가 아직 없습니다. `dustctl stations sync`(서비스 키 필요)나 `dustctl stations import FILE`을 실행하세요.",
                        "No station coordinates are stored yet; run `dustctl stations sync` (needs the service key) or `dustctl stations import FILE`."
                    ))
            }
            if options.json {
                try standardOutputLine(
                    JSON.array(
                        located.map { station, distance in
                            guard case .object(var members) = ReportJSON.station(station) else { return .null }
                            members.append(("distanceKm", .measured(distance)))
                            return .object(members)
                        }
                    ).serialized)
            } else {
                for (station, distance) in located {
                    try standardOutputLine(
                        pad(station.name, 14) + pad(fixedDecimals(distance, 1) + " km", 10, alignRight: true) + "  "
                            + (station.address ?? ""))
                }
            }
        }
    }
}

/// Degrees as people write them (`37.5663`), not as `Double(String)` also reads them (`0x25`, `inf`).
private func decimalDegrees(_ text: String) throws -> Double {
    guard let value = DecimalText.parse(text) else {
        throw ValidationError(
            korean: "\(text)은(는) 37.5663 같은 도 단위의 수가 아닙니다.", english: "\(text) is not a number of degrees such as 37.5663.")
    }
    return value
}
