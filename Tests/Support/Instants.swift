import Foundation

/// The instant of an ISO 8601 time with its offset (`2026-11-20T23:00:00+09:00`), computed without
/// FineDust's code, for expectations.
public func instant(_ iso8601: String) -> Date {
    guard let date = ISO8601DateFormatter().date(from: iso8601) else { fatalError("bad test time \(iso8601)") }
    return date
}

/// The instant of a KST wall time (`2026-11-22T17:40:00`).
public func instant(kst wallTime: String) -> Date { instant(wallTime + "+09:00") }
