import DustServices
import Foundation

/// The instant of an ISO 8601 time with its offset (`2026-11-20T23:00:00+09:00`), computed without
/// FineDust's code, for expectations.
public func instant(_ iso8601: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: iso8601) else { fatalError("bad test time \(iso8601)") }
    return date
}

/// The instant of a KST wall time (`2026-11-22T17:40:00`).
public func instant(kst wallTime: String) -> Date { instant(wallTime + "+09:00") }

/// One "now" for a test and for everything it asks: the data it stores as of today, the web's clock and
/// every `dustctl` it runs (through `FINEDUST_NOW`). A test that read the system clock in each of
/// those places failed when the day changed in Korea (15:00 UTC) between two of them.
public struct PinnedNow: Sendable {
    /// Whole seconds, so `FINEDUST_NOW` carries it exactly.
    public let date: Date

    public init(_ date: Date = Date()) {
        self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    /// `FINEDUST_NOW` for a `dustctl` run: `2026-12-03T14:59:59Z`.
    public var environment: [String: String] {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return ["FINEDUST_NOW": formatter.string(from: date)]
    }

    /// The same instant for a service or the web.
    public var clock: FixedClock { FixedClock(date) }
}

/// The instant tests load settings at (`SettingsLoader.load(configurationFile:now:)`): the demo's
/// evening, 2026-11-20 22:00 in Korea. No configuration a test loads has a person born after it.
public let settingsLoadedAt = Date(timeIntervalSince1970: 1_795_179_600)
