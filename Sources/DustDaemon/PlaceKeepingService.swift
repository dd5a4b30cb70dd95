import DustConfig
import DustKit
import DustServices
import Foundation
import Logging
import ServiceLifecycle

/// Keeps each followed person's weighed hours (docs/REFERENCE.md §19) after every poll: the hours of
/// the last `SlotPlace.daysKept` days that the store keeps no place for — the new hour, a revised one, all of
/// them after a station moved or a track was imported — are weighed once and kept, so `dustctl week`
/// and a year's export read places instead of weighing every minute of every track again. Only what
/// is missing is weighed: once caught up, a pass reads the year's places and readings and weighs one hour.
public struct PlaceKeepingService: Service, CustomStringConvertible {
    public var description: String { "PlaceKeepingService" }

    private let live: LiveConfiguration
    private let database: DaemonDatabase
    private let triggers: AsyncStream<Date>
    private let logger: Logger

    /// - Parameter triggers: one element after each poll (`PollService`'s `afterCycle`).
    public init(live: LiveConfiguration, database: DaemonDatabase, triggers: AsyncStream<Date>, logger: Logger) {
        self.live = live
        self.database = database
        self.triggers = triggers
        self.logger = logger
    }

    public func run() async throws {
        var lastPrune: Date?
        for await now in triggers.cancelOnGracefulShutdown() {
            await keep(at: now)
            // A pass a day, after the keep pass (docs/REFERENCE.md §11, `retention.*`).
            if lastPrune.map({ now.timeIntervalSince($0) >= 86_400 || now < $0 }) ?? true {
                await prune(at: now)
                lastPrune = now
            }
        }
    }

    /// Removes positions older than `retention.positionsDays` and the kept places weighed from them;
    /// what went is logged. Returns the removal (nil when the store could not be reached).
    @discardableResult
    func prune(at now: Date) async -> PersonRemoval? {
        let days = live.snapshot.settings.retention.positionsDays
        do {
            let removal = try await database.current().prunePositions(Retention(days: days, at: now))
            if removal.total > 0 {
                logger.info("Positions past retention removed", metadata: ["days": "\(days)", "removed": "\(removal.summary)"])
            }
            await pruneIndoor(at: now)
            return removal
        } catch {
            logger.error("Could not remove the positions older than \(days) days (retention.positionsDays): \(error)")
            return nil
        }
    }

    /// Removes indoor samples older than `retention.samplesDays` (docs/REFERENCE.md §21).
    private func pruneIndoor(at now: Date) async {
        let days = live.snapshot.settings.retention.samplesDays
        do {
            let removed = try await database.current().pruneIndoorSamples(Retention(days: days, at: now))
            if removed > 0 { logger.info("Indoor samples past retention removed", metadata: ["days": "\(days)", "removed": "\(removed)"]) }
        } catch {
            logger.error("Could not remove the indoor samples older than \(days) days (retention.samplesDays): \(error)")
        }
    }

    /// One pass for every person; returns how many places were kept. A storage failure is logged
    /// for the person it met, the others are still kept, and the next poll's pass tries again (what
    /// is kept is only ever a copy of what reads compute).
    @discardableResult
    func keep(at now: Date) async -> Int {
        let settings = live.snapshot.settings
        guard settings.followingRadiusKilometres != nil else { return 0 }
        let store: any FineDustStore
        do { store = try database.current() } catch {
            logger.error("Could not keep the weighed hours of the people followed: \(error)")
            return 0
        }
        let kept = await Self.keep(settings: settings, store: store, at: now) { person, error in
            logger.error("Could not keep the weighed hours of \(person.name): \(error)")
        }
        if kept > 0 { logger.info("Weighed hours kept", metadata: ["places": "\(kept)"]) }
        return kept
    }

    /// Keeps the hours of the last `SlotPlace.daysKept` days up to `now` that `store` keeps no place
    /// for, for every configured person (without `people:`, `me`); nothing unless location follows
    /// people (`station.mode: nation`). Each person's failure goes to `failed`, the others
    /// are still kept. Returns how many places were kept.
    static func keep(
        settings: FineDustSettings, store: any FineDustStore, at now: Date, failed: (Person, StorageFailure) -> Void
    ) async -> Int {
        guard let radius = settings.followingRadiusKilometres, let station = settings.station.name else { return 0 }
        let household = StatisticsService(
            store: store, clock: FixedClock(now), calendar: settings.calendar, intakeModel: settings.intakeModel,
            stations: StationPreference(primary: station, fallbacks: settings.station.fallbacks), followingRadiusKilometres: radius)
        let days = SlotPlace.keptDays(through: household.today)
        return await household.keepPlaces(of: settings.people, from: days.first, through: days.last, failed: failed)
    }
}
