// libFuzzer entry point for the GPX track reader (scripts/fuzz.sh gpx), fed from memory.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPX(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: bytes, count: count))
    let limits = fuzzLimits
    var positions: [TrackPoint] = []
    var positionsInPieces: [TrackPoint] = []
    let whole = readTrack(input, pieceSize: Int.max, limits: limits) { positions.append($0) }
    let pieces = readTrack(input, pieceSize: pieceSize(forInputOf: count), limits: limits) { positionsInPieces.append($0) }
    checkSameOutcome(whole, pieces)
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
            // One faster than the cap is a jump, never counted. Points a few metres apart may share a time (Apple
            // writes them to the second): such a step counts up to what the cap covers in a second, and standing
            // still at one instant is no step at all.
            if seconds == 0 {
                require(sample.metres > 0 && sample.metres <= GPXReader.maxSpeed, "\(sample.metres) m in no time counted: \(sample)")
            } else {
                require(seconds > 0, "a step back in time: \(sample)")
                require(sample.metres / seconds <= GPXReader.maxSpeed, "\(sample.metres / seconds) m/s counted: \(sample)")
            }
            require(sample.metres <= Double.pi * GreatCircle.earthRadiusMetres * (1 + 1e-12), "longer than half the Earth: \(sample)")
        }
        checkApportioned(samples, limits: limits)
        if !samples.isEmpty { checkSniffed(input, as: .gpx) }
        checkPositions(positions, inPieces: positionsInPieces, summary: summary)
    }
    return 0
}

/// The positions a read kept (docs/REFERENCE.md §19): the same read whole and in pieces, no more than
/// the timed points, each a real place at a supported time, and the minutes `TrackMinutes` keeps of
/// them whole minutes in strictly increasing order, one per minute, no more than the positions.
private func checkPositions(_ positions: [TrackPoint], inPieces: [TrackPoint], summary: GPXSummary) {
    require(positions == inPieces, "positions differ read whole (\(positions.count)) and in pieces (\(inPieces.count))")
    require(positions.count <= summary.points - summary.pointsWithoutTime, "\(positions.count) positions of \(summary)")
    for position in positions {
        let place = position.position
        require((-90...90).contains(place.latitude) && (-180...180).contains(place.longitude), "position \(position)")
        require(SupportedPeriod.isPlausible(position.at, now: fuzzNow), "a position dated outside the supported period: \(position)")
    }
    let minutes = TrackMinutes(positions)
    require(minutes.count <= positions.count, "\(minutes.count) minutes of \(positions.count) positions")
    for (index, minute) in minutes.enumerated() {
        let seconds = minute.at.timeIntervalSince1970
        require(seconds.truncatingRemainder(dividingBy: 60) == 0, "a minute at \(seconds) s")
        require(index == 0 || minutes[index - 1].at < minute.at, "minutes out of order at \(index)")
        require(abs(minute.position.latitude) <= 90 && abs(minute.position.longitude) <= 180, "minute \(minute)")
    }
    if !positions.isEmpty { require(!minutes.isEmpty, "\(positions.count) positions kept no minute") }
}

private func readTrack(
    _ input: [UInt8], pieceSize: Int, limits: ActivityReaderLimits, onPosition: (TrackPoint) -> Void
) -> ReadOutcome<GPXSummary> {
    var samples: [DistanceSample] = []
    do throws(ActivityFileError) {
        let summary = try GPXReader(limits: limits, now: fuzzNow).read(
            MemoryByteStream(input, chunkSize: pieceSize), fileName: "fuzz.gpx", onPosition: onPosition
        ) { samples.append($0) }
        return .read(samples: samples, summary: summary)
    } catch {
        return .failed(error)
    }
}
