import DustKit
import Foundation

/// Today's and tomorrow's forecast for the user's region, and the weekly outlook: what `dustctl
/// forecast`, `today`, the web page and `/metrics` show.
public struct ForecastOutlook: Sendable, Hashable {
    public var region: ForecastRegion
    /// Today, in the configured `timezone`.
    public var today: LocalDate
    /// Per day (today, tomorrow) and pollutant, the newest stored grade; nil when none is stored.
    public var todayGrades: DustPair<RegionalForecast?>
    public var tomorrowGrades: DustPair<RegionalForecast?>
    /// The newest weekly outlook (docs/REFERENCE.md §17) while its last day is today or later; nil
    /// when none is stored. Its grades are every region's: `region` picks the user's.
    public var weekly: WeeklyOutlook?
    /// When `weekly` is nil but an outlook is stored, all of whose days have passed: the day it was
    /// published (dustd has not fetched a newer one since).
    public var expiredWeeklyPublishedOn: LocalDate?

    public init(
        region: ForecastRegion, today: LocalDate, todayGrades: DustPair<RegionalForecast?>, tomorrowGrades: DustPair<RegionalForecast?>,
        weekly: WeeklyOutlook? = nil, expiredWeeklyPublishedOn: LocalDate? = nil
    ) {
        self.region = region
        self.today = today
        self.todayGrades = todayGrades
        self.tomorrowGrades = tomorrowGrades
        self.weekly = weekly
        self.expiredWeeklyPublishedOn = weekly == nil ? expiredWeeklyPublishedOn : nil
    }

    /// No forecast at all is stored for these two days.
    public var isEmpty: Bool {
        [todayGrades, tomorrowGrades].allSatisfy { $0.fineDust == nil && $0.ultraFineDust == nil }
    }

    /// The newest issue among the grades shown.
    public var issuedAt: Date? {
        [todayGrades.fineDust, todayGrades.ultraFineDust, tomorrowGrades.fineDust, tomorrowGrades.ultraFineDust]
            .compactMap { $0?.issuedAt }.max()
    }
}

/// Why no outlook can be shown.
public enum ForecastReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The region is not known: the message says to set `forecast.region`.
    case region(ForecastRegionError)
    /// The database could not be read.
    case storage(StorageFailure)

    public var description: String {
        switch self {
        case .region(let error): error.description
        case .storage(let failure): failure.description
        }
    }
}

/// Reads the outlook for a station (or the configured region) from the store.
public struct ForecastReader: Sendable {
    private let store: any ForecastStore
    private let calendar: DayCalendar

    public init(store: any ForecastStore, timeZone: TimeZone) {
        self.store = store
        self.calendar = DayCalendar(timeZone: timeZone)
    }

    /// The user's region: `forecast.region` when set, else from the station's province and address.
    public func region(station: String?, override: ForecastRegion?) async throws(ForecastReadError) -> ForecastRegion {
        if let override { return override }
        var location: StationLocation?
        if let station {
            do { location = try await store.stationLocation(name: station) } catch { throw .storage(error) }
        }
        do {
            return try ForecastRegionTable.region(sido: location?.sido, address: location?.address)
        } catch {
            throw .region(error)
        }
    }

    /// Today's and tomorrow's grades at `now` for the region, and the weekly outlook.
    public func outlook(station: String?, override: ForecastRegion?, now: Date) async throws(ForecastReadError) -> ForecastOutlook {
        let region = try await region(station: station, override: override)
        let today = calendar.date(containing: now)
        do {
            func grades(_ date: LocalDate) async throws(StorageFailure) -> DustPair<RegionalForecast?> {
                DustPair(
                    fineDust: try await store.forecast(pollutant: .pm10, date: date, region: region),
                    ultraFineDust: try await store.forecast(pollutant: .pm25, date: date, region: region))
            }
            // An outlook whose days are all past says nothing any more.
            let newest = try await store.newestWeeklyOutlook()
            let weekly = newest.flatMap { outlook in (outlook.days.map(\.date).max() ?? outlook.publishedOn) >= today ? outlook : nil }
            return ForecastOutlook(
                region: region, today: today, todayGrades: try await grades(today), tomorrowGrades: try await grades(today.adding(days: 1)),
                weekly: weekly, expiredWeeklyPublishedOn: newest?.publishedOn)
        } catch {
            throw .storage(error)
        }
    }
}
