import AirKorea
import ArgumentParser
import DustConfig
import DustKit
import DustServices
import DustStorage
import Foundation
import Logging
import Synchronization

/// A failure that ends a command: one sentence on stderr and an exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    /// The sentence on stderr, in the locale's language (docs/REFERENCE.md §6, "Text").
    let message: String
    /// The sentence in English: what JSON carries (`import --json`'s `error`), the same in every locale.
    let english: String

    init(_ status: ExitStatus, _ message: String) {
        self.init(status, message: message, english: message)
    }

    /// `korean` under a Korean locale, `english` otherwise (`language`, the process's unless told).
    init(_ status: ExitStatus, korean: String, english: String, language: ReportLanguage = .process) {
        self.init(status, message: language.say(korean, english), english: english)
    }

    private init(_ status: ExitStatus, message: String, english: String) {
        self.status = status
        self.message = message
        self.english = english
    }

    var description: String { message }

    /// A storage failure in the locale's language where the storage layer gave its parts (`StorageText`:
    /// SQLite's), else as the storage layer wrote it (a PostgreSQL server's words).
    init(_ failure: StorageFailure, language: ReportLanguage = .process) {
        let korean = language == .korean ? StorageText.korean(failure) : nil
        self.init(ExitStatus(failure), message: korean ?? failure.description, english: failure.description)
    }

    init(_ error: IngestError) {
        switch error {
        case .response(let response): self.init(.dataError, response.description)
        case .store(let store): self.init(store)
        }
    }
}

/// The database the settings name — SQLite at `storage.path`, or PostgreSQL at `storage.url`
/// (docs/REFERENCE.md §20) with the password from the `postgres-password` credential or
/// `storage.passwordFile` — opened once for the command, read-only for `.read`: `body` runs with
/// it (on PostgreSQL, its pool of connections runs beside it until `body` returns). Every command
/// sees the store protocols only.
func withStore<T>(
    _ settings: FineDustSettings, for access: StorageAccess, _ body: (any FineDustStore) async throws -> T
) async throws -> T {
    try await withStore(settings.storage, for: access, body)
}

/// The database `backend` names (`dustctl demo`'s own file), as `withStore` opens the settings'.
func withStore<T>(
    _ backend: StorageBackend, for access: StorageAccess, _ body: (any FineDustStore) async throws -> T
) async throws -> T {
    try await withStoreOpenedOnFirstUse(backend, for: access) { store in try await body(try await store()) }
}

/// As `withStore`, but the database is opened only when `body` first calls `store`: a command
/// whose inputs are all missing or broken creates no database.
///
/// A storage failure that ends `body` (or the opening) is said in the locale's language with the
/// database's path (`CommandFailure(_:)`).
func withStoreOpenedOnFirstUse<T>(
    _ backend: StorageBackend, for access: StorageAccess, _ body: (_ store: () async throws -> any FineDustStore) async throws -> T
) async throws -> T {
    do {
        return try await withStoreOpenedOnFirstUse(opening: backend, for: access, body)
    } catch let failure as StorageFailure {
        throw CommandFailure(failure)
    }
}

private func withStoreOpenedOnFirstUse<T>(
    opening backend: StorageBackend, for access: StorageAccess, _ body: (_ store: () async throws -> any FineDustStore) async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        defer { group.cancelAll() }
        var opened: (any FineDustStore)?
        func store() async throws -> any FineDustStore {
            if let opened { return opened }
            if case .sqlite(let path) = backend { try FileTrust.checkDatabase(path, for: access) }
            let storage: OpenedStorage
            do {
                storage = try await backend.open(
                    access, environment: EnvironmentVariables.read(named: ["CREDENTIALS_DIRECTORY"]),
                    logger: Logger(label: "dustctl.storage", factory: { _ in SwiftLogNoOpLogHandler() }),
                    warning: { standardWarning("\($0).", "\($0).") },
                    // The command runs on its own main thread (`CommandRunLoop`), never on the task pool.
                    sqliteThreading: .callersThread)
            } catch {
                switch error {
                case .configuration(let error): throw CommandFailure(.configuration, error.description)
                case .storage(let failure): throw failure
                }
            }
            if let connections = storage.connections { group.addTask { try await connections.run() } }
            opened = storage.store
            return storage.store
        }
        return try await body(store)
    }
}

