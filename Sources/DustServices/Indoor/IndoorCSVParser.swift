import DustKit
import Foundation

/// A line of an indoor CSV that cannot be used: the line number and the reason (no more than 40
/// characters of the line's text).
public struct IndoorCSVError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var problem: String

    public var description: String { "line \(line): \(problem)" }
}

/// What an indoor CSV gave: its samples (the last of each minute), and what was counted, not stored.
public struct IndoorCSVRows: Sendable {
    public var series: IndoorSeries
    /// Values that were numbers but implausible (negative, above 1,000 µg/m³): stored as unknown.
    public var implausible: Int
    /// Rows dated before 2000 or more than a day ahead: skipped.
    public var datedOutsidePeriod: Int
    /// Rows whose minute a later row gave again, wherever in the file (the later one is kept): the
    /// rows read less the minutes stored.
    public var sameMinute: Int
    /// The hours the file alone gives an indoor value (at least 30 minutes covered).
    public var hoursCovered = 0
}

/// Reads `time,pm25[,pm10]` (docs/REFERENCE.md §21): any monitor's export. `time` is ISO 8601 with
/// an offset (`2026-11-20T10:04:00+09:00`, `…Z`) or a local `YYYY-MM-DD HH:mm[:ss]` (or with `T`)
/// in the configured zone; `pm25` and `pm10` µg/m³, either may be empty. A file with any bad line
/// yields nothing; every problem names its line. A line is at most `CSVLines.maxLineBytes`.
public struct IndoorCSVParser: Sendable {
    /// Larger files are refused before reading: a year of minute rows is 10–20 MB (`2026-11-20 10:04,12`
    /// to `2026-11-20T10:04:00+09:00,12.3,25.1`), 25 MB with long numbers. The file is read whole and
    /// its samples held, so this and `maxRows` bound an import's memory (600,000 long rows: 79 MiB in a debug build).
    public static let maxBytes = 32 * 1024 * 1024

    /// More lines than this are refused before any is read: a year of minutes is 525,600, and the
    /// samples of 600,000 take 17 MB. A monitor's export of several years is imported a year at a time.
    public static let maxRows = 600_000

    public let calendar: DayCalendar
    public let sensor: String

    public init(calendar: DayCalendar, sensor: String) {
        self.calendar = calendar
        self.sensor = sensor
    }

