import AirKorea
import DustKit
import DustStore
import Foundation

/// AirKorea's list of monitoring stations: fetched page by page, or read from saved responses,
/// and stored with names, addresses and coordinates.
public struct StationListService: Sendable {
    private let store: SQLiteStore

    public init(store: SQLiteStore) {
        self.store = store
    }

    /// What a sync fetched.
    public struct Fetched: Sendable {
        public var stations: [Station]
        /// Set when `totalCount` claimed more rows than the list can hold and paging stopped early.
        public var capped: (claimedRows: Int, pagesRead: Int)?
    }

    /// Fetches every page of the station list.
    public static func fetch(from client: AirKoreaClient) async throws(FetchError) -> Fetched {
        var stations: [Station] = []
        let end = try await AirKoreaRequest.stationList().fetchPages { request throws(FetchError) in
            let page = try await client.stations(request)
            stations += page.stations
            return page.paging
        }
        var fetched = Fetched(stations: stations)
        if case let .capped(claimed, _, pages) = end { fetched.capped = (claimed, pages) }
        return fetched
    }

    /// Parses saved `getMsrstnList` responses; a file that is not one is named in the error.
    public static func parse(_ body: Data) throws(AirKoreaError) -> [Station] {
        try AirKoreaResponseParser().parseStations(body).stations
    }

    /// Stores stations in one transaction.
    public func save(_ stations: [Station]) throws(StorageFailure) {
        do { try store.upsertStations(stations) } catch { throw StorageFailure(error) }
    }
}
