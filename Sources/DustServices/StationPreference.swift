import DustKit
import Foundation

/// The station whose readings drive intake, and the stations that fill its gaps (docs/REFERENCE.md §5).
public struct StationPreference: Sendable, Hashable {
    public var primary: String
    public var fallbacks: [String]

    /// A fallback named twice, or the primary named again, counts once, where it first stands.
    public init(primary: String, fallbacks: [String] = []) {
        self.primary = primary
        var seen: Set = [primary]
        self.fallbacks = fallbacks.filter { seen.insert($0).inserted }
    }

    /// Primary first, then the fallbacks in order, each once.
    public var all: [String] {
        var seen: Set<String> = []
        return ([primary] + fallbacks).filter { seen.insert($0).inserted }
    }
}
