import DustKit
import Foundation

/// A line of an activity file that cannot be used, with the line number and the reason.
public struct ActivityCSVError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var problem: String

    public var description: String { "line \(line): \(problem)" }
}

/// What a CSV activity file gave: distances by slot, and the rows skipped for their date.
public struct ActivityCSVRows: Sendable, Hashable {
    public var distances: [Slot: Double]
    /// Rows dated outside the period every source is held to (`SupportedPeriod`): skipped, not errors.
    public var datedOutsidePeriod: Int
}

/// Reads walking distances from CSV (`start,distance_m`, docs/REFERENCE.md §4) into slots.
///
/// `start` is an ISO 8601 instant with an offset (`2026-11-20T08:00:00+09:00`, `…Z`) or a local
/// `YYYY-MM-DD HH:mm` in the configured time zone, naming the slot that starts then (at HH:30 local time
/// in a zone of +05:30). The instant is read by `HomeAssistantTime.parse`, as the indoor CSV reads it:
/// a real date, an offset within ±14:00, nothing after it. Every
/// problem names its line; a file with any bad line yields nothing; a line is at most
/// `CSVLines.maxLineBytes`. A well-written row dated
/// before 2000-01-01 or more than a day after `now` is skipped and counted, as Health records, GPX
/// points and AirKorea items are (docs/RELIABILITY.md): an instant with an offset by
/// `SupportedPeriod.isPlausible`, a local time also when its date is not a supported date.
public struct ActivityCSVParser: Sendable {
    /// Larger files are refused before reading: a year of hourly rows is about 300 KB.
    public static let maxBytes = 16 * 1024 * 1024

    public let calendar: DayCalendar

    public init(calendar: DayCalendar) {
        self.calendar = calendar
    }

