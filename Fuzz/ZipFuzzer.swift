// libFuzzer entry point for the zip path of a Health export (scripts/fuzz.sh zip): ZIPFoundation's
// directory, FineDust's own inflate (`ZipEntryData`), the entry hand-over to the readers. Each input
// is written to a file (the archive reads a path) and read as `dustctl activity import` reads an
// export.zip: the export found by its content, then it and every route read through.
import Foundation

/// One file per fuzzing process, rewritten for each input.
private let zipPath = FileManager.default.currentDirectoryPath + "/zip-fuzz-input-\(getpid()).zip"

/// The archive's bounds, lowered so a 64 KiB input can reach each: a 1 MiB entry, 20× its compressed
/// size (plus 64 KiB), 4 MiB inflated for the whole archive, 64 entries.
private let zipLimits = ActivityReaderLimits(
    maxPrologBytes: 16 << 10, maxBytesWithoutMarkup: 4 << 10, maxWorkoutRoutes: 16, maxSkippedTypesNamed: 8,
    maxZipEntryBytes: 1 << 20, maxCompressionRatio: 20, zipRatioAllowance: 64 << 10, maxZipEntries: 64,
    maxArchiveInflatedBytes: 4 << 20, maxArchiveCompressionRatio: 20)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZip(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Data(bytes: bytes, count: count)
    guard (try? input.write(to: URL(fileURLWithPath: zipPath))) != nil else { fatalError("cannot write \(zipPath)") }
    var samples: [DistanceSample] = []
    do throws(ActivityFileError) {
        let archive = try HealthExportArchive(path: zipPath, limits: zipLimits)
        require(archive.routes.count <= zipLimits.maxZipEntries, "\(archive.routes.count) routes")
        for item in [archive.export] + archive.routes {
            require(item.declaredSize <= HealthExportArchive.bound(compressed: item.compressedSize, limits: zipLimits), "\(item)")
        }
        let summary = try archive.read(archive.export) { source throws(ActivityFileError) in
            try HealthExportReader(limits: zipLimits, now: fuzzNow).read(source) { samples.append($0) }
        }
        require(summary.distanceRecords == samples.count, "\(summary.distanceRecords) records, \(samples.count) samples")
        require(summary.bytesRead <= zipLimits.maxZipEntryBytes, "inflated \(summary.bytesRead) bytes past the entry bound")
        for route in archive.routes {
            _ = try archive.read(route) { source throws(ActivityFileError) in
                try GPXReader(limits: zipLimits, now: fuzzNow).read(source, fileName: "route.gpx") { samples.append($0) }
            }
        }
        for sample in samples { checkSample(sample, limits: zipLimits) }
        checkApportioned(samples, limits: zipLimits)
    } catch {
        // What a zip's error names comes from the file: it must be safe to print.
        require(!TerminalSafeText.needsSanitizing(error.description), "\(error.description.debugDescription)")
    }
    return 0
}
