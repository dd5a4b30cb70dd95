// What the Health export and GPX fuzzers (scripts/fuzz.sh health, gpx) check on every input,
// whatever the reader made of it. A broken invariant traps, and libFuzzer keeps the input.
import Foundation

/// Traps with `message` when `condition` is false (`precondition` drops its message in an
/// optimised build; libFuzzer then saves the input).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "") {
    if !condition { fatalError(message()) }
}

/// The readers' limits, lowered so that a fuzz input (64 KiB at most) can pass each of them: the
/// prolog (Apple's subset is about 10 KB), a run without markup (a Health `Record` tag is under
/// 1 KB), workout routes and named record types. The defaults are 1 MiB, 1 MiB, 100,000 and 512.
let fuzzLimits = ActivityReaderLimits(
    maxPrologBytes: 16 << 10, maxBytesWithoutMarkup: 4 << 10,
    maxWorkoutRoutes: 16, maxSkippedTypesNamed: 8)

/// What one read of the fuzz input gave: the samples and summary, or the typed error.
enum ReadOutcome<Summary: Equatable>: Equatable {
    case read(samples: [DistanceSample], summary: Summary)
    case failed(ActivityFileError)
}

/// The piece size of the second read: real sources hand out 64 KiB pieces, so a smaller piece
/// that moves with the input's length puts piece boundaries everywhere in the document (inside
/// the prolog, a start tag, an attribute value, a run the pipe counts).
func pieceSize(forInputOf count: Int) -> Int {
    64 + (count &* 7919) % 4033
}

/// Reading in pieces never changes the outcome: the same samples and summary, or an error both
/// times. (Which error may differ: whole, the pipe refuses a too-long run before libxml2 sees
/// the piece; in small pieces, libxml2 may first find the document malformed.)
func checkSameOutcome<Summary: Equatable>(_ whole: ReadOutcome<Summary>, _ pieces: ReadOutcome<Summary>) {
    switch (whole, pieces) {
    case (.failed, .failed):
        break
    default:
        require(whole == pieces, "read whole: \(whole)\nread in pieces: \(pieces)")
    }
}

/// A sample as every reader promises it: finite metres, not negative, not ending before it
/// starts, no longer than the limit.
func checkSample(_ sample: DistanceSample, limits: ActivityReaderLimits) {
    require(sample.metres.isFinite && sample.metres >= 0, "metres \(sample.metres) in \(sample)")
    require(sample.end >= sample.start, "ends before it starts: \(sample)")
    require(sample.end.timeIntervalSince(sample.start) <= limits.maxSampleDuration, "longer than the limit: \(sample)")
    require(
        SupportedPeriod.isPlausible(sample.start, now: fuzzNow) && SupportedPeriod.isPlausible(sample.end, now: fuzzNow),
        "dated outside the supported period: \(sample)")
    require(
        DistanceSample.isPlausible(metres: sample.metres, seconds: sample.end.timeIntervalSince(sample.start)),
        "faster than \(DistanceSample.maxSpeed) m/s: \(sample)")
}

/// The readers' `now`, fixed so that reading whole and in pieces judge the future alike.
let fuzzNow = Date(timeIntervalSince1970: 1_795_219_200)

/// Apportions `samples` as `dustctl activity import` does, and checks every share and total: whole
/// UTC hours from the sample's start to its end, finite metres that are not negative and add up to
/// the sample's.
func checkApportioned(_ samples: [DistanceSample], limits: ActivityReaderLimits) {
    var apportioner = SlotApportioner(maxEntries: limits.maxSourceSlots)
    for sample in samples {
        let shares = SlotApportioner.shares(of: sample)
        require(!shares.isEmpty && shares.count <= Int(limits.maxSampleDuration / 3600) + 2, "\(shares.count) shares of \(sample)")
        require(shares[0].slot == Slot(containing: sample.start), "the first share is not the start's hour: \(sample)")
        require(
            shares.last!.slot.start <= sample.end && sample.end <= shares.last!.slot.end, "the last share is not the end's hour: \(sample)")
        var total = 0.0
        for (index, share) in shares.enumerated() {
            require(share.slot.startEpochSeconds % 3600 == 0, "slot \(share.slot.startEpochSeconds) is not a whole hour")
            require(index == 0 || share.slot == shares[index - 1].slot.advanced(by: 1), "shares skip an hour: \(sample)")
            require(share.metres.isFinite && share.metres >= 0, "a share of \(share.metres) m of \(sample)")
            total += share.metres
        }
        require(abs(total - sample.metres) <= 1e-9 * max(1, sample.metres), "shares add up to \(total), not \(sample.metres)")
        apportioner.add(sample)
    }
    // What one source can have walked (docs/REFERENCE.md §12): at most 30 m/s over the hour.
    for (source, slots) in apportioner.metresBySource {
        for (slot, metres) in slots {
            require(slot.startEpochSeconds % 3600 == 0, "slot \(slot.startEpochSeconds) is not a whole hour")
            require(metres.isFinite && metres >= 0, "\(metres) m stored for \(source) in \(slot)")
            require(metres <= DistanceSample.maxSpeed * 3600 * (1 + 1e-9), "\(metres) m in one hour for \(source) in \(slot)")
        }
    }
}

/// An error as `ActivityFileError` promises it: its description safe to print (text from the file
/// passes through `TerminalSafeText`), and any line it names inside the file.
func checkError(_ error: ActivityFileError, input: [UInt8]) {
    let text = error.description
    require(!TerminalSafeText.needsSanitizing(text), "the description holds a control character: \(text.debugDescription)")
    let line: Int?
    switch error {
    case .entityInDocumentType(let number), .externalIdentifier(let number), .unexpectedDeclaration(let number),
        .attributeTooLong(let number, _), .nestingTooDeep(let number, _), .malformedXML(let number, _),
        .invalidRecord(let number, _, _), .invalidTrackPoint(let number, _):
        line = number
    default:
        line = nil
    }
    if case .entityInDocumentType = error {
        // The guard refuses a DOCTYPE's entities before libxml2 reads a byte; the driver's check of
        // libxml2's nodes is a backstop, and must never be what refused.
        let guarded = Result { () throws(ActivityFileError) in try PrologGuard.scan(input) }
        require((try? guarded.get()) == nil, "libxml2 met a DOCTYPE the guard let through: \(guarded)")
    }
    if case .malformedXML(0, _) = error {
        // libxml2 knows no line for an error of its input layer (an encoding that does not decode): none is said.
        require(!text.hasPrefix("line"), "an unknown line named: \(text.debugDescription)")
    } else if let line {
        // libxml2 also breaks lines at a lone carriage return.
        let lines = input.lazy.filter { $0 == 0x0A || $0 == 0x0D }.count + 1
        require(line >= 1 && line <= lines, "line \(line) of a file of \(lines) lines: \(text.debugDescription)")
    }
}

/// A file a reader took distance from is one `dustctl activity import` recognises as that format.
func checkSniffed(_ input: [UInt8], as format: ActivityFileFormat) {
    let sniffed = Result { () throws(ActivityFileError) in try ActivityFileFormat.sniff(Array(input.prefix(ActivityFileFormat.sniffLength)))
    }
    require((try? sniffed.get()) == format, "read as \(format), sniffed as \(sniffed)")
}
