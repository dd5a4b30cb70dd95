// libFuzzer entry point for the GPX track reader (scripts/fuzz.sh gpx), fed from memory.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let limits = fuzzLimits
    let whole = readTrack(input, pieceSize: Int.max, limits: limits)
    checkSameOutcome(whole, readTrack(input, pieceSize: pieceSize(forInputOf: count), limits: limits))
    switch whole {
    case .failed(let error):
        checkError(error, input: input)
    case .read(let samples, let summary):
        require(summary.steps == samples.count, "\(summary.steps) steps, \(samples.count) samples")
        require(summary.pointsWithoutTime <= summary.points, "\(summary)")
        // A step or a jump joins two timed points of one segment.
        let timedPoints = summary.points - summary.pointsWithoutTime
        require(summary.steps + summary.jumpsDropped <= max(0, timedPoints - 1), "\(summary)")
        require(summary.metresDropped.isFinite && summary.metresDropped >= 0, "\(summary)")
        require(summary.bytesRead <= Int64(count), "read \(summary.bytesRead) of \(count) bytes")
        require(summary.controlCharactersReplaced <= count, "\(summary)")
        for sample in samples {
            require(sample.source == "gpx:fuzz.gpx", "source \(sample.source.debugDescription)")
            checkSample(sample, limits: limits)
            let seconds = sample.end.timeIntervalSince(sample.start)
            // A step takes time, and one faster than the cap is a jump, never counted.
            require(seconds > 0, "a step in no time: \(sample)")
            require(sample.metres / seconds <= GPXReader.maxSpeed, "\(sample.metres / seconds) m/s counted: \(sample)")
            require(sample.metres <= Double.pi * GreatCircle.earthRadiusMetres * (1 + 1e-12), "longer than half the Earth: \(sample)")
        }
        checkApportioned(samples, limits: limits)
        if !samples.isEmpty { checkSniffed(input, as: .gpx) }
    }
    return 0
}

private func readTrack(_ input: [UInt8], pieceSize: Int, limits: ActivityReaderLimits) -> ReadOutcome<GPXSummary> {
    var samples: [DistanceSample] = []
    do throws(ActivityFileError) {
        let summary = try GPXReader(limits: limits, now: fuzzNow).read(MemoryByteStream(input, chunkSize: pieceSize), fileName: "fuzz.gpx")
        { samples.append($0) }
        return .read(samples: samples, summary: summary)
    } catch {
        return .failed(error)
    }
}
