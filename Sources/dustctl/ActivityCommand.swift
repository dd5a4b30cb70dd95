import ArgumentParser
import DustKit
import DustServices
import DustStore
import Foundation

struct ActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Import walking distances that raise the intake of the hours you were out.",
        subcommands: [ActivityImportCommand.self])
}

struct ActivityImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a CSV of walking distances per hour (header start,distance_m).",
        discussion: """
            start is an ISO 8601 time with an offset or a local YYYY-MM-DD HH:mm in the configured
            time zone; the row is the hour that starts then. Importing an hour again replaces it.
            A file with any bad row imports nothing and exits 65, naming the line. Example:
              dustctl activity import Fixtures/activity/jongno-week-walks.csv
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The CSV file.", completion: .file(extensions: ["csv"]))
    var file: String

    func run() throws {
        try reportingFailures {
            let settings = try options.settings()
            let data = try readInputFile(file, limit: ActivityCSVParser.maxBytes)
            let hours: Int
            do {
                hours = try ActivityService(store: try SQLiteStore(path: settings.storagePath), calendar: settings.calendar).importCSV(data)
            } catch let error as ActivityImportError {
                throw CommandFailure(.dataError, "\(file), \(error.description).")
            }
            try standardOutputLine("\(file): \(hours) hours of walking imported.")
        }
    }
}
