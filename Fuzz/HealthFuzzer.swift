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
    case .read(let samples, let read):
        let summary = read.summary
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
        checkPhysiology(read.physiology)
        if !samples.isEmpty || !read.physiology.heartRate.isEmpty || !read.physiology.sleep.isEmpty {
            checkSniffed(input, as: .healthXML)
        }
    }
    return 0
}

/// What one read of an export gave besides the distances.
private struct HealthRead: Equatable {
    var summary: HealthExportSummary
    var physiology: HealthPhysiology
}

/// Heart rate, resting rates and sleep as the reader promises them (docs/REFERENCE.md §18): in
/// time order, within 25–250 beats/min and the supported period; sleep intervals ending after they
/// start, apart from each other; no more kept than records read.
private func checkPhysiology(_ physiology: HealthPhysiology) {
    let rates = Array(physiology.heartRate)
    for (index, sample) in rates.enumerated() {
        require(HeartRateSample.plausibleBeatsPerMinute.contains(sample.beatsPerMinute), "\(sample)")
        require(SupportedPeriod.isPlausible(sample.at, now: fuzzNow), "dated outside the supported period: \(sample)")
        require(index == 0 || rates[index - 1].at <= sample.at, "heart rate out of order at \(index)")
    }
    for (index, sample) in physiology.restingHeartRates.enumerated() {
        require(HeartRateSample.plausibleBeatsPerMinute.contains(sample.beatsPerMinute), "\(sample)")
        require(SupportedPeriod.isPlausible(sample.at, now: fuzzNow), "dated outside the supported period: \(sample)")
        require(index == 0 || physiology.restingHeartRates[index - 1].at <= sample.at, "resting rates out of order at \(index)")
    }
    for (index, interval) in physiology.sleep.enumerated() {
        require(interval.end > interval.start, "sleep ending at or before its start: \(interval)")
        require(interval.end.timeIntervalSince(interval.start) <= SleepInterval.maxDuration, "sleep of more than 24 h: \(interval)")
        require(SupportedPeriod.isPlausible(interval.start, now: fuzzNow), "dated outside the supported period: \(interval)")
        require(index == 0 || physiology.sleep[index - 1].end < interval.start, "sleep intervals overlap or touch at \(index)")
    }
    require(rates.count + physiology.restingHeartRates.count <= physiology.heartRateRecords + physiology.restingHeartRateRecords)
    require(physiology.sleep.count <= physiology.asleepRecords, "\(physiology.sleep.count) intervals of \(physiology.asleepRecords)")
}

private func readHealthExport(_ input: [UInt8], pieceSize: Int, limits: ActivityReaderLimits) -> ReadOutcome<HealthRead> {
    var samples: [DistanceSample] = []
    var physiology = HealthPhysiology()
    do throws(ActivityFileError) {
        let summary = try HealthExportReader(limits: limits, now: fuzzNow).read(
            MemoryByteStream(input, chunkSize: pieceSize), physiology: &physiology
        ) {
            samples.append($0)
        }
        return .read(samples: samples, summary: HealthRead(summary: summary, physiology: physiology))
    } catch {
        return .failed(error)
    }
}
