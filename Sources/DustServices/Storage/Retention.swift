import Foundation

/// How long a kind of row is kept, and the moment it is counted back from (docs/REFERENCE.md §11,
/// `retention.*`; §8, the requests' 90 days).
///
/// The count starts at `now`, the host's clock, or at the end of the newest hour of AirKorea's
/// stored, when that is earlier: a store never removes what the data says is recent. A Raspberry Pi
/// has no clock of its own and a bad time server can set it a year ahead; counted from that clock
/// alone, the daily pass once removed every position and indoor sample a household had. AirKorea's
/// hours are never stored ahead of the clock that received them (docs/REFERENCE.md §2, "Data that
/// must not mislead"), so the newest one bounds how late it can really be. While no hour is stored,
/// nothing is removed. A clock behind only removes less.
public struct Retention: Sendable, Hashable {
    /// How long rows are kept.
    public var kept: TimeInterval
    /// The host's clock when the removal runs.
    public var now: Date

    public init(keeping kept: TimeInterval, at now: Date) {
        self.kept = kept
        self.now = now
    }

    /// `days` whole days, as the `retention.*` settings give them.
    public init(days: Int, at now: Date) {
        self.init(keeping: Double(days) * 86_400, at: now)
    }

    /// What goes: rows before this moment, given the end of the newest stored hour (nil when none is
    /// stored, and then nothing goes).
    public func cutoff(newestHourEnd: Date?) -> Date? {
        guard let newestHourEnd else { return nil }
        return min(now, newestHourEnd).addingTimeInterval(-kept)
    }
}
