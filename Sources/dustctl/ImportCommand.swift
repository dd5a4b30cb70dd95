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
            Every file is checked before anything is written: if one is not a usable AirKorea response,
            nothing is stored and dustctl exits 65. Each response is then stored in its own transaction;
            importing the same file twice changes nothing, and revised values replace older ones.
            Example:
              dustctl import Fixtures/real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml --station 강남대로
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
            let parser = AirKoreaResponseParser()
            var pages: [(file: String, page: MeasurementPage)] = []
            for file in files {
                let body = try readInputFile(file, limit: parser.limits.maxDocumentBytes)
                do throws(AirKoreaError) {
                    pages.append((file, try parser.parseMeasurements(body, requestedStation: options.station)))
                } catch {
                    throw CommandFailure(.dataError, "\(file): \(error.description)")
                }
            }
            let store = try SQLiteStore(path: settings.storagePath)
            let ingest = IngestService(parser: parser, store: store)
            for (file, page) in pages {
                let report = try ingest.store(page)
                let skipped = report.skippedItems > 0 ? ", \(report.skippedItems) items without a valid dataTime skipped" : ""
                print("\(file): \(report.readings) readings (\(report.stored.inserted) new, \(report.stored.updated) revised, \(report.stored.unchanged) unchanged\(skipped))")
            }
        }
    }
}
