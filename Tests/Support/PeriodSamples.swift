/// Dates and weeks as a person or an attacker types them: the boundaries of the supported period
/// (2000-01-01 … 2099-12-31), the ends of what `YYYY` can write, impossible ones, and a seeded
/// random spread, for the tests that drive every parser and route with them.
public enum PeriodSamples {
    /// Boundary dates, each as typed.
    public static let boundaryDates = [
        "0000-01-01", "0000-12-31", "0001-01-01", "0001-01-07", "0001-12-31", "1899-12-31", "1900-01-01",
        "1969-12-31", "1970-01-01", "1999-12-25", "1999-12-27", "1999-12-31", "2000-01-01", "2000-01-02",
        "2000-01-03", "2000-01-06", "2000-01-07", "2000-02-29", "2026-11-20", "2099-12-27", "2099-12-28", "2099-12-31", "2100-01-01",
        "2100-02-29", "9998-12-31", "9999-01-01", "9999-12-31", "2026-02-30", "2026-13-01", "2026-00-10",
        "2026-01-00", "2026-01-32", "-001-01-01", "+2026-1-01", "2026-11-2", "20261120", "",
    ]

    /// Boundary ISO weeks, each as typed.
    public static let boundaryWeeks = [
        "0000-W01", "0000-W52", "0001-W01", "0001-W02", "0001-W52", "1999-W52", "2000-W00", "2000-W01",
        "2000-W02", "2000-W52", "2004-W53", "2026-W47", "2026-W53", "2099-W01", "2099-W52", "2099-W53",
        "2099-W54", "2100-W01", "9998-W52", "9999-W01", "9999-W52", "9999-W53", "2026-W00", "2026-W54",
        "2026-W99", "2026-w47", "2026W47", "2026-W4", "",
    ]

    /// `count` dates and weeks of random years 0000…9999, months 00…13, days 00…32 and weeks
    /// 00…54, the same for the same seed.
    public static func random(count: Int, seed: UInt64) -> (dates: [String], weeks: [String]) {
        var generator = SeededGenerator(seed: seed)
        var dates: [String] = []
        var weeks: [String] = []
        for index in 0..<count {
            // Half of the years near the supported period, so that real pages are drawn too.
            let year =
                index.isMultiple(of: 2) ? Int.random(in: 1990...2110, using: &generator) : Int.random(in: 0...9999, using: &generator)
            dates.append(
                "\(padded(year, 4))-\(padded(Int.random(in: 0...13, using: &generator), 2))-\(padded(Int.random(in: 0...32, using: &generator), 2))"
            )
            weeks.append("\(padded(year, 4))-W\(padded(Int.random(in: 0...54, using: &generator), 2))")
        }
        return (dates, weeks)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// SplitMix64: a small generator whose sequence a seed fixes, so a failing sample can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
