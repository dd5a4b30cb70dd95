import Foundation

/// The period FineDust reads, stores and shows: the dates 2000-01-01 through 2099-12-31.
///
/// Every date or week a person can type (the web's paths, `dustctl`'s options) must lie in it,
/// so that no arithmetic on a neighbouring date (the pager's week before, a rolling week's first
/// day) can leave the proleptic calendar; and every instant read from the network or a file
/// (AirKorea items, Health records, GPX points, CSV rows) must lie between its start and a day
/// after now, else it is skipped and counted (docs/RELIABILITY.md, "Data that must not mislead").
public enum SupportedPeriod {
    /// The first supported date.
    public static let firstDate = LocalDate(year: 2000, month: 1, day: 1)
    /// The last supported date.
    public static let lastDate = LocalDate(year: 2099, month: 12, day: 31)

    /// The earliest instant stored: 2000-01-01 00:00 in the easternmost zone (UTC+14), so the
    /// first supported date is whole in every `timezone`.
    public static let earliestInstant = Date(timeIntervalSince1970: TimeInterval(firstDate.daysSinceEpoch * 86_400 - 14 * 3600))

    /// How far past now a timestamp may lie before it is taken for a wrong clock.
    public static let futureAllowance: TimeInterval = 86_400

    /// Whether `date` is a supported date.
    public static func contains(_ date: LocalDate) -> Bool { date >= firstDate && date <= lastDate }

    /// Whether the whole week, Monday to Sunday, is made of supported dates.
    public static func contains(_ week: ISOWeek) -> Bool {
        contains(week.monday) && contains(week.monday.adding(days: 6))
    }

    /// Whether an instant read from outside is plausible at `now`: not before `earliestInstant`,
    /// not more than `futureAllowance` after `now`, and finite.
    public static func isPlausible(_ instant: Date, now: Date) -> Bool {
        let seconds = instant.timeIntervalSince1970
        return seconds.isFinite && instant >= earliestInstant && seconds <= now.timeIntervalSince1970 + futureAllowance
    }
}
