import Foundation

/// One measured hour: the absolute interval `[start, start + 1 h)`.
///
/// AirKorea stamps a value with the time `T` at which its averaging hour **ends**;
/// the slot is the hour before it. Slots are whole UTC hours, stored as instants.
public struct Slot: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z at which the hour starts; a multiple of 3600.
    public let startEpochSeconds: Int64

    /// The slot starting at `startEpochSeconds`, which must be a whole UTC hour.
    public init(startEpochSeconds: Int64) {
        precondition(startEpochSeconds % 3600 == 0, "slots start on whole hours")
        self.startEpochSeconds = startEpochSeconds
    }

    /// The slot containing `instant` (held to the years 1 through 9999, as `wholeSeconds` says).
    public init(containing instant: Date) {
        let seconds = wholeSeconds(instant)
        self.init(startEpochSeconds: seconds - ((seconds % 3600) + 3600) % 3600)
    }

    /// The slot starting at `startEpochSeconds` when that is a whole UTC hour; nil for any other
    /// instant (a row edited by hand: a reader says so instead of stopping the process).
    public init?(validating startEpochSeconds: Int64) {
        guard startEpochSeconds % 3600 == 0 else { return nil }
        self.startEpochSeconds = startEpochSeconds
    }

    public var start: Date { Date(timeIntervalSince1970: TimeInterval(startEpochSeconds)) }
    public var end: Date { start.addingTimeInterval(3600) }

    /// The slot `hours` hours later (earlier when negative).
    public func advanced(by hours: Int) -> Slot {
        Slot(startEpochSeconds: startEpochSeconds + Int64(hours) * 3600)
    }

    public static func < (lhs: Slot, rhs: Slot) -> Bool { lhs.startEpochSeconds < rhs.startEpochSeconds }

    public var description: String { KoreaStandardTime.iso8601(start) }
}

/// AirKorea's clock: Korea Standard Time, UTC+9, no daylight saving time.
public enum KoreaStandardTime {
    /// UTC+9 in seconds.
    public static let secondsFromGMT = 9 * 3600

    /// The fixed-offset zone; a day in Korea never has other than 24 hours.
    public static let timeZone = TimeZone(secondsFromGMT: secondsFromGMT)!

    /// The slot of an AirKorea `dataTime` (`YYYY-MM-DD HH:mm`, hours `01`–`24`, old data `00`).
    ///
    /// The value is the average of the hour ending at `dataTime`, so `2026-11-20 24:00` is the
    /// slot 23:00–24:00 of 2026-11-20 and `2026-11-21 01:00` the slot 00:00–01:00 of 2026-11-21.
    /// Returns nil for anything that is not such a time (including minutes other than `00`).
    public static func slot(forDataTime dataTime: some StringProtocol) -> Slot? {
        var text = String(dataTime)
        return text.withUTF8 { slot(forDataTimeBytes: UnsafeRawBufferPointer($0)) }
    }

    /// `slot(forDataTime:)` on raw UTF-8 bytes, for the parser's hot path.
    public static func slot(forDataTimeBytes bytes: UnsafeRawBufferPointer) -> Slot? {
        guard bytes.count == 16, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"),
            let year = ASCIIDigits.value(bytes[0..<4]),
            let month = ASCIIDigits.value(bytes[5..<7]),
            let day = ASCIIDigits.value(bytes[8..<10]),
            let hour = ASCIIDigits.value(bytes[11..<13]),
            let minute = ASCIIDigits.value(bytes[14..<16]),
            LocalDate.isValid(year: year, month: month, day: day),
            (0...24).contains(hour), minute == 0
        else { return nil }
        let endOfHour = epochSeconds(hour: hour, of: LocalDate(year: year, month: month, day: day))
        return Slot(startEpochSeconds: endOfHour - 3600)
    }

