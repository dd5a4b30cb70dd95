import AirKorea
import DustKit
import DustStore
import Foundation

/// What ingesting one response did.
public struct IngestReport: Sendable, Hashable {
    /// Readings in the response.
    public var readings: Int
    /// Items dropped for a missing or impossible `dataTime`.
    public var skippedItems: Int
    /// Rows inserted, revised and already stored.
    public var stored: UpsertSummary
    public var paging: Paging
}

/// Why a response could not be ingested.
public enum IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not a usable AirKorea response; nothing was stored.
    case response(AirKoreaError)
    /// The database refused the batch; nothing of it was stored.
    case store(StoreError)

    public var description: String {
        switch self {
        case let .response(error): error.description
        case let .store(error): error.description
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

    /// Parses a body without storing anything.
    public func parse(_ body: Data, requestedStation: String?) throws(AirKoreaError) -> MeasurementPage {
        try parser.parseMeasurements(body, requestedStation: requestedStation)
    }

    /// Stores a parsed page in one transaction.
    public func store(_ page: MeasurementPage) throws(StoreError) -> IngestReport {
        let stored = try store.upsert(page.readings, fetchedAt: clock.now)
        return IngestReport(readings: page.readings.count, skippedItems: page.skippedItems, stored: stored, paging: page.paging)
    }

    /// Parses and stores a body; an unusable body stores nothing.
    public func ingest(_ body: Data, requestedStation: String?) throws(IngestError) -> IngestReport {
        let page: MeasurementPage
        do {
            page = try parse(body, requestedStation: requestedStation)
        } catch {
            throw .response(error)
        }
        do {
            return try store(page)
        } catch {
            throw .store(error)
        }
    }
}