    public func parse(_ data: Data, now: Date) throws(ActivityCSVError) -> ActivityCSVRows {
        guard data.count <= Self.maxBytes else {
            throw ActivityCSVError(line: 1, problem: "the file is larger than \(Self.maxBytes / (1024 * 1024)) MiB")
        }
        var distances: [Slot: Double] = [:]
        var datedOutsidePeriod = 0
        var firstLineOfSlot: [Slot: Int] = [:]
        var sawHeader = false
        // Line by line in place, each at most `CSVLines.maxLineBytes` and split no further than a field past the two.
        let problem: ActivityCSVError? = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> ActivityCSVError? in
            var lines = CSVLines(raw, maxFields: 2)
            while let line = lines.next() {
                let lineNumber = lines.lineNumber
                guard case .fields(let fields, let count) = line else {
                    if case .problem(let problem) = line { return ActivityCSVError(line: lineNumber, problem: problem) }
                    continue
                }
                if !sawHeader {
                    guard fields == ["start", "distance_m"] else {
                        return ActivityCSVError(line: lineNumber, problem: "the header must be exactly start,distance_m")
                    }
                    sawHeader = true
                    continue
                }
                guard count == 2 else {
                    return ActivityCSVError(line: lineNumber, problem: "expected 2 fields (start,distance_m), found \(count)")
                }
                do throws(ActivityCSVError) {
                    let named = try slot(fields[0], line: lineNumber, now: now)
                    guard let distance = CSVLines.number(fields[1]), distance >= 0, distance <= 100_000 else {
                        throw ActivityCSVError(
                            line: lineNumber,
                            problem: "distance_m must be a number of metres from 0 to 100000, not \(Self.quoted(fields[1]))")
                    }
                    // A row well written but dated outside the period is skipped, not an error.
                    guard let slot = named else {
                        datedOutsidePeriod += 1
                        continue
                    }
                    if let earlier = firstLineOfSlot[slot] {
                        throw ActivityCSVError(
                            line: lineNumber, problem: "the hour \(Self.quoted(fields[0])) was already given on line \(earlier)")
                    }
                    firstLineOfSlot[slot] = lineNumber
                    distances[slot] = distance
                } catch {
                    return error
                }
            }
            return nil
        }
        if let problem { throw problem }
        guard sawHeader else { throw ActivityCSVError(line: 1, problem: "the file is empty; expected the header start,distance_m") }
        return ActivityCSVRows(distances: distances, datedOutsidePeriod: datedOutsidePeriod)
    }

    /// A field as an error quotes it: control characters replaced, and at most 40 characters
    /// (`TerminalSafeText.prefix`), so a 16 MB field is not written back to the terminal (the rest is counted).
    static func quoted(_ field: some StringProtocol) -> String {
        let safe = TerminalSafeText.sanitized(String(field))
        let (shown, isWhole) = TerminalSafeText.prefix(safe, characters: 40)
        guard !isWhole else { return "\"\(safe)\"" }
        return "\"\(shown)…\" (\(safe.count - shown.count) more characters)"
    }

    /// The slot a row names; nil when its date lies outside the period FineDust keeps.
    private func slot(_ text: String, line: Int, now: Date) throws(ActivityCSVError) -> Slot? {
        // The indoor CSV's strict reader: no 30 February, no +99:00, nothing after the offset.
        let start = HomeAssistantTime.parse(text).map(LocalStart.instant) ?? localInstant(text)
        switch start {
        case nil:
            throw ActivityCSVError(
                line: line,
                problem:
                    "start must be an ISO 8601 time with an offset (2026-11-20T08:00:00+09:00) or a local YYYY-MM-DD HH:mm, not \(Self.quoted(text))"
            )
        case .unsupportedDate:
            return nil
        case .instant(let instant), .localTime(let instant):
            guard SupportedPeriod.isPlausible(instant, now: now) else { return nil }
            let slot = Slot(containing: instant)
            // A leap second (…:59:60) reads as the next hour's first instant, but it is the last second of the hour
            // before: no hour starts then.
            guard slot.start == instant, !HomeAssistantTime.isLeapSecond(text) else {
                var problem = "start \(Self.quoted(text)) is not on the hour; each row is the hour that starts then"
                if case .localTime = start {
                    // In a zone whose offset is not whole hours (Asia/Kolkata, +05:30) the hours begin at :30 local time.
                    let (before, after) = (localText(slot.start), localText(slot.advanced(by: 1).start))
                    problem += " (in \(calendar.timeZone.identifier) the hours around it begin at \(before) and \(after))"
                }
                throw ActivityCSVError(line: line, problem: problem)
            }
            return slot
        }
    }

    /// `instant` as the local form writes it: `YYYY-MM-DD HH:mm` in the configured zone.
    private func localText(_ instant: Date) -> String {
        let iso = calendar.iso8601(instant)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// A row's start: an instant with an offset, the instant of a local time, or a well-written local
    /// time on a date outside `SupportedPeriod`, whose instant is not worked out (year 1 in Seoul is
    /// local mean time, +8:27:52, on no whole hour).
    private enum LocalStart {
        case instant(Date)
        case localTime(Date)
        case unsupportedDate
    }

    /// `YYYY-MM-DD HH:mm` in the configured zone; nil for impossible or skipped (DST) times.
    ///
    /// The instant whose own offset puts it at that wall time; a repeated (autumn DST) time is its first
    /// occurrence. In a zone whose offset is not whole hours (Asia/Kolkata, +05:30) the slots begin at
    /// HH:30 local time, and that is the time a row names (`2026-11-20 08:30`).
    private func localInstant(_ text: String) -> LocalStart? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = LocalDate(parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        // Two ASCII digits each: `+8:00` is no time.
        guard clock.count == 2, clock[0].utf8.count == 2, clock[1].utf8.count == 2,
            let hour = ASCIIDigits.value(clock[0].utf8), let minute = ASCIIDigits.value(clock[1].utf8), (0...23).contains(hour),
            (0...59).contains(minute)
        else { return nil }
        guard SupportedPeriod.contains(date) else { return .unsupportedDate }
        let local = TimeInterval(date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60)
        let zone = calendar.timeZone
        func offset(_ seconds: TimeInterval) -> TimeInterval {
            TimeInterval(zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
        }
        // From each offset the zone has within a day of it, the instants that read this wall time.
        let instants = Set([-86_400, 0, 86_400].map { local - offset(local + $0) }).filter { local - offset($0) == $0 }
        return instants.min().map { .localTime(Date(timeIntervalSince1970: $0)) }
    }
}