    /// The `dataTime` AirKorea would stamp on `slot` (the end of the hour, `24:00` rather than `00:00`).
    public static func dataTime(of slot: Slot) -> String {
        let wallClock = LocalTime(localSeconds: slot.startEpochSeconds + Int64(secondsFromGMT))
        return "\(wallClock.date) \(ASCIIDigits.padded(wallClock.secondsOfDay / 3600 + 1, width: 2)):00"
    }

    /// The instant at which hour `hour` (0–24) of `date` begins in KST; hour 24 is the next day's 00:00,
    /// so `instant(hour: 24, of: 2026-11-20)` is `instant(hour: 0, of: 2026-11-21)`.
    public static func instant(hour: Int, of date: LocalDate) -> Date {
        Date(timeIntervalSince1970: TimeInterval(epochSeconds(hour: hour, of: date)))
    }

    /// The KST calendar date of an instant.
    public static func date(containing instant: Date) -> LocalDate {
        localTime(of: instant).date
    }

    /// 00:00 KST of the day after `instant`'s KST day: when AirKorea's daily quota resets.
    public static func nextMidnight(after instant: Date) -> Date {
        let today = localTime(of: instant).daysSinceEpoch
        return Date(timeIntervalSince1970: TimeInterval((today + 1) * LocalTime.secondsPerDay - Int64(secondsFromGMT)))
    }

    /// 00:00 KST of the day containing `instant`.
    public static func startOfDay(containing instant: Date) -> Date {
        Self.instant(hour: 0, of: date(containing: instant))
    }

    /// The KST wall-clock reading of `instant`.
    private static func localTime(of instant: Date) -> LocalTime {
        LocalTime(localSeconds: wholeSeconds(instant) + Int64(secondsFromGMT))
    }

    /// Seconds since 1970 of hour `hour` of `date` in KST.
    static func epochSeconds(hour: Int, of date: LocalDate) -> Int64 {
        date.localMidnightSeconds + Int64(hour) * 3600 - Int64(secondsFromGMT)
    }

    /// `instant` as ISO 8601 with the +09:00 offset.
    public static func iso8601(_ instant: Date) -> String {
        DayCalendar(timeZone: timeZone).iso8601(instant)
    }
}

/// Days as calendar dates in one configured time zone, never the host's `TZ`.
public struct DayCalendar: Sendable {
    /// The zone that defines "a day" (`timezone` in the configuration).
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The instant the day begins (its local midnight, or the first instant after it when a
    /// DST change skips midnight).
    ///
    /// With no change of offset within two days of midnight (every day in Korea, all but a few
    /// days a year anywhere) that is local midnight minus the offset. Otherwise Foundation's
    /// Gregorian calendar decides, created only then: creating one looks up the host's own zone
    /// (`/etc/localtime`, through ICU), which cost every dustctl command about 0.2 ms.
    public func start(of date: LocalDate) -> Date {
        let localMidnight = date.localMidnightSeconds
        let windowStart = Date(timeIntervalSince1970: TimeInterval(localMidnight - 2 * LocalTime.secondsPerDay))
        let windowEnd = Date(timeIntervalSince1970: TimeInterval(localMidnight + 2 * LocalTime.secondsPerDay))
        if timeZone.nextDaylightSavingTimeTransition(after: windowStart).map({ $0 >= windowEnd }) ?? true {
            return Date(timeIntervalSince1970: TimeInterval(localMidnight - Int64(timeZone.secondsFromGMT(for: windowStart))))
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day)) else {
            preconditionFailure("the Gregorian calendar has \(date)")
        }
        return start
    }

    /// The slots starting in the day: 24, or 23 / 25 on DST changes.
    public func slots(of date: LocalDate) -> [Slot] {
        slots(from: start(of: date), to: start(of: date.adding(days: 1)))
    }

    /// The slots starting in `[from, to)`.
    public func slots(from: Date, to: Date) -> [Slot] {
        let first = Slot(containing: from)
        var slot = first.start < from ? first.advanced(by: 1) : first
        var result: [Slot] = []
        while slot.start < to {
            result.append(slot)
            slot = slot.advanced(by: 1)
        }
        return result
    }