    /// Parses `bytes` (read once, in place: a year of minutes is never copied).
    public func parse(_ bytes: some ContiguousBytes, now: Date) throws(IndoorCSVError) -> IndoorCSVRows {
        var rows = IndoorCSVRows(series: IndoorSeries(sensor: sensor), implausible: 0, datedOutsidePeriod: 0, sameMinute: 0)
        var header: [String]?
        var read = 0
        // The instant of the row before: which of a repeated local time's two instants a row means.
        var previous: Date?
        let result: IndoorCSVError? = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> IndoorCSVError? in
            guard raw.count <= Self.maxBytes else {
                return IndoorCSVError(line: 1, problem: "the file is larger than \(Self.maxBytes / (1024 * 1024)) MiB")
            }
            // Counted before anything is held: a 32 MiB file of short rows is 1.7 million of them.
            var newlines = 0
            for byte in raw where byte == 0x0A { newlines += 1 }
            let rowsAtMost = raw.last == 0x0A ? newlines - 1 : newlines
            guard rowsAtMost <= Self.maxRows else {
                return IndoorCSVError(
                    line: Self.maxRows + 2,
                    problem:
                        "the file has \(rowsAtMost) lines after its header; at most \(Self.maxRows) rows (a year of minutes and two months) are imported at once: split the export by year"
                )
            }
            rows.series.reserveCapacity(rowsAtMost)
            var lines = CSVLines(raw, maxFields: 3)
            while let line = lines.next() {
                let lineNumber = lines.lineNumber
                guard case .fields(let fields, let count) = line else {
                    if case .problem(let problem) = line { return IndoorCSVError(line: lineNumber, problem: problem) }
                    continue
                }
                guard let columns = header else {
                    guard fields == ["time", "pm25"] || fields == ["time", "pm25", "pm10"] else {
                        return IndoorCSVError(line: lineNumber, problem: "the header must be time,pm25 or time,pm25,pm10")
                    }
                    header = fields
                    continue
                }
                guard count == columns.count else {
                    return IndoorCSVError(
                        line: lineNumber,
                        problem: "expected \(columns.count) fields (\(columns.joined(separator: ","))), found \(count)")
                }
                do throws(IndoorCSVError) {
                    let at = try instant(fields[0], after: previous, line: lineNumber)
                    previous = at
                    guard SupportedPeriod.isPlausible(at, now: now) else {
                        rows.datedOutsidePeriod += 1
                        continue
                    }
                    let pm25 = try value(fields[1], column: "pm25", line: lineNumber, rows: &rows)
                    let pm10 = columns.count == 3 ? try value(fields[2], column: "pm10", line: lineNumber, rows: &rows) : nil
                    rows.series.append(at: at, value: DustPair(fineDust: pm10, ultraFineDust: pm25))
                    read += 1
                } catch {
                    return error
                }
            }
            return nil
        }
        if let result { throw result }
        guard header != nil else { throw IndoorCSVError(line: 1, problem: "the file is empty; expected the header time,pm25[,pm10]") }
        // One sample a minute in time order, as the store keeps them: every row another replaced is counted.
        rows.series.keepLastOfEachMinute()
        rows.sameMinute = read - rows.series.count
        // Each row stands for the file's usual step: an export of hourly means covers its hours.
        rows.series.holdForUsualStep()
        rows.hoursCovered = rows.series.hoursCovered
        return rows
    }

    /// A value field: empty is unknown; a number out of the plausible range is unknown and counted.
    private func value(_ text: String, column: String, line: Int, rows: inout IndoorCSVRows) throws(IndoorCSVError) -> Double? {
        if text.isEmpty { return nil }
        guard let number = CSVLines.number(text) else {
            throw IndoorCSVError(
                line: line, problem: "\(column) must be a number of µg/m³ (or empty), not \(ActivityCSVParser.quoted(text))")
        }
        guard let plausible = IndoorSample.plausible(number) else {
            rows.implausible += 1
            return nil
        }
        return plausible
    }

    /// The instant a `time` field names; `previous` is the instant of the row before.
    private func instant(_ text: String, after previous: Date?, line: Int) throws(IndoorCSVError) -> Date {
        if let instant = HomeAssistantTime.parse(text) { return instant }
        if let local = localInstant(text, after: previous) { return local }
        throw IndoorCSVError(
            line: line,
            problem:
                "time must be ISO 8601 with an offset (2026-11-20T10:04:00+09:00) or a local YYYY-MM-DD HH:mm, not \(ActivityCSVParser.quoted(text))"
        )
    }

    /// `YYYY-MM-DD HH:mm[:ss]` (or with `T`) in the configured zone, its numbers ASCII digits in
    /// their fixed places (`+1:+5` is no time).
    ///
    /// A local time the zone's clocks showed twice (the autumn hour of daylight saving time) is the
    /// first occurrence, unless the row before is later than that: then it is the second, so a file
    /// that runs on through the repeated hour is read as it was written, never back over its first
    /// hour (docs/REFERENCE.md §21). A local time skipped in spring lands an hour later.
    private func localInstant(_ text: String, after previous: Date?) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16 || bytes.count == 19, bytes[10] == 0x20 || bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes.count == 16 || bytes[16] == 0x3A, let date = LocalDate(String(decoding: bytes[0..<10], as: UTF8.self)),
            let hour = ASCIIDigits.value(bytes[11..<13]), let minute = ASCIIDigits.value(bytes[14..<16]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var second = 0
        if bytes.count == 19 {
            // 60: a leap second where it ends a UTC day (`LeapSecond`, checked below), the next day's first instant.
            guard let parsed = ASCIIDigits.value(bytes[17..<19]), (0...60).contains(parsed) else { return nil }
            second = parsed
        }
        let local = TimeInterval(date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second)
        let zone = calendar.timeZone
        func offset(_ seconds: TimeInterval) -> TimeInterval {
            TimeInterval(zone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
        }
        // The instants whose own offset puts them at this wall time, from each offset the zone has within a day of it.
        let instants = Set([-86_400, 0, 86_400].map { local - offset(local + $0) }).filter { local - offset($0) == $0 }.sorted()
        let instant: Date
        switch instants.count {
        case 0:
            // Skipped: two steps through the zone's offset, an hour later.
            instant = Date(timeIntervalSince1970: local - offset(local - offset(local)))
        case 1:
            instant = Date(timeIntervalSince1970: instants[0])
        default:
            let (first, later) = (Date(timeIntervalSince1970: instants[0]), Date(timeIntervalSince1970: instants[instants.count - 1]))
            instant = previous.map { first < $0 } == true ? later : first
        }
        guard LeapSecond.admits(second: second, instant: Int64(instant.timeIntervalSince1970)) else { return nil }
        return instant
    }
}
