import DustKit
import Foundation

/// A day's exposure: its hours and totals.
public struct DayReport: Sendable, Hashable {
    public var date: LocalDate
    /// Whose day it is (docs/REFERENCE.md §18).
    public var person = Person.defaultName
    public var station: String
    /// Every slot of the day (24, or 23 / 25 on DST changes).
    public var slotCount: Int
    /// Slots that have ended by now (all of them for a past day).
    public var elapsedSlots: Int
    /// The slots for which any station had a stored reading, in order.
    public var hourly: [HourlyExposure]
    public var totals: ExposureTotals
    /// The slots of the day with walking stored, in order, each with its merged distance and the
    /// source that gave it (docs/REFERENCE.md §12), whether or not a station reported that hour.
    public var walking: [WalkingHour] = []
    /// The day's gases and index, from the primary station's hours (docs/REFERENCE.md §17).
    public var gasTotals = GasTotals([])
    /// The day's measured indoor/outdoor ratio and what the sensors changed (docs/REFERENCE.md §21);
    /// nil for a person without indoor sensors.
    public var indoor: IndoorDaySummary?

    /// The latest hour with at least one known value.
    public var latest: HourlyExposure? {
        hourly.last { $0.concentration.fineDust != nil || $0.concentration.ultraFineDust != nil }
    }

    /// The latest hour with a known gas value or index.
    public var latestGases: HourlyExposure? {
        hourly.last { $0.gases.hasKnownValue }
    }
}

/// One hour's walking: the largest distance of its sources and the source it came from.
public struct WalkingHour: Sendable, Hashable {
    public var slot: Slot
    public var metres: Double
    /// `health:<sourceName>`, `gpx:<file name>` or `csv`: text from an imported file.
    public var source: String

    public init(slot: Slot, metres: Double, source: String) {
        self.slot = slot
        self.metres = metres
        self.source = source
    }
}

/// A run of days (a rolling or ISO week) and its totals.
public struct WeekReport: Sendable, Hashable {
    /// `2026-W47` for an ISO week, nil for a rolling week.
    public var isoWeek: ISOWeek?
    public var days: [DayReport]
    public var totals: ExposureTotals

    public var start: LocalDate { days.first!.date }
    public var end: LocalDate { days.last!.date }
}
