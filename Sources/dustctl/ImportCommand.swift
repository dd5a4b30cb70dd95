import DustConfig
import AirKorea
import ArgumentParser
import DustServices
import DustStore
import Foundation

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store saved AirKorea XML responses, through the same pipeline as dustd.",
        discussion: """
            Each file stands alone and is stored in its own transaction: one file that
            is not a usable AirKorea response is named on stderr with its error and the
            others are still stored. A summary ends the run; dustctl exits 65 if any
            file failed (66 if every failure was a missing file). Importing the same
            file twice changes nothing, and revised values replace older ones. Example:
              dustctl import --station 강남대로 Fixtures/real/*-roadside-*.xml
            """
    )

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Saved AirKorea XML responses.", completion: .file())
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Give at least one response file to import.") }
    }

    func run() throws {
        try reportingFailures {
            let settings = try options.settings()
            // Opened with the first usable file, so a run whose files are all missing or broken
            // creates no database.
            var opened: IngestService?
            var failures: [ExitStatus] = []
            for file in files {
                let page: MeasurementPage
                do {
                    let body = try readInputFile(file, limit: ParserLimits().maxDocumentBytes)
                    do throws(AirKoreaError) {
                        page = try IngestService.parse(body, requestedStation: options.station)
                    } catch {
                        throw CommandFailure(.dataError, "\(file): \(error.description)")
                    }
                } catch {
                    let failure = error as? CommandFailure ?? CommandFailure(.ioError, "\(file) cannot be read: \(error.localizedDescription).")
                    standardError(failure.message)
                    failures.append(failure.status)
                    continue
                }
                // A storage failure is not the file's fault and would fail every later file too:
                // it ends the import (the files stored so far stay stored).
                let ingest = try opened ?? IngestService(store: try SQLiteStore(path: settings.storagePath))
                opened = ingest
                let report = try ingest.store(page)
                let skipped = report.skippedSummary
                try standardOutputLine("\(file): \(report.readings) readings (\(report.stored.inserted) new, \(report.stored.updated) revised, \(report.stored.unchanged) unchanged\(skipped))")
            }
            let summary = "Imported \(files.count - failures.count) of \(files.count) files"
            guard failures.isEmpty else {
                let status: ExitStatus = failures.allSatisfy { $0 == .noInput } ? .noInput : .dataError
                throw CommandFailure(status, summary + "; \(failures.count) failed.")
            }
            try standardOutputLine(summary + ".")
        }
    }
}
