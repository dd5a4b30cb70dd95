/// A clock's second 60 is a leap second: the last second of a UTC day (23:59:60Z, 08:59:60 in Seoul), the only
/// place one is ever inserted. RFC 3339 allows it there, and every time reader of FineDust's files (GPX, Apple
/// Health, the indoor and activity CSVs) reads it as the next day's first instant, which is what the time
/// names once the second is added. A `:60` anywhere else names no time and is refused as any other.
public enum LeapSecond {
    /// Whether a time whose seconds field is `second`, read as the instant `secondsSinceEpoch` (the 60
    /// added), is a time: any second below 60, and 60 only where it ends a UTC day.
    public static func admits(second: Int, instant secondsSinceEpoch: Int64) -> Bool {
        second < 60 || secondsSinceEpoch % 86_400 == 0
    }
}
