import DustKit
import Foundation

/// The two timestamp shapes activity files use, parsed from bytes without a formatter.
enum ActivityTime {
    /// Apple Health's `2024-01-01 08:20:00 +0900` (the offset also accepted as `+09:00`).
    static func healthDate(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count == 25 || text.count == 26, text[10] == UInt8(ascii: " "), text[19] == UInt8(ascii: " "),
            let local = localSeconds(text, timeSeparator: UInt8(ascii: " ")),
            let offset = offsetSeconds(text[20...]), admitsLeapSecond(text, instant: local - offset)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(local - offset))
    }

    /// A `:60` only where it ends a UTC day (`LeapSecond`): the seconds field is at 17–18 in both shapes.
    private static func admitsLeapSecond(_ text: UnsafeBufferPointer<UInt8>, instant: Int64) -> Bool {
        LeapSecond.admits(second: number(text, 17..<19) ?? 0, instant: instant)
    }

    /// ISO 8601 as GPX writes it: `2024-01-01T08:20:00Z`, fractional seconds and an offset
    /// (`+09:00`, `+0900`) allowed; without a zone the time is UTC, as GPX defines it.
    static func iso8601(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        guard text.count >= 19, let local = localSeconds(text, timeSeparator: UInt8(ascii: "T")) else { return nil }
        var index = 19
        var fraction = 0.0
        if index < text.count, text[index] == UInt8(ascii: ".") || text[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let digitsStart = index
            while index < text.count, let digit = digit(text[index]) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > digitsStart else { return nil }
        }
        let offset: Int64
        if index == text.count {
            offset = 0
        } else if index + 1 == text.count, text[index] == UInt8(ascii: "Z") || text[index] == UInt8(ascii: "z") {
            offset = 0
        } else if let zone = offsetSeconds(text[index...]) {
            offset = zone
        } else {
            return nil
        }
        guard admitsLeapSecond(text, instant: local - offset) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(local - offset) + fraction)
    }

    /// Seconds since the epoch of `YYYY-MM-DD?hh:mm:ss` read as if it were UTC.
    private static func localSeconds(_ text: UnsafeBufferPointer<UInt8>, timeSeparator: UInt8) -> Int64? {
        let separator = text[10]
        guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"),
            separator == timeSeparator || (timeSeparator == UInt8(ascii: "T") && separator == UInt8(ascii: "t")),
            text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
            let year = number(text, 0..<4), let month = number(text, 5..<7), let day = number(text, 8..<10),
            let hour = number(text, 11..<13), let minute = number(text, 14..<16), let second = number(text, 17..<19),
            (1...12).contains(month), (1...LocalDate.daysInMonth(year: year, month: month)).contains(day),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        return Int64(LocalDate.daysSinceEpoch(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `+0900`, `+09:00`, `-0500` as seconds east of UTC.
    private static func offsetSeconds(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        let bytes = Array(text)
        guard bytes.count == 5 || bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") else { return nil }
        if bytes.count == 6, bytes[3] != UInt8(ascii: ":") { return nil }
        let minutesStart = bytes.count == 6 ? 4 : 3
        guard let hours = bytes.withUnsafeBufferPointer({ number($0, 1..<3) }),
            let minutes = bytes.withUnsafeBufferPointer({ number($0, minutesStart..<(minutesStart + 2)) }),
            hours <= 18, minutes <= 59
        else { return nil }
        let seconds = Int64(hours * 3600 + minutes * 60)
        return bytes[0] == UInt8(ascii: "-") ? -seconds : seconds
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            guard let digit = digit(text[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
