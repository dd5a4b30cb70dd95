import DustKit
import DustSQL
import DustServices
import DustStore
import Foundation
import Synchronization

extension SQLiteStore {
    /// A migrated SQLite database in memory (GRDB's `DatabaseQueue()`): the real engine, for a test
    /// that needs a store and no file. Migrating an empty database in memory fails only on a defect.
    public static func scratch(_ name: String = #fileID) -> SQLiteStore {
        do {
            return try SQLiteStore(inMemory: name)
        } catch {
            fatalError("an empty database in memory could not be migrated: \(error)")
        }
    }
}

extension SQLDatabase {
    /// Every attempt recorded, oldest first.
    public func attemptsOldestFirst() async throws(StorageFailure) -> [PollAttempt] {
        try await recentAttempts(limit: 100_000).reversed()
    }

    /// How often AirKorea revised the stored reading of `station` at `slot`; nil when none is stored.
    public func revision(station: String, slot: Slot) async throws(StorageFailure) -> Int? {
        try await read { session in
            try session.row(
                "SELECT revision FROM measurement WHERE station = ? AND slot_start = ?", station, slot.startEpochSeconds)?.int("revision")
        }
    }
}

/// A scratch SQLite store with two faults a test can set: every `saveReadings` failing (a full disk,
/// say, while other writes still succeed), and a wait before each status is stored (a remote
/// database's round trip, which a test holds back). Every other port is the real engine's.
public final class InterceptingStore: SQLDatabase, FineDustStore {
    private let base = SQLiteStore.scratch("intercepting")
    private let savingReadingsFails: StorageFailure?
    private let beforeSavingStatus: (@Sendable (DaemonStatus) async -> Void)?

    public init(
        savingReadingsFails: StorageFailure? = nil, beforeSavingStatus: (@Sendable (DaemonStatus) async -> Void)? = nil
    ) {
        self.savingReadingsFails = savingReadingsFails
        self.beforeSavingStatus = beforeSavingStatus
    }

    public var dialect: SQLDialect { base.dialect }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any SQLSession) throws -> T) async throws(StorageFailure) -> T {
        try await base.read(body)
    }

    public func writeTransaction<T: Sendable>(
        _ body: @escaping @Sendable (any SQLSession) throws -> T
    ) async throws(StorageFailure) -> T {
        try await base.writeTransaction(body)
    }

    public func eraseRemovedRows() async throws(StorageFailure) { try await base.eraseRemovedRows() }

    public func backUp(into path: String) async throws(StorageFailure) { try await base.backUp(into: path) }

    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        if let savingReadingsFails { throw savingReadingsFails }
        return try await base.saveReadings(readings, fetchedAt: fetchedAt)
    }

    public func saveStatus(_ status: DaemonStatus) async throws(StorageFailure) {
        await beforeSavingStatus?(status)
        try await base.saveStatus(status)
    }
}
