import AirKorea
import ArgumentParser
import DustServices
import DustStore
import Foundation

/// sysexits(3) codes used by dustctl (SPEC §6).
enum ExitStatus: Int32 {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case ioError = 74
    case configuration = 78
}

/// A failure that ends a command: one sentence on stderr and an exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }

    init(_ error: StoreError) {
        switch error {
        case .databaseMissing: self.init(.noInput, error.description)
        case .corrupt, .schemaTooNew: self.init(.dataError, error.description)
        case .cannotOpen, .diskFull, .busy, .io: self.init(.ioError, error.description)
        }
    }

    init(_ error: IngestError) {
        switch error {
        case let .response(response): self.init(.dataError, response.description)
        case let .store(store): self.init(store)
        }
    }
}

/// Runs a command body, turning every failure into one sentence on stderr and its exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch {
        throw report(error)
    }
}

/// `reportingFailures` for async commands.
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
    case let store as StoreError: failure = CommandFailure(store)
    default: failure = CommandFailure(.ioError, String(describing: error))
    }
    standardError(failure.message)
    return ExitCode(failure.status.rawValue)
}

func standardError(_ message: String) {
    FileHandle.standardError.write(Data(("dustctl: " + message + "\n").utf8))
}

/// Writes to stdout; a closed pipe (`dustctl … | head`) is not an error worth a crash.
func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Reads an input file, refusing anything larger than `limit` before reading it.
func readInputFile(_ path: String, limit: Int) throws -> Data {
    var status = stat()
    guard stat(path, &status) == 0 else {
        throw CommandFailure(.noInput, "\(path): \(String(cString: strerror(errno))).")
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
        throw CommandFailure(.noInput, "\(path) is not a regular file.")
    }
    guard Int(status.st_size) <= limit else {
        throw CommandFailure(.dataError, "\(path) is larger than \(limit / (1024 * 1024)) MiB, far beyond anything FineDust reads; it was not read.")
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw CommandFailure(.noInput, "\(path) cannot be read.")
    }
    defer { try? handle.close() }
    // Read at most one byte past the limit, in case the file grew after stat.
    let data = try handle.read(upToCount: limit + 1) ?? Data()
    guard data.count <= limit else {
        throw CommandFailure(.dataError, "\(path) is larger than \(limit / (1024 * 1024)) MiB; it was not read.")
    }
    return data
}
