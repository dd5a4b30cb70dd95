import AirKorea
import DustKit
import Foundation

/// AirKorea's list of monitoring stations: fetched page by page, or read from saved responses,
/// and stored with names, addresses and coordinates.
public struct StationListService: Sendable {
    private let store: any StationStore
    private let clock: any WallClock

    /// - Parameter clock: when stations are saved (the time each row records).
    public init(store: any StationStore, clock: any WallClock = SystemClock()) {
        self.store = store
        self.clock = clock
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
        // Pages that shift while they are read (a station added meanwhile) give a name twice: one station.
        var fetched = Fetched(stations: merged(stations))
        if case .capped(let claimed, _, let pages) = end { fetched.capped = (claimed, pages) }
        return fetched
    }

    /// What to tell the operator when fetching the station list failed. The station list is a
    /// separate data.go.kr service (측정소정보) with its own approval: a key approved for the
    /// measurements (대기오염정보) alone gets "access denied" here.
    public static func explain(_ error: FetchError) -> String {
        switch error {
        case .response(.service(.accessDenied, _, _), _), .response(.service(.noSuchService, _, _), _):
            "The service key is not approved for the station list: it is a separate service, 한국환경공단_에어코리아_측정소정보 "
                + "(MsrstnInfoInqireSvc). Apply for it on data.go.kr (마이페이지 → 활용신청) with the same key; approval can take 1–2 hours. "
                + "Until then, find a station name on airkorea.or.kr and set station.name, or try `dustctl stations nearest` on the demo database."
        default:
            error.description
        }
    }

    /// `stations` with each name once, at its first place: a name given again (saved pages that
    /// overlap, two files) is one station, each field the later one's where it gives one, as the
    /// store's own upsert keeps a field an answer does not give; a position is taken whole or not at all.
    public static func merged(_ stations: [Station]) -> [Station] {
        var result: [Station] = []
        var index: [String: Int] = [:]
        for station in stations {
            guard let at = index[station.name] else {
                index[station.name] = result.count
                result.append(station)
                continue
            }
            var kept = result[at]
            kept.address = station.address ?? kept.address
            kept.network = station.network ?? kept.network
            kept.code = station.code ?? kept.code
            if let latitude = station.latitude, let longitude = station.longitude {
                (kept.latitude, kept.longitude) = (latitude, longitude)
            }
            result[at] = kept
        }
        return result
    }

    /// Parses saved `getMsrstnList` responses; a file that is not one is named in the error.
    public static func parse(_ body: Data) throws(AirKoreaError) -> [Station] {
        try AirKoreaResponseParser().parseStations(body).stations
    }

    /// Stores stations in one transaction; returns how many are stored without a location: those
    /// that came with none, or half of one, or with a position that cannot be one
    /// (`Station.isPlausibleLocation`). They are stored by name and address, so that `station.name`
    /// still finds them and `stations nearest` never ranks them.
    @discardableResult
    public func save(_ stations: [Station]) async throws(StorageFailure) -> Int {
        var unlocated = 0
        let checked = stations.map { station in
            guard !station.hasPlausibleLocation else { return station }
            unlocated += 1
            var withoutLocation = station
            withoutLocation.latitude = nil
            withoutLocation.longitude = nil
            return withoutLocation
        }
        try await store.saveStations(checked, at: clock.now)
        return unlocated
    }

    /// What `stations import` and `stations sync` say after storing `count` stations, `unlocated` of them without a location.
    public static func storedSummary(count: Int, unlocated: Int) -> String {
        let stored = count == 1 ? "1 station stored" : "\(count) stations stored"
        guard unlocated > 0 else { return "\(stored)." }
        return "\(stored); \(unlocated) without a location (none given, or coordinates outside "
            + "latitude ±90° and longitude ±180°, or the 0°/0° placeholder)."
    }
}
