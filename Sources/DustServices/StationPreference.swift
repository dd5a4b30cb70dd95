import DustKit
import Foundation

/// The station whose readings drive intake, and the stations that fill its gaps (docs/REFERENCE.md §5).
public struct StationPreference: Sendable, Hashable {
    public var primary: String
    public var fallbacks: [String]

    public init(primary: String, fallbacks: [String] = []) {
        self.primary = primary
        self.fallbacks = fallbacks.filter { $0 != primary }
    }

    /// Primary first, then the fallbacks in order, each once: a fallback named twice counts once, where it
    /// first stands.
    public var all: [String] {
        var seen: Set<String> = []
        return ([primary] + fallbacks).filter { seen.insert($0).inserted }
    }
}
