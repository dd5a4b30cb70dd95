import Foundation

/// The current time. Injected so tests can stand on a fixed instant.
public protocol WallClock: Sendable {
    var now: Date { get }
}

/// The system's real-time clock.
public struct SystemClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}

/// A clock fixed at one instant, for tests and replays.
public struct FixedClock: WallClock {
    public var now: Date
    public init(_ now: Date) { self.now = now }
}
