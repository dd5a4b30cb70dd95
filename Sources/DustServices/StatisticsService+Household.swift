import DustKit

/// The household's weeks: each person's days read as `household` reads them, grouped as one
/// person's `rollingWeek`, `week` and `weeks` group theirs (docs/REFERENCE.md §18).
extension StatisticsService {
    /// Each person's rolling week ending on `end`, in the order of `people`.
    public func householdRollingWeek(_ people: [Person], endingOn end: LocalDate) async throws(StorageFailure) -> [WeekReport] {
        try await household(people, from: end.adding(days: -6), through: end).map { days in
            WeekReport(isoWeek: nil, days: days, totals: ExposureTotals(days.flatMap(\.hourly), gradedOn: end))
        }
    }

    /// Each person's ISO week, in the order of `people`.
    public func householdWeek(_ people: [Person], _ week: ISOWeek) async throws(StorageFailure) -> [WeekReport] {
        try await household(people, from: week.monday, through: week.monday.adding(days: 6)).map { days in
            WeekReport(isoWeek: week, days: days, totals: ExposureTotals(days.flatMap(\.hourly), gradedOn: days.last!.date))
        }
    }

    /// Each person's ISO weeks that overlap `first` … `last`, each whole, in the order of `people`.
    public func householdWeeks(
        _ people: [Person], from first: LocalDate, through last: LocalDate
    ) async throws(StorageFailure)
        -> [[WeekReport]]
    {
        let monday = ISOWeek(containing: first).monday
        let sunday = ISOWeek(containing: last).monday.adding(days: 6)
        return try await household(people, from: monday, through: sunday).map { days in
            stride(from: 0, to: days.count, by: 7).map { index in
                let weekDays = Array(days[index..<(index + 7)])
                return WeekReport(
                    isoWeek: ISOWeek(containing: weekDays[0].date), days: weekDays,
                    totals: ExposureTotals(weekDays.flatMap(\.hourly), gradedOn: weekDays.last!.date))
            }
        }
    }
}

extension StatisticsService {
    /// The household's statistics over the whole database, as each FineDust program builds them:
    /// every record read from `store`, and with `followingRadiusKilometres` (`station.mode: nation`)
    /// location following each person (their positions, the station list and the kept places, all
    /// in `store`; docs/REFERENCE.md §19). `forPerson` gives each person's.
    public init(
        store: any FineDustStore, clock: any WallClock, calendar: DayCalendar, intakeModel: any IntakeModel,
        stations: StationPreference, followingRadiusKilometres: Double?
    ) {
        self.init(
            readings: store, activity: store, clock: clock, calendar: calendar, intakeModel: intakeModel, stations: stations,
            physiology: store,
            location: followingRadiusKilometres.map {
                LocationInputs(positions: store, stationList: store, radiusKilometres: $0, places: store)
            }, indoor: store)
    }

    /// Keeps the weighed hours of `people` (the configured ones, never empty: without `people:`,
    /// `me`) from `first` through `last` (at most today) that the store keeps no place for
    /// (`keepPlaces(from:through:)`, docs/REFERENCE.md §19). Each person is kept on their own: a
    /// storage failure goes to `failed` with the person it met, and the others are still kept.
    /// Stops between people when the task is cancelled. Returns how many places were kept.
    @discardableResult
    public func keepPlaces(
        of people: [Person], from first: LocalDate, through last: LocalDate, failed: (Person, StorageFailure) -> Void
    ) async -> Int {
        var kept = 0
        for service in people.map(forPerson) where !Task.isCancelled {
            do {
                kept += try await service.keepPlaces(from: first, through: min(last, today))
            } catch {
                failed(service.person, error)
            }
        }
        return kept
    }
}
