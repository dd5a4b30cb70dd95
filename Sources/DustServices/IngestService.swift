import AirKorea
import DustKit
import Foundation

/// What ingesting one response did.
public struct IngestReport: Sendable, Hashable {
    /// Readings in the response.
    public var readings: Int
    /// Items dropped for a missing or impossible `dataTime`.
    public var skippedItems: Int
    /// Items stamped more than an hour after now (a server with a wrong clock): not stored.
    public var futureItems: Int
    /// Items of an hour before 2000-01-01 00:00 KST (`SupportedPeriod`; `1999-12-31 24:00` is such an
    /// hour): no station measured them; not stored.
    public var outOfPeriodItems: Int
    /// Items older than the request's window (a MONTH request answered with years): not stored.
    public var outsideWindowItems: Int
    /// Items of another station than the one asked for, in the answer to a request of one station: not stored.
    public var otherStationItems = 0
    /// Items repeating the station and slot of another item in the same response: the last one counts.
    public var duplicateItems: Int
    /// Rows inserted, revised and already stored.
    public var stored: UpsertSummary
    public var paging: Paging
    /// Values outside their field's vocabulary (`ServerVocabulary`), stored as `(unknown value)`,
    /// and items whose station's name was outside it, dropped.
    public var unknownValues = 0
    /// Items dropped because their station's name was not text AirKorea writes.
    public var refusedNameItems = 0

    /// What `dustctl import` adds to a file's line: each kind of item not stored, with its count,
    /// then the items that repeated another's station and hour; empty when every item was stored once.
    public var skippedSummary: String {
        [
            (skippedItems, "without a valid dataTime"), (refusedNameItems, "with a station name that is not Korean text"),
            (outOfPeriodItems, "dated before \(SupportedPeriod.firstDate)"), (futureItems, "stamped more than an hour from now"),
            (outsideWindowItems, "older than the request's window"),
        ]
        .filter { $0.0 > 0 }.map { ", \($0.0) items \($0.1) skipped" }.joined()
            + (duplicateItems > 0 ? ", \(duplicateItems) items repeating another's station and hour (the last one kept)" : "")
    }
}

/// Why a response could not be ingested.
public enum IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not a usable AirKorea response; nothing was stored.
    case response(AirKoreaError)
    /// The database refused the batch; nothing of it was stored.
    case store(StorageFailure)

    public var description: String {
        switch self {
        case .response(let error): error.description
        case .store(let error): error.description
        }
    }
}

/// Turns AirKorea response bodies into stored readings: parse, then one transaction per response.
///
/// The same path serves `dustd` polls, `dustctl import` and the demo, so saved responses and live
/// ones are stored identically.
public struct IngestService: Sendable {
    private let parser: AirKoreaResponseParser
    private let store: any ReadingStore
    private let clock: any WallClock

    public init(parser: AirKoreaResponseParser = AirKoreaResponseParser(), store: any ReadingStore, clock: any WallClock = SystemClock()) {
        self.parser = parser
        self.store = store
        self.clock = clock
    }

    /// Parses a body without storing anything (and without a database: `dustctl import` checks a
    /// file before it opens one).
    public static func parse(
        _ body: Data, requestedStation: String?, parser: AirKoreaResponseParser = AirKoreaResponseParser()
    ) throws(AirKoreaError) -> MeasurementPage {
        try parser.parseMeasurements(body, requestedStation: requestedStation)
    }

    /// How far ahead of now an item's `dataTime` may be and still be stored: clocks drift, but no
    /// station measures an hour that has not happened.
    public static let futureTolerance: TimeInterval = 3600

    /// The start of the first hour stored: 2000-01-01 00:00 KST, the first hour of the first supported
    /// date in AirKorea's own time. `SupportedPeriod.earliestInstant` lies five hours earlier (midnight at
    /// UTC+14), so the hours stamped `1999-12-31 20:00` … `24:00` (and the old `2000-01-01 00:00`),
    /// whose date is 1999-12-31, passed it (docs/REFERENCE.md §2).
    public static let firstSlotStart = KoreaStandardTime.instant(hour: 0, of: SupportedPeriod.firstDate)

    /// Stores a parsed page in one transaction, with one reading per station and slot (the last, as
    /// AirKorea's latest word), and without the items no station can have measured for this answer:
    /// stamped more than an hour ahead, before 2000-01-01 (`SupportedPeriod.isPlausible`, the rule
    /// every source follows), or, for a live request, older than its window (`windowHours` back
    /// from now; a saved file of `dustctl import` has none), or of another station than `onlyStation`,
    /// the one a request of one station asked for (only the nation's request stores every station it
    /// names: an answer to 종로구's that names 190,000 others filled 21 MB a poll).
    public func store(
        _ page: MeasurementPage, windowHours: Int? = nil, onlyStation: String? = nil
    ) async throws(StorageFailure)
        -> IngestReport
    {
        let now = clock.now
        let latestAcceptable = now.addingTimeInterval(Self.futureTolerance)
        let earliestInWindow = windowHours.map { now.addingTimeInterval(-TimeInterval($0) * 3600) }
        var readings: [HourlyReading] = []
        readings.reserveCapacity(page.readings.count)
        var position: [SlotKey: Int] = [:]
        var future = 0
        var outOfPeriod = 0
        var outsideWindow = 0
        var otherStation = 0
        var duplicates = 0
        for reading in page.readings {
            if let onlyStation, reading.station != onlyStation {
                otherStation += 1
                continue
            }
            guard reading.slot.end <= latestAcceptable else {
                future += 1
                continue
            }
            guard SupportedPeriod.isPlausible(reading.slot.start, now: now), reading.slot.start >= Self.firstSlotStart else {
                outOfPeriod += 1
                continue
            }
            if let earliestInWindow, reading.slot.start < earliestInWindow {
                outsideWindow += 1
                continue
            }
            let key = SlotKey(station: reading.station, slot: reading.slot)
            if let index = position[key] {
                readings[index] = reading
                duplicates += 1
            } else {
                position[key] = readings.count
                readings.append(reading)
            }
        }
        let stored = try await store.saveReadings(readings, fetchedAt: now)
        return IngestReport(
            readings: page.readings.count, skippedItems: page.skippedItems, futureItems: future,
            outOfPeriodItems: outOfPeriod, outsideWindowItems: outsideWindow,
            otherStationItems: otherStation, duplicateItems: duplicates, stored: stored, paging: page.paging,
            unknownValues: page.unknownValues, refusedNameItems: page.refusedNameItems)
    }

    private struct SlotKey: Hashable {
        let station: String
        let slot: Slot
    }

    /// Parses and stores a body; an unusable body stores nothing.
    public func ingest(_ body: Data, requestedStation: String?) async throws(IngestError) -> IngestReport {
        let page: MeasurementPage
        do {
            page = try Self.parse(body, requestedStation: requestedStation, parser: parser)
        } catch {
            throw .response(error)
        }
        do {
            return try await store(page)
        } catch {
            throw .store(error)
        }
    }
}
