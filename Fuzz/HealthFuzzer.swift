// libFuzzer entry point for the Apple Health export reader (scripts/fuzz.sh health), fed from
// memory; the zip path (ZIPFoundation) is left out.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHealthExport(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let limits = fuzzLimits
    let whole = readHealthExport(input, pieceSize: Int.max, limits: limits)
    checkSameOutcome(whole, readHealthExport(input, pieceSize: pieceSize(forInputOf: count), limits: limits))
    switch whole {
    case .failed(let error):
        checkError(error, input: input)
    case .read(let samples, let summary):
        require(summary.distanceRecords == samples.count, "\(summary.distanceRecords) records, \(samples.count) samples")
        require(summary.bytesRead <= Int64(count), "read \(summary.bytesRead) of \(count) bytes")
        require(summary.controlCharactersReplaced <= count, "\(summary)")
        require(summary.workoutRoutePaths.count <= limits.maxWorkoutRoutes, "\(summary.workoutRoutePaths.count) routes")
        // The named types, then `otherTypesKey` and `noTypeKey`.
        require(summary.skippedRecordsByType.count <= limits.maxSkippedTypesNamed + 2, "\(summary.skippedRecordsByType)")
        require(summary.skippedRecordsByType.values.allSatisfy { $0 > 0 }, "\(summary.skippedRecordsByType)")
        for sample in samples {
            require(sample.source.hasPrefix("health:"), "source \(sample.source.debugDescription)")
            checkSample(sample, limits: limits)
        }
        checkApportioned(samples, limits: limits)
        if !samples.isEmpty { checkSniffed(input, as: .healthXML) }
    }
    return 0
}

private func readHealthExport(_ input: [UInt8], pieceSize: Int, limits: ActivityReaderLimits) -> ReadOutcome<HealthExportSummary> {
    var samples: [DistanceSample] = []
    do throws(ActivityFileError) {
        let summary = try HealthExportReader(limits: limits, now: fuzzNow).read(MemoryByteStream(input, chunkSize: pieceSize)) {
            samples.append($0)
        }
        return .read(samples: samples, summary: summary)
    } catch {
        return .failed(error)
    }
}