    /// The calendar date of an instant in this zone.
    public func date(containing instant: Date) -> LocalDate {
        localTime(of: instant).date
    }

    /// The local hour (0–23) at which a slot starts: what an activity schedule is keyed on.
    public func hour(of slot: Slot) -> Int {
        localTime(of: slot.start).secondsOfDay / 3600
    }

    /// The local hour (0–23) `instant` falls in: in a zone half or three quarters of an hour off UTC (Kolkata,
    /// Kathmandu, Adelaide), not the hour of the slot holding it, which begins on a whole hour of UTC.
    public func hour(at instant: Date) -> Int {
        localTime(of: instant).secondsOfDay / 3600
    }

    /// The start of the local hour after the one holding `instant`.
    public func nextHourStart(after instant: Date) -> Date {
        let local = localTime(of: instant).secondsOfDay
        return Date(timeIntervalSince1970: Double(wholeSeconds(instant) + Int64(3600 - local % 3600)))
    }

    /// `instant` as `YYYY-MM-DDTHH:mm:ss±hh:mm` in this zone.
    public func iso8601(_ instant: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: instant)
        let wallClock = localTime(of: instant)
        let (date, secondsOfDay) = (wallClock.date, wallClock.secondsOfDay)
        let sign = offset < 0 ? "-" : "+"
        let absoluteOffset = abs(offset)
        return "\(date)T\(ASCIIDigits.padded(secondsOfDay / 3600, width: 2)):"
            + "\(ASCIIDigits.padded(secondsOfDay % 3600 / 60, width: 2)):"
            + "\(ASCIIDigits.padded(secondsOfDay % 60, width: 2))"
            + "\(sign)\(ASCIIDigits.padded(absoluteOffset / 3600, width: 2)):\(ASCIIDigits.padded(absoluteOffset % 3600 / 60, width: 2))"
    }

    /// The wall-clock reading of `instant` in this zone.
    func localTime(of instant: Date) -> LocalTime {
        LocalTime(localSeconds: wholeSeconds(instant) + Int64(timeZone.secondsFromGMT(for: instant)))
    }
}

/// A wall-clock reading: local seconds (seconds since 1970-01-01 00:00 in some zone, the offset
/// already added) split into the calendar date and the second of that day.
struct LocalTime {
    static let secondsPerDay: Int64 = 86_400

    /// Days since 1970-01-01 of the local date (not clamped to the years `LocalDate` can name).
    let daysSinceEpoch: Int64
    /// 0 through 86,399.
    let secondsOfDay: Int

    init(localSeconds: Int64) {
        daysSinceEpoch = floorDivide(localSeconds, Self.secondsPerDay)
        secondsOfDay = Int(localSeconds - daysSinceEpoch * Self.secondsPerDay)
    }

    var date: LocalDate { LocalDate(daysSinceEpoch: Int(daysSinceEpoch)) }
}

extension LocalDate {
    /// Local seconds (see `LocalTime`) of the date's 00:00.
    var localMidnightSeconds: Int64 { Int64(daysSinceEpoch) * LocalTime.secondsPerDay }
}

/// Whole seconds since 1970 of an instant, held to the days `LocalDate` can name (a day of margin
/// either side): `Int64(_:)` of a year-10^12 or a NaN instant from a hostile file would trap. Callers
/// that store instants refuse such ones first (`SupportedPeriod.isPlausible`); NaN counts as the earliest.
func wholeSeconds(_ instant: Date) -> Int64 {
    let earliest = Double(Int64(LocalDate.earliestDaysSinceEpoch - 1) * LocalTime.secondsPerDay)
    let latest = Double(Int64(LocalDate.latestDaysSinceEpoch + 2) * LocalTime.secondsPerDay)
    let seconds = instant.timeIntervalSince1970
    guard seconds >= earliest else { return Int64(earliest) }
    return Int64(min(seconds, latest).rounded(.down))
}

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
}