/// Weighs and keeps `people`'s hours from `first` through `last` (at most today) that a write left
/// without a kept place (docs/REFERENCE.md §19, "Kept places"), so the next report reads them
/// instead of weighing every position: what dustd's pass after each poll does, done at once by the
/// command that wrote. Only where location follows people (`station.mode: nation`). A failure loses
/// nothing (reports weigh those hours when read): a warning says so.
func keepPlaces(
    of people: [Person], from first: LocalDate, through last: LocalDate, store: any FineDustStore, settings: FineDustSettings
) async {
    guard let radius = settings.followingRadiusKilometres, let station = settings.station.name else { return }
    let household = StatisticsService(
        store: store, clock: SystemClock(), calendar: settings.calendar, intakeModel: settings.intakeModel,
        stations: StationPreference(primary: station, fallbacks: settings.station.fallbacks), followingRadiusKilometres: radius)
    await household.keepPlaces(of: people, from: first, through: last) { person, error in
        let name = TerminalSafeText.sanitized(person.name)
        standardWarning(
            "이번에 바뀐 \(name)의 시간들을 미리 계산해 두지 못했습니다 (\(error)). 보고서를 읽을 때 계산합니다.",
            "\(name)'s hours this changed were not weighed ahead (\(error)); reports weigh them when read.")
    }
}

/// Runs a command body, turning every failure into one sentence on stderr and its exit status.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw report(error)
    }
}

/// Prints the failure's sentence on stderr and returns the exit status to throw.
private func report(_ error: any Error) -> ExitCode {
    let failure: CommandFailure
    switch error {
    case let exit as ExitCode: return exit
    case let command as CommandFailure: failure = command
    case let storage as StorageFailure: failure = CommandFailure(storage)
    case let output as OutputError:
        // The reader of a pipe went away (`dustctl week | head -1`): it has what it wanted.
        guard let command = CommandFailure(output) else { return .success }
        failure = command
    default: failure = CommandFailure(.ioError, String(describing: error))
    }
    standardError(failure.message)
    return ExitCode(failure.status.rawValue)
}

/// Why dustctl's output could not be written.
enum OutputError: Error {
    /// The read end of the pipe is closed (EPIPE): the reader has stopped listening.
    case closedPipe
    /// write(2) failed with this errno, e.g. ENOSPC on a full disk.
    case failed(errno: Int32)
    /// The text would show the service key (`TerminalDoor`): nothing of it was written.
    case withheld
}

/// dustctl's terminal as a door out (docs/ARCHITECTURE.md, "The key never comes back"): where the
/// user running dustctl can read the AirKorea key (its variable, credential or key file), every text
/// written to stdout or stderr is checked whole for an echo of it, as dustd checks its log lines and
/// answers; one that echoes is withheld. Where the key cannot be read there is nothing to compare
/// with, and the texts dustctl prints come from the database, which the vocabularies bound. The one
/// process-wide value of dustctl, as stdout itself is: set once by `GlobalOptions.settings()`.
enum TerminalDoor {
    private static let detector = Mutex<any EchoDetector>(KeyEchoGuard.none)

    /// Watches for the key `settings` and the environment name, if this user can read it.
    static func watch(for settings: FineDustSettings) {
        // The two variables the loader reads, not a dictionary of the whole environment built for them.
        let environment = EnvironmentVariables.read(named: ServiceKeyLoader.environmentNames)
        guard let loaded = try? ServiceKeyLoader(environment: environment).load(settings: settings) else { return }
        detector.withLock { $0 = loaded.key.echoGuard }
    }

    static func echoes(_ text: String) -> Bool {
        detector.withLock { $0 }.echoes(text)
    }

    /// What stands in for a withheld text on stderr, in the locale's language.
    static let withheldMessage = ReportLanguage.process.say(
        "메시지 하나를 보이지 않았습니다: AirKorea 서비스 키를 되풀이하는 글이 들어 있었습니다",
        "a message was withheld: it held text that echoes the AirKorea service key")
}

extension CommandFailure {
    /// The failure a stdout write error ends dustctl with; nil for a closed pipe, which is a quiet end.
    init?(_ error: OutputError) {
        switch error {
        case .closedPipe: return nil
        case .failed(let code):
            let reason = systemErrorText(code)
            self.init(.ioError, korean: "출력을 쓸 수 없습니다: \(reason).", english: "Cannot write the output: \(reason).")
        case .withheld:
            self.init(
                .dataError,
                korean: "출력을 보이지 않았습니다: AirKorea 서비스 키를 되풀이하는 글(그 키를 되풀이한 서버에서 받아 저장된 글)이 들어 있었습니다.",
                english:
                    "The output was withheld: it held text that echoes the AirKorea service key (a stored text from a server that echoed it)."
            )
        }
    }
}

