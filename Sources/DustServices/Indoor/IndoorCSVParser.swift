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
    /// Rows of the same minute as the row before them (the later one is kept).
    public var sameMinute: Int
}

/// Reads `time,pm25[,pm10]` (docs/REFERENCE.md §21): any monitor's export. `time` is ISO 8601 with
/// an offset (`2026-11-20T10:04:00+09:00`, `…Z`) or a local `YYYY-MM-DD HH:mm[:ss]` (or with `T`)
/// in the configured zone; `pm25` and `pm10` µg/m³, either may be empty. A file with any bad line
/// yields nothing; every problem names its line.
public struct IndoorCSVParser: Sendable {
    /// Larger files are refused before reading: a year of minute rows is about 25 MB.
    public static let maxBytes = 256 * 1024 * 1024

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
        var lineNumber = 0
        let result: IndoorCSVError? = bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> IndoorCSVError? in
            guard raw.count <= Self.maxBytes else {
                return IndoorCSVError(line: 1, problem: "the file is larger than \(Self.maxBytes / (1024 * 1024)) MiB")
            }
            var start = 0
            if raw.count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF { start = 3 }
            while start < raw.count {
                var end = start
                while end < raw.count, raw[end] != 0x0A { end += 1 }
                lineNumber += 1
                var lineEnd = end
                if lineEnd > start, raw[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<lineEnd])
                start = end + 1
                guard let line = String(validating: bytes, as: UTF8.self) else {
                    return IndoorCSVError(line: lineNumber, problem: "the line is not UTF-8 text")
                }
                if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                }
                guard let columns = header else {
                    guard fields == ["time", "pm25"] || fields == ["time", "pm25", "pm10"] else {
                        return IndoorCSVError(line: lineNumber, problem: "the header must be time,pm25 or time,pm25,pm10")
                    }
                    header = fields
                    continue
                }
                guard fields.count == columns.count else {
                    return IndoorCSVError(
                        line: lineNumber,
                        problem: "expected \(columns.count) fields (\(columns.joined(separator: ","))), found \(fields.count)")
                }
                do throws(IndoorCSVError) {
                    let at = try instant(fields[0], line: lineNumber)
                    guard SupportedPeriod.isPlausible(at, now: now) else {
                        rows.datedOutsidePeriod += 1
                        continue
                    }
                    let pm25 = try value(fields[1], column: "pm25", line: lineNumber, rows: &rows)
                    let pm10 = columns.count == 3 ? try value(fields[2], column: "pm10", line: lineNumber, rows: &rows) : nil
                    if rows.series.append(at: at, value: DustPair(fineDust: pm10, ultraFineDust: pm25)) { rows.sameMinute += 1 }
                } catch {
                    return error
                }
            }
            return nil
        }
        if let result { throw result }
        guard header != nil else { throw IndoorCSVError(line: 1, problem: "the file is empty; expected the header time,pm25[,pm10]") }
        return rows
    }

    /// A value field: empty is unknown; a number out of the plausible range is unknown and counted.
    private func value(_ text: String, column: String, line: Int, rows: inout IndoorCSVRows) throws(IndoorCSVError) -> Double? {
        if text.isEmpty { return nil }
        guard let number = DecimalText.parse(text) else {
            throw IndoorCSVError(
                line: line, problem: "\(column) must be a number of µg/m³ (or empty), not \(ActivityCSVParser.quoted(text))")
        }
        guard let plausible = IndoorSample.plausible(number) else {
            rows.implausible += 1
            return nil
        }
        return plausible
    }

    /// The instant a `time` field names.
    private func instant(_ text: String, line: Int) throws(IndoorCSVError) -> Date {
        if let instant = HomeAssistantTime.parse(text) { return instant }
        if let local = localInstant(text) { return local }
        throw IndoorCSVError(
            line: line,
            problem:
                "time must be ISO 8601 with an offset (2026-11-20T10:04:00+09:00) or a local YYYY-MM-DD HH:mm, not \(ActivityCSVParser.quoted(text))"
        )
    }

    /// `YYYY-MM-DD HH:mm[:ss]` (or with `T`) in the configured zone.
    private func localInstant(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16 || bytes.count == 19, bytes[10] == 0x20 || bytes[10] == 0x54, bytes[13] == 0x3A,
            bytes.count == 16 || bytes[16] == 0x3A, let date = LocalDate(String(decoding: bytes[0..<10], as: UTF8.self)),
            let hour = Int(String(decoding: bytes[11..<13], as: UTF8.self)),
            let minute = Int(String(decoding: bytes[14..<16], as: UTF8.self)),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var second = 0
        if bytes.count == 19 {
            guard let parsed = Int(String(decoding: bytes[17..<19], as: UTF8.self)), (0...59).contains(parsed) else { return nil }
            second = parsed
        }
        // Two steps through the zone's offset: right on every day, DST changes included (a skipped
        // local time lands an hour later, a repeated one on its first occurrence).
        let local = TimeInterval(date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second)
        let guess = Date(
            timeIntervalSince1970: local - TimeInterval(calendar.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local))))
        return Date(timeIntervalSince1970: local - TimeInterval(calendar.timeZone.secondsFromGMT(for: guess)))
    }
}
