import DustKit
import Foundation

/// What `dustctl status` and `/api/v1/status` report, read from the store the same way for both
/// (docs/REFERENCE.md §15).
public struct StatusReading: Sendable {
    /// dustd's state as its record and the newest stored hour show it.
    public var health: DaemonHealth
    /// Stored station-hours, all stations.
    public var rows: Int
    /// Forecast requests since 00:00 KST (the daily quota of docs/REFERENCE.md §14).
    public var forecastCallsToday: Int

    /// Reads the status at `now`; `station` is the one whose newest hour says how old the data is.
    public static func read(
        from store: any ReadingStore & AttemptStore & DaemonStatusStore, station: String?, now: Date,
        processIsDustd: (Int32) -> Bool, thisHost: String = DaemonStatus.localHost
    ) async throws(StorageFailure) -> StatusReading {
        let health = try await DaemonHealth.read(
            from: store, station: station, now: now, processIsDustd: processIsDustd, thisHost: thisHost)
        let forecastCalls = try await store.forecastCallsToday(at: now).values.reduce(0, +)
        return StatusReading(health: health, rows: try await store.readingCount(station: nil), forecastCallsToday: forecastCalls)
    }
}

extension DaemonHealth {
    /// dustd's health at `now`: its stored record and the newest stored hour of `station`.
    public static func read(
        from store: any ReadingStore & DaemonStatusStore, station: String?, now: Date, processIsDustd: (Int32) -> Bool,
        thisHost: String = DaemonStatus.localHost
    ) async throws(StorageFailure) -> DaemonHealth {
        var newest: Slot?
        if let station {
            // The newest hour whatever the clock says, and the newest by the clock, in one read: one ending
            // after the clock by more than the clocks' margin says the clock is behind (`clockBehind`); one a
            // little ahead is not yet stored as far as the clock knows, and the newest by the clock is shown.
            let slots = try await store.newestSlots(station: station, endingBy: now)
            newest = slots.stored
            if let stored = slots.stored, stored.end > now,
                DaemonHealth.clockBehind(newestHourEndingIn: stored.end.timeIntervalSince(now)) == nil
            {
                newest = slots.endedByNow
            }
        }
        return DaemonHealth(
            status: try await store.loadStatus(), newestSlot: newest, now: now, processIsDustd: processIsDustd, thisHost: thisHost)
    }
}
