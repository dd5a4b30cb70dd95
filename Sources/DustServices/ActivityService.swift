import DustKit
import DustStore
import Foundation

/// Imports activity files: parse everything first, then store in one transaction.
public struct ActivityService: Sendable {
    private let store: any ActivityStore
    private let parser: ActivityCSVParser
    private let clock: any WallClock

    public init(store: any ActivityStore, calendar: DayCalendar, clock: any WallClock = SystemClock()) {
        self.store = store
        self.parser = ActivityCSVParser(calendar: calendar)
        self.clock = clock
    }

    /// Replaces the walking distance of every slot in the file; returns the number of slots.
    public func importCSV(_ data: Data) throws -> Int {
        let distances = try parser.parse(data)
        try store.saveWalkedDistances(distances, importedAt: clock.now)
        return distances.count
    }
}