/// Writes text to stdout, unbuffered, made safe for a terminal (`TerminalOutput`). A closed pipe
/// throws `.closedPipe`, which `reportingFailures` turns into a quiet exit 0; any other error ends
/// dustctl with 74.
func standardOutput(_ text: String) throws(OutputError) {
    guard !TerminalDoor.echoes(text) else { throw .withheld }
    switch writeAll(TerminalOutput.safe(text).utf8, to: STDOUT_FILENO) {
    case nil: return
    case EPIPE: throw .closedPipe
    case let code?: throw .failed(errno: code)
    }
}

/// `standardOutput` with a line end: what `print` was.
func standardOutputLine(_ text: String) throws(OutputError) {
    try standardOutput(text + "\n")
}

/// One sentence on stderr, prefixed `dustctl: `, every control character in it replaced
/// (`TerminalSafeText`): messages name files, stations and what servers said. A failure to write it
/// is ignored: there is nowhere left to report it, and the exit status still tells.
func standardError(_ message: String) {
    let message = TerminalDoor.echoes(message) ? TerminalDoor.withheldMessage : message
    _ = writeAll(("dustctl: " + TerminalSafeText.sanitized(message) + "\n").utf8, to: STDERR_FILENO)
}

/// Text on its way to a terminal: the one place every line dustctl prints passes, so no file name,
/// station name, address or server message can retitle, clear or move about the terminal, however
/// it reached the text (docs/RELIABILITY.md, "Output is written the Unix way").
///
/// Line feeds stay, and so do exactly the colour and weight sequences `TextStyle` writes; every
/// other control character (and bidirectional override) is replaced as `TerminalSafeText` does.
/// Values are made safe where they are formatted too; this is the net under them.
enum TerminalOutput {
    /// The only escape sequences dustctl itself prints (`TextStyle.sequences`).
    static let styles: [[Unicode.Scalar]] = TextStyle.sequences.map { Array($0.unicodeScalars) }

    static func safe(_ text: String) -> String {
        guard TerminalSafeText.needsSanitizing(text) else { return text }
        let scalars = Array(text.unicodeScalars)
        // Built as bytes: appending to a String.UnicodeScalarView copied the whole result each time, so
        // 50,000 lines of `activity sources` took 12 s (quadratic).
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        var plain = String.UnicodeScalarView()
        func flush() {
            result.append(contentsOf: TerminalSafeText.sanitized(String(plain)).utf8)
            plain = String.UnicodeScalarView()
        }
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" {
                flush()
                result.append(UInt8(ascii: "\n"))
            } else if scalar == "\u{1B}", let style = styles.first(where: { scalars[index...].starts(with: $0) }) {
                flush()
                for part in style { result.append(contentsOf: String(part).utf8) }
                index += style.count
                continue
            } else {
                plain.append(scalar)
            }
            index += 1
        }
        flush()
        return String(decoding: result, as: UTF8.self)
    }
}

/// Reads an input file, refusing anything larger than `limit` before reading it.
func readInputFile(_ path: String, limit: Int) throws -> Data {
    var status = stat()
    guard stat(path, &status) == 0 else {
        throw CommandFailure(.noInput, "\(path): \(systemErrorText(errno)).")
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
        throw CommandFailure(.noInput, korean: "\(path)은(는) 일반 파일이 아닙니다.", english: "\(path) is not a regular file.")
    }
    let mebibytes = limit / (1024 * 1024)
    guard Int(status.st_size) <= limit else {
        throw CommandFailure(
            .dataError,
            korean: "\(path)은(는) \(mebibytes) MiB보다 커서, FineDust가 읽는 어떤 파일보다도 훨씬 큽니다. 읽지 않았습니다.",
            english: "\(path) is larger than \(mebibytes) MiB, far beyond anything FineDust reads; it was not read.")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw CommandFailure(.noInput, korean: "\(path)을(를) 읽을 수 없습니다.", english: "\(path) cannot be read.")
    }
    defer { try? handle.close() }
    // Read at most one byte past the limit, in case the file grew after stat.
    let data = try handle.read(upToCount: limit + 1) ?? Data()
    guard data.count <= limit else {
        throw CommandFailure(
            .dataError, korean: "\(path)은(는) \(mebibytes) MiB보다 큽니다. 읽지 않았습니다.",
            english: "\(path) is larger than \(mebibytes) MiB; it was not read.")
    }
    return data
}

/// What the system says an `errno` means (`strerror`), for a sentence naming what failed.
func systemErrorText(_ code: Int32) -> String { String(cString: strerror(code)) }
