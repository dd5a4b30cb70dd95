import AirKorea
import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct ImportCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "import",
            abstract: helpAbstract(
                "저장해 둔 AirKorea XML 응답을 dustd와 같은 파이프라인으로 저장합니다.",
                "Store saved AirKorea XML responses, through the same pipeline as dustd."),
            discussion: helpText(
                """
                파일마다 따로, 각자의 트랜잭션으로 저장합니다: 쓸 수 있는 AirKorea 응답이 아닌
                파일은 그 오류와 함께 stderr에 이름이 나오고, 다른 파일은 그래도 저장됩니다.
                끝에 요약이 나오며, 실패한 파일이 있으면 dustctl은 65로(실패한 파일이 모두
                없는 파일이면 66으로) 끝납니다. 같은 파일을 두 번 가져와도 바뀌는 것이 없고,
                고쳐진 값은 예전 값을 대신합니다. --json이면 stdout은 문서 하나입니다:
                {"files": [{"file", "ok", "readings", "new", "revised", "unchanged",
                "skippedItems", "refusedStationName", "datedBefore2000", "future",
                "repeated"} 또는 {"file", "ok": false, "error"}, …], "failed"}; 오류는
                stderr에도 나옵니다. 예:
                  dustctl import --station 강남대로 Fixtures/real/*-roadside-*.xml
                """,
                """
                Each file stands alone and is stored in its own transaction: one file that
                is not a usable AirKorea response is named on stderr with its error and the
                others are still stored. A summary ends the run; dustctl exits 65 if any
                file failed (66 if every failure was a missing file). Importing the same
                file twice changes nothing, and revised values replace older ones. With
                --json, stdout is one document: {"files": [{"file", "ok", "readings",
                "new", "revised", "unchanged", "skippedItems", "refusedStationName",
                "datedBefore2000", "future", "repeated"} or {"file", "ok": false,
                "error"}, …], "failed"}; the errors are on stderr too. Example:
                  dustctl import --station 강남대로 Fixtures/real/*-roadside-*.xml
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Argument(help: .localized("저장해 둔 AirKorea XML 응답.", "Saved AirKorea XML responses."), completion: .file())
    var files: [String]

    func validate() throws {
        guard !files.isEmpty else {
            throw ValidationError(korean: "가져올 응답 파일을 하나 이상 주세요.", english: "Give at least one response file to import.")
        }
        try options.refuseNow("import")
    }

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            let language = ReportLanguage.process
            try await withStoreOpenedOnFirstUse(settings.storage, for: .write) { openedStore in
                // Opened with the first usable file, so a run whose files are all missing or broken
                // creates no database.
                var opened: IngestService?
                var failures: [ExitStatus] = []
                var reports: [JSON] = []
                var stored: (first: Slot, last: Slot)?
                var written: (any FineDustStore)?
                var output = WorkOutput()
                for file in files {
                    // The name is the user's, but may hold anything a file name can: printed raw,
                    // `\e]2;…\a` retitled the terminal.
                    let name = TerminalSafeText.sanitized(file)
                    let page: MeasurementPage
                    do {
                        let body = try readInputFile(file, limit: ParserLimits().maxDocumentBytes)
                        do throws(AirKoreaError) {
                            page = try IngestService.parse(body, requestedStation: options.stationName)
                        } catch {
                            throw CommandFailure(.dataError, "\(name): \(error.description)")
                        }
                    } catch {
                        let failure =
                            error as? CommandFailure
                            ?? CommandFailure(
                                .ioError, korean: "\(name)을(를) 읽을 수 없습니다: \(error.localizedDescription).",
                                english: "\(name) cannot be read: \(error.localizedDescription).")
                        standardError(failure.message)
                        failures.append(failure.status)
                        if options.json { reports.append(ImportJSON.failed(file: file, failure)) }
                        continue
                    }
                    // A storage failure is not the file's fault and would fail every later file too:
                    // it ends the import (the files stored so far stay stored).
                    let ingest: IngestService
                    if let opened {
                        ingest = opened
                    } else {
                        let store = try await openedStore()
                        ingest = IngestService(store: store)
                        written = store
                    }
                    opened = ingest
                    let report = try await ingest.store(page)
                    for reading in page.readings {
                        stored = (min(stored?.first ?? reading.slot, reading.slot), max(stored?.last ?? reading.slot, reading.slot))
                    }
                    if options.json {
                        reports.append(ImportJSON.imported(file: file, report))
                        continue
                    }
                    output.line("\(name): " + Self.fileSummary(report, language))
                }
                if let stored, let store = written {
                    await keepPlaces(
                        of: settings.people, from: settings.calendar.date(containing: stored.first.start),
                        through: settings.calendar.date(containing: stored.last.start), store: store, settings: settings)
                }
                if options.json {
                    output.line(JSON.object([("files", .array(reports)), ("failed", .integer(failures.count))]).serialized)
                }
                let summary = language.say(
                    "파일 \(files.count)개 중 \(files.count - failures.count)개 가져옴",
                    "Imported \(files.count - failures.count) of \(files.count) files")
                guard failures.isEmpty else {
                    let status: ExitStatus = failures.allSatisfy { $0 == .noInput } ? .noInput : .dataError
                    // The files' failure is the status; the output's, said too.
                    output.sayFailure(language)
                    throw CommandFailure(status, summary + language.say("; \(failures.count)개 실패.", "; \(failures.count) failed."))
                }
                if !options.json { output.line(summary + ".") }
                try output.finish(language)
            }
        }
    }

    /// `24 readings (0 new, 0 revised, 24 unchanged)` and what was skipped, in `language`.
    static func fileSummary(_ report: IngestReport, _ language: ReportLanguage) -> String {
        let stored = report.stored
        guard language == .korean else {
            return
                "\(report.readings) readings (\(stored.inserted) new, \(stored.updated) revised, \(stored.unchanged) unchanged\(report.skippedSummary))"
        }
        // IngestReport.skippedSummary's counts, in its order.
        let skipped =
            [
                (report.skippedItems, "dataTime이 올바르지 않은"), (report.refusedNameItems, "측정소 이름이 한글 텍스트가 아닌"),
                (report.outOfPeriodItems, "\(SupportedPeriod.firstDate) 이전"), (report.futureItems, "지금보다 1시간 넘게 뒤 시각의"),
                (report.outsideWindowItems, "요청 기간보다 오래된"),
            ]
            .filter { $0.0 > 0 }.map { ", \($0.1) 항목 \($0.0)개 건너뜀" }.joined()
            + (report.duplicateItems > 0 ? ", 다른 항목과 측정소·시각이 같은 항목 \(report.duplicateItems)개 (마지막 것을 씀)" : "")
        return "측정값 \(report.readings)개 (새 값 \(stored.inserted), 고친 값 \(stored.updated), 그대로 \(stored.unchanged)\(skipped))"
    }
}

/// The document of `dustctl import --json`: one entry per file, in the order given, in the shape of
/// `dustctl activity import --json` (`files`, each with `file` and `ok`, and `failed`).
enum ImportJSON {
    static func imported(file: String, _ report: IngestReport) -> JSON {
        .object([
            ("file", .string(file)),
            ("ok", .bool(true)),
            ("readings", .integer(report.readings)),
            ("new", .integer(report.stored.inserted)),
            ("revised", .integer(report.stored.updated)),
            ("unchanged", .integer(report.stored.unchanged)),
            ("skippedItems", .integer(report.skippedItems)),
            ("refusedStationName", .integer(report.refusedNameItems)),
            ("datedBefore2000", .integer(report.outOfPeriodItems)),
            ("future", .integer(report.futureItems)),
            ("repeated", .integer(report.duplicateItems)),
        ])
    }

    static func failed(file: String, _ failure: CommandFailure) -> JSON {
        // English in every locale: JSON is the same in all (docs/REFERENCE.md §6, "Text").
        .object([("file", .string(file)), ("ok", .bool(false)), ("error", .string(failure.english))])
    }
}
