import Foundation

/// Times as the tables hold them: whole seconds since 1970. The shared statements and each engine's
/// own long reads use these, so no engine rounds an instant its own way.
public enum SQLTime {
    /// A time as every `*_at` column holds it, rounded down.
    public static func seconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    public static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// A bound of `[from, to)` over `track_position.minute`: a minute starting at a fraction past a
    /// second is after it.
    public static func minuteBound(_ instant: Date) -> Int64 {
        Int64(instant.timeIntervalSince1970.rounded(.up))
    }
}
