import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// An instant given in KST wall time, computed without FineDust's code.
/// Answers forecast requests with a fixture per pollutant, or an error.
struct FixtureForecastAPI: ForecastAPI {
    var failure: FetchError?

    func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage {
        if let failure { throw failure }
        guard case .forecast(_, let pollutant, _, _) = request else { throw .httpStatus(400) }
        let name = pollutant == .pm10 ? "synthesized/forecast-pm10-2026-11-22.xml" : "synthesized/forecast-pm25-2026-11-22.xml"
        do {
            return try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(name))
        } catch let error as AirKoreaError {
            throw .response(error, httpStatus: 200)
        } catch {
            throw .httpStatus(500)
        }
    }
}

@Suite("Forecast schedule and quota (ForecastPlanner, a fake clock)", .timeLimit(.minutes(10)))
struct ForecastPlannerTests {
    let planner = ForecastPlanner()

    /// Runs the planner from `start` to `end` on a fake clock; `fails` says whether a fetch at a
    /// time fails (and how). Returns the fetch times and the calls per KST day.
    func simulate(
        from start: Date, to end: Date, lastFetched initial: Date?,
        fails: (Date) -> RetryAdvice? = { _ in nil }
    ) -> (fetches: [Date], searchDates: [LocalDate], calls: [LocalDate: Int]) {
        var clock = FixedClock(start)
        var lastFetched = initial
        var calls: [LocalDate: Int] = [:]
        var failure: ForecastPlanner.Failure?
        var fetches: [Date] = []
        var searchDates: [LocalDate] = []
        var steps = 0
        while clock.now < end, steps < 1000 {
            steps += 1
            let day = KoreaStandardTime.date(containing: clock.now)
            switch planner.decide(now: clock.now, lastFetched: lastFetched, callsToday: calls[day, default: 0], failure: failure) {
            case .wait(let until):
                #expect(until > clock.now, "a wait must move time forward")
                clock.now = until
            case .fetch(let publication, let searchDate):
                fetches.append(clock.now)
                searchDates.append(searchDate)
                calls[day, default: 0] += ForecastPlanner.callsPerFetch
                if let advice = fails(clock.now) {
                    failure = ForecastPlanner.Failure(at: clock.now, attempts: (failure?.attempts ?? 0) + 1, advice: advice)
                } else {
                    failure = nil
                    lastFetched = publication
                }
                clock.now = clock.now.addingTimeInterval(1)
            }
        }
        return (fetches, searchDates, calls)
    }

    @Test("A whole day: fetches at 05:30, 11:30, 17:30 and 23:30 KST, 8 calls, searchDate the day")
    func wholeDay() async {
        let run = simulate(
            from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-23T00:00:00"),
            lastFetched: instant(kst: "2026-11-21T23:00:00"))
        #expect(
            run.fetches == [
                instant(kst: "2026-11-22T05:30:00"), instant(kst: "2026-11-22T11:30:00"), instant(kst: "2026-11-22T17:30:00"),
                instant(kst: "2026-11-22T23:30:00"),
            ])
        #expect(run.searchDates == Array(repeating: LocalDate(year: 2026, month: 11, day: 22), count: 4))
        #expect(run.calls == [LocalDate(year: 2026, month: 11, day: 22): 8])
    }

    @Test("Start at 14:00 with nothing stored: the 11시 issue now, then 17:30 and 23:30; 6 calls")
    func startMidDay() async {
        let run = simulate(from: instant(kst: "2026-11-22T14:00:00"), to: instant(kst: "2026-11-23T00:00:00"), lastFetched: nil)
        #expect(
            run.fetches == [instant(kst: "2026-11-22T14:00:00"), instant(kst: "2026-11-22T17:30:00"), instant(kst: "2026-11-22T23:30:00")])
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 22)] == 6)
    }

    @Test("Start at 01:40 with nothing stored: yesterday's 23시 issue at once (searchDate yesterday), then the 4 scheduled; 10 calls")
    func nightStartCatchesUp() async {
        #expect(
            planner.decide(now: instant(kst: "2026-11-22T01:40:00"), lastFetched: nil, callsToday: 0, failure: nil)
                == .fetch(publication: instant(kst: "2026-11-21T23:00:00"), searchDate: LocalDate(year: 2026, month: 11, day: 21)))
        let run = simulate(from: instant(kst: "2026-11-22T01:40:00"), to: instant(kst: "2026-11-23T00:00:00"), lastFetched: nil)
        #expect(
            run.fetches == [
                instant(kst: "2026-11-22T01:40:00"), instant(kst: "2026-11-22T05:30:00"), instant(kst: "2026-11-22T11:30:00"),
                instant(kst: "2026-11-22T17:30:00"), instant(kst: "2026-11-22T23:30:00"),
            ])
        #expect(run.searchDates.first == LocalDate(year: 2026, month: 11, day: 21))
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 22)] == 10)
    }

    @Test("A start at any hour with an older issue stored fetches the latest publication at once")
    func everyHourCatchesUp() async {
        for minutes in stride(from: 0, to: 24 * 60, by: 10) {
            let now = instant(kst: "2026-11-22T00:00:00").addingTimeInterval(TimeInterval(minutes * 60))
            let due = planner.latestPublication(fetchableBy: now)
            // The day's calls so far: the scheduled fetches already past, all of which succeeded.
            let scheduledSoFar = ForecastIssueTime.publicationHours
                .filter { planner.fetchTime(of: instant(kst: "2026-11-22T00:00:00").addingTimeInterval(TimeInterval($0 * 3600))) <= now }
                .count
            let decision = planner.decide(
                now: now, lastFetched: due.addingTimeInterval(-6 * 3600), callsToday: scheduledSoFar * 2, failure: nil)
            #expect(
                decision == .fetch(publication: due, searchDate: KoreaStandardTime.date(containing: due)),
                "start at \(minutes) min past 00:00 KST")
        }
    }

    @Test("Start at 23:45 with nothing stored today: the 23시 issue (searchDate today) at once")
    func startLate() async {
        #expect(
            planner.decide(
                now: instant(kst: "2026-11-22T23:45:00"), lastFetched: instant(kst: "2026-11-22T17:00:00"), callsToday: 0, failure: nil)
                == .fetch(publication: instant(kst: "2026-11-22T23:00:00"), searchDate: LocalDate(year: 2026, month: 11, day: 22)))
        // Just after midnight the 23시 issue is yesterday's: its searchDate is yesterday.
        #expect(planner.latestPublication(fetchableBy: instant(kst: "2026-11-23T00:10:00")) == instant(kst: "2026-11-22T23:00:00"))
    }

    @Test("Every fetch failing: retries only from spare calls, never more than 12 a day (10: 2 stay kept for the outlook)")
    func failingDayKeepsTheCap() async {
        let run = simulate(from: instant(kst: "2026-11-22T14:00:00"), to: instant(kst: "2026-11-25T00:00:00"), lastFetched: nil) { _ in
            .retryWithBackoff
        }
        // 14:00 fails; 14:05 and 14:15 (5 and 10 minutes later) spend the calls 17:30, 23:30 and the outlook do not need.
        #expect(
            Array(run.fetches.prefix(5)) == [
                instant(kst: "2026-11-22T14:00:00"), instant(kst: "2026-11-22T14:05:00"), instant(kst: "2026-11-22T14:15:00"),
                instant(kst: "2026-11-22T17:30:00"), instant(kst: "2026-11-22T23:30:00"),
            ])
        // The next day: the catch-up at 00:30 (an hour after 23:30), then only the 4 scheduled fetches.
        #expect(
            Array(run.fetches.dropFirst(5).prefix(5)) == [
                instant(kst: "2026-11-23T00:30:00"), instant(kst: "2026-11-23T05:30:00"), instant(kst: "2026-11-23T11:30:00"),
                instant(kst: "2026-11-23T17:30:00"), instant(kst: "2026-11-23T23:30:00"),
            ])
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 22)] == 10)
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 23)] == 10)
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 24)] == 10)
        #expect(run.calls.values.allSatisfy { $0 <= ForecastPlanner.dailyCallCap })
    }

    @Test("Every fetch failing from a 00:00 start with every kind of advice: never more than 12 calls a KST day")
    func capHoldsForEveryAdvice() async {
        for advice in [RetryAdvice.retryWithBackoff, .waitAMinute, .waitForNextHour, .waitUntilMidnightKST] {
            let run = simulate(from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-26T00:00:00"), lastFetched: nil) { _ in
                advice
            }
            #expect(!run.fetches.isEmpty)
            #expect(
                run.calls.values.allSatisfy { $0 <= ForecastPlanner.dailyCallCap - ForecastPlanner.outlookReserve },
                "\(advice): \(run.calls)")
        }
    }

    @Test("Quota exceeded (22): nothing more that KST day, the next fetch is 05:30 the next day")
    func quotaExceeded() async {
        let failure = ForecastPlanner.Failure(at: instant(kst: "2026-11-22T11:30:00"), attempts: 1, advice: .waitUntilMidnightKST)
        #expect(
            planner.decide(
                now: instant(kst: "2026-11-22T17:30:00"), lastFetched: instant(kst: "2026-11-22T05:00:00"), callsToday: 4, failure: failure)
                == .wait(until: instant(kst: "2026-11-23T05:30:00")))
    }

    @Test(
        "A key problem (a new key not yet active) is asked again at the next hour while the day has spare calls, else at the next publication; a per-second limit retries a minute later"
    )
    func otherAdvice() async {
        let keyProblem = ForecastPlanner.Failure(at: instant(kst: "2026-11-22T14:00:00"), attempts: 1, advice: .waitForNextHour)
        #expect(
            planner.decide(now: instant(kst: "2026-11-22T14:00:01"), lastFetched: nil, callsToday: 2, failure: keyProblem)
                == .wait(until: instant(kst: "2026-11-22T15:00:00")))
        #expect(
            planner.decide(now: instant(kst: "2026-11-22T15:00:00"), lastFetched: nil, callsToday: 2, failure: keyProblem)
                == .fetch(publication: instant(kst: "2026-11-22T11:00:00"), searchDate: LocalDate(year: 2026, month: 11, day: 22)))
        // No spare call left today: the next publication, as before.
        #expect(
            planner.decide(now: instant(kst: "2026-11-22T14:00:01"), lastFetched: nil, callsToday: 8, failure: keyProblem)
                == .wait(until: instant(kst: "2026-11-22T17:30:00")))
        let perSecond = ForecastPlanner.Failure(at: instant(kst: "2026-11-22T14:00:00"), attempts: 1, advice: .waitAMinute)
        #expect(
            planner.decide(now: instant(kst: "2026-11-22T14:00:01"), lastFetched: nil, callsToday: 2, failure: perSecond)
                == .wait(until: instant(kst: "2026-11-22T14:01:00")))
    }

    @Test("Spare calls: the day's remaining scheduled fetches are reserved")
    func spare() async {
        // 12, less 2 for the outlook, less the calls made, less 2 for each scheduled fetch still ahead.
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T05:30:00"), callsToday: 0) == 4)
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T04:00:00"), callsToday: 0) == 2)
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T23:45:00"), callsToday: 8) == 2)
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T12:00:00"), callsToday: 4) == 2)
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T23:45:00"), callsToday: 10) == 0)
        // What the outlook spent of its 2 is not kept twice: 8 calls, 2 of them the outlook's, leave 2 at 23:45.
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T23:45:00"), callsToday: 10, outlookCallsToday: 2) == 2)
        #expect(planner.spareCalls(at: instant(kst: "2026-11-22T23:45:00"), callsToday: 9, outlookCallsToday: 1) == 2)
    }

    /// The daily forecast and the weekly outlook planned together as `ForecastService` runs them
    /// (the daily first when both are due) from `start` to `end`; `fails` says whether a daily
    /// fetch fails, `outlookFails` whether an outlook call does. Returns every call with its kind
    /// and the calls per KST day.
    func simulateBoth(
        from start: Date, to end: Date, lastFetched initial: Date?, lastPublished initialOutlook: LocalDate?,
        fails: (Date) -> RetryAdvice? = { _ in nil }, outlookFails: (Date) -> RetryAdvice? = { _ in nil }
    ) -> (outlookCalls: [Date], calls: [LocalDate: Int], outlookPerDay: [LocalDate: Int]) {
        var now = start
        var lastFetched = initial
        var lastPublished = initialOutlook
        var calls: [LocalDate: Int] = [:]
        var outlookPerDay: [LocalDate: Int] = [:]
        var failure: ForecastPlanner.Failure?
        var outlookFailure: ForecastPlanner.Failure?
        var outlookCalls: [Date] = []
        var steps = 0
        while now < end, steps < 2000 {
            steps += 1
            let day = KoreaStandardTime.date(containing: now)
            let daily = planner.decide(
                now: now, lastFetched: lastFetched, callsToday: calls[day, default: 0], outlookCallsToday: outlookPerDay[day, default: 0],
                failure: failure)
            let outlook = planner.decideOutlook(
                now: now, lastPublished: lastPublished, callsToday: calls[day, default: 0],
                outlookCallsToday: outlookPerDay[day, default: 0], failure: outlookFailure)
            switch (daily, outlook) {
            case (.fetch(let publication, _), _):
                calls[day, default: 0] += ForecastPlanner.callsPerFetch
                if let advice = fails(now) {
                    failure = ForecastPlanner.Failure(at: now, attempts: (failure?.attempts ?? 0) + 1, advice: advice)
                } else {
                    failure = nil
                    lastFetched = publication
                }
                now = now.addingTimeInterval(1)
            case (.wait, .fetch(let searchDate)):
                // Today's publication; or, as the run's first call (a start with no outlook stored), yesterday's.
                #expect(searchDate == day || (searchDate == day.adding(days: -1) && outlookCalls.isEmpty))
                calls[day, default: 0] += 1
                outlookPerDay[day, default: 0] += 1
                outlookCalls.append(now)
                if let advice = outlookFails(now) {
                    outlookFailure = ForecastPlanner.Failure(at: now, attempts: (outlookFailure?.attempts ?? 0) + 1, advice: advice)
                } else {
                    outlookFailure = nil
                    lastPublished = searchDate
                }
                now = now.addingTimeInterval(1)
            case (.wait(let until), .wait(let outlookUntil)):
                let next = min(until, outlookUntil)
                #expect(next > now, "a wait must move time forward")
                now = next
            }
        }
        return (outlookCalls, calls, outlookPerDay)
    }

    @Test("The outlook: once a day at 17:30 KST, right after the 17시 forecast; 9 calls a day with it")
    func outlookOnceADay() async {
        let run = simulateBoth(
            from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-25T00:00:00"),
            lastFetched: instant(kst: "2026-11-21T23:00:00"), lastPublished: LocalDate(year: 2026, month: 11, day: 21))
        #expect(
            run.outlookCalls == [
                instant(kst: "2026-11-22T17:30:01"), instant(kst: "2026-11-23T17:30:01"), instant(kst: "2026-11-24T17:30:01"),
            ])
        #expect(run.calls.values.allSatisfy { $0 == 9 }, "\(run.calls)")
    }

    @Test(
        "A start after 17:30 without today's outlook fetches it at once; before 17:30 without yesterday's it fetches that, else it waits for 17:30"
    )
    func outlookOnStart() async {
        let day = LocalDate(year: 2026, month: 11, day: 22)
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T20:10:00"), lastPublished: day.adding(days: -1), callsToday: 6, outlookCallsToday: 0,
                failure: nil) == .fetch(searchDate: day))
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T20:10:00"), lastPublished: nil, callsToday: 0, outlookCallsToday: 0, failure: nil)
                == .fetch(searchDate: day))
        // A start at night with nothing stored (issue 37): yesterday's publication at once, then 17:30 as ever.
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T09:00:00"), lastPublished: nil, callsToday: 2, outlookCallsToday: 0, failure: nil)
                == .fetch(searchDate: day.adding(days: -1)))
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T00:40:00"), lastPublished: day.adding(days: -3), callsToday: 0, outlookCallsToday: 0,
                failure: nil) == .fetch(searchDate: day.adding(days: -1)))
        for (published, calls) in [(day.adding(days: -1), 0), (nil, 1)] as [(LocalDate?, Int)] {
            #expect(
                planner.decideOutlook(
                    now: instant(kst: "2026-11-22T09:00:00"), lastPublished: published, callsToday: 2, outlookCallsToday: calls,
                    failure: nil) == .wait(until: instant(kst: "2026-11-22T17:30:00")))
        }
        // Today's stored: nothing before tomorrow's 17:30.
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T20:10:00"), lastPublished: day, callsToday: 7, outlookCallsToday: 1, failure: nil)
                == .wait(until: instant(kst: "2026-11-23T17:30:00")))
    }

    @Test("A failing outlook is retried at most within its 2 calls a day; with the daily forecast failing too, never more than 12")
    func outlookFailingKeepsTheCap() async {
        for advice in [RetryAdvice.retryWithBackoff, .waitAMinute, .waitForNextHour, .waitUntilMidnightKST] {
            let run = simulateBoth(
                from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-26T00:00:00"), lastFetched: nil, lastPublished: nil,
                fails: { _ in advice }, outlookFails: { _ in advice })
            #expect(!run.outlookCalls.isEmpty)
            #expect(run.outlookPerDay.values.allSatisfy { $0 <= ForecastPlanner.outlookReserve }, "\(advice): \(run.outlookPerDay)")
            #expect(run.calls.values.allSatisfy { $0 <= ForecastPlanner.dailyCallCap }, "\(advice): \(run.calls)")
        }
        // Backoff: 17:30 fails, 17:35 is its second and last call of the day.
        let run = simulateBoth(
            from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-23T00:00:00"),
            lastFetched: instant(kst: "2026-11-21T23:00:00"), lastPublished: LocalDate(year: 2026, month: 11, day: 21),
            outlookFails: { _ in .retryWithBackoff })
        #expect(run.outlookCalls == [instant(kst: "2026-11-22T17:30:01"), instant(kst: "2026-11-22T17:35:01")])
        #expect(run.calls[LocalDate(year: 2026, month: 11, day: 22)] == 10)
    }

    @Test("Every daily fetch failing while the outlook succeeds: the daily never spends the outlook's calls, 12 at most")
    func dailyFailingLeavesTheOutlookItsCalls() async {
        for advice in [RetryAdvice.retryWithBackoff, .waitAMinute] {
            let run = simulateBoth(
                from: instant(kst: "2026-11-22T00:00:00"), to: instant(kst: "2026-11-25T00:00:00"), lastFetched: nil, lastPublished: nil,
                fails: { _ in advice })
            #expect(run.outlookCalls.count == 4, "\(advice): yesterday's at the start, then one each day")
            #expect(run.calls.values.allSatisfy { $0 <= ForecastPlanner.dailyCallCap }, "\(advice): \(run.calls)")
        }
    }

    @Test("A restart that forgot the outlook's failure: its calls come from the record, so it never spends a third")
    func outlookCallsFromTheRecord() async {
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T18:00:00"), lastPublished: nil, callsToday: 8, outlookCallsToday: 2, failure: nil)
                == .wait(until: instant(kst: "2026-11-23T17:30:00")))
        // The day's scheduled fetch at 23:30 keeps its 2 calls: at 11 calls only 1 is left, and it is not the outlook's.
        #expect(
            planner.decideOutlook(
                now: instant(kst: "2026-11-22T18:00:00"), lastPublished: nil, callsToday: 10, outlookCallsToday: 1, failure: nil)
                == .wait(until: instant(kst: "2026-11-23T17:30:00")))
    }
}

@Suite("Forecast fetch, storage fake and outlook", .timeLimit(.minutes(10)))
struct ForecastFetchTests {
    @Test("One publication: two requests recorded as forecast attempts, 14 issues stored, the 17시 issue newest")
    func fetchStoresEverything() async throws {
        let store = SQLiteStore.scratch()
        let fetch = ForecastFetch(source: FixtureForecastAPI(), store: store, clock: FixedClock(instant(kst: "2026-11-22T17:30:00")))
        let report = await fetch.run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        #expect(report.requests == 2)
        #expect(report.issuesStored == 14)
        #expect(report.fetched(instant(kst: "2026-11-22T17:00:00")))
        #expect(!report.fetched(instant(kst: "2026-11-22T23:00:00")))
        #expect(
            (try await store.attemptsOldestFirst()).map(\.operation) == [
                "forecast PM10 2026-11-22 page 1", "forecast PM25 2026-11-22 page 1",
            ])
        #expect(try await store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-22T00:00:00")) == 2)
        // Fetching the same again stores nothing new.
        let again = await fetch.run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        #expect(again.issuesStored == 0)
        #expect(try await store.attemptCount(kind: .forecast, since: instant(kst: "2026-11-22T00:00:00")) == 4)
    }

    @Test("A forecast issued in 2099 is dropped and counted, never stored as the newest; one already stored is no fetch done")
    func nothingFromTheFuture() async throws {
        struct FutureAPI: ForecastAPI {
            func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage {
                guard case .forecast(_, let pollutant, _, _) = request else { throw .httpStatus(400) }
                let name = pollutant == .pm10 ? "synthesized/forecast-pm10-2026-11-22.xml" : "synthesized/forecast-pm25-2026-11-22.xml"
                do {
                    var page = try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(name))
                    var future = page.forecasts[0]
                    future.issuedAt = instant(kst: "2099-11-22T17:00:00")
                    future.forecastDate = LocalDate(year: 2026, month: 11, day: 22)
                    page.forecasts.append(future)
                    return page
                } catch {
                    throw .httpStatus(500)
                }
            }
        }
        let store = SQLiteStore.scratch()
        let now = instant(kst: "2026-11-22T17:30:00")
        let report = await ForecastFetch(source: FutureAPI(), store: store, clock: FixedClock(now))
            .run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        #expect(report.futureItems == 2)
        #expect(report.issuesStored == 14)
        #expect(try await store.newestForecastIssue(pollutant: .pm10) == instant(kst: "2026-11-22T17:00:00"))
        // A 2099 issue stored by an older FineDust: the planner asks for the newest not after now, and
        // a lastFetched after now is no publication fetched.
        let planner = ForecastPlanner()
        let latest = try await store.newestForecastIssue(pollutant: .pm10, notAfter: now)
        #expect(latest == instant(kst: "2026-11-22T17:00:00"))
        let decision = planner.decide(
            now: instant(kst: "2026-11-22T23:40:00"), lastFetched: instant(kst: "2099-11-22T17:00:00"), callsToday: 2, failure: nil)
        guard case .fetch = decision else {
            Issue.record("a 2099 issue kept the planner waiting: \(decision)")
            return
        }
    }

    @Test("The PM2.5 answer's sentences that show the key beside PM10's are withheld before they are stored; the PM10 ones stay")
    func composedAcrossAnswers() async throws {
        let (key, letters) = (EchoedKey.key, EchoedKey.letters)
        let store = SQLiteStore.scratch()
        let (first, second) = (String(letters.prefix(11)), String(letters.dropFirst(11).prefix(11)))
        let api = RewrittenForecasts { pollutant, forecast in
            var split = forecast
            split.cause = pollutant == .pm10 ? "정체 " + first : second + " 유입"
            return split
        }
        let report = await ForecastFetch(
            source: api, store: store, clock: FixedClock(instant(kst: "2026-11-22T17:30:00")), echoes: KeyEchoGuard(keyForms: [key])
        )
        .run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        #expect(report.textsWithheld > 0)
        let tomorrow = LocalDate(year: 2026, month: 11, day: 23)
        let pm25 = try #require(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .seoul))
        let pm10 = try #require(try await store.forecast(pollutant: .pm10, date: tomorrow, region: .seoul))
        #expect(pm25.cause == KeyEchoGuard.withheldText)
        #expect(pm10.cause?.hasPrefix("정체 ") == true)
        #expect(
            !KeyEchoGuard(keyForms: [key]).echoes(
                [pm10.cause ?? "", pm25.cause ?? "", pm10.overall ?? "", pm25.overall ?? ""].joined(separator: " ")))
    }

    @Test("A later publication's sentences that show the key beside an earlier one's still in use are withheld before they are stored")
    func composedAcrossPublications() async throws {
        let (key, letters) = (EchoedKey.key, EchoedKey.letters)
        let store = SQLiteStore.scratch()
        let guardian = KeyEchoGuard(keyForms: [key])
        let searchDate = LocalDate(year: 2026, month: 11, day: 22)
        let first = await ForecastFetch(
            source: RewrittenForecasts(cause: "정체 " + String(letters.prefix(11))), store: store,
            clock: FixedClock(instant(kst: "2026-11-22T17:30:00")), echoes: guardian
        )
        .run(searchDate: searchDate)
        #expect(first.textsWithheld == 0 && first.issuesStored > 0)
        // The 23시 publication: its sentences would be printed beside the 17시 one's (today's and
        // tomorrow's come from the newest issue that has each).
        let second = await ForecastFetch(
            source: RewrittenForecasts(cause: String(letters.dropFirst(11).prefix(11)) + " 유입", later: 6 * 3600), store: store,
            clock: FixedClock(instant(kst: "2026-11-22T23:30:00")), echoes: guardian
        )
        .run(searchDate: searchDate)
        #expect(second.textsWithheld > 0)
        #expect(second.issuesStored > 0)
        let tomorrow = LocalDate(year: 2026, month: 11, day: 23)
        let newest = try #require(try await store.forecast(pollutant: .pm10, date: tomorrow, region: .seoul))
        #expect(newest.issuedAt == instant(kst: "2026-11-22T23:00:00"))
        #expect(newest.cause == KeyEchoGuard.withheldText)
        // A third publication with harmless sentences is stored as it came.
        let third = await ForecastFetch(
            source: RewrittenForecasts(cause: "대기 정체로 농도가 높겠습니다.", later: 12 * 3600), store: store,
            clock: FixedClock(instant(kst: "2026-11-23T05:30:00")), echoes: guardian
        )
        .run(searchDate: searchDate)
        #expect(third.textsWithheld == 0)
        #expect(try await store.forecast(pollutant: .pm25, date: tomorrow, region: .seoul)?.cause == "대기 정체로 농도가 높겠습니다.")
    }

    @Test("The weekly outlook's conditions that show the key beside the stored forecast sentences are withheld; harmless ones stay")
    func outlookBesideForecast() async throws {
        let (key, letters) = (EchoedKey.key, EchoedKey.letters)
        struct OutlookAPI: WeeklyOutlookAPI {
            let conditions: String
            func weeklyOutlooks(_ request: AirKoreaRequest) async throws(FetchError) -> WeeklyOutlookPage {
                do {
                    var page = try AirKoreaResponseParser().parseWeeklyOutlooks(
                        try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"))
                    page.outlooks = page.outlooks.map { outlook in
                        var changed = outlook
                        changed.conditions = conditions
                        return changed
                    }
                    return page
                } catch {
                    throw .httpStatus(500)
                }
            }
        }
        let guardian = KeyEchoGuard(keyForms: [key])
        let searchDate = LocalDate(year: 2026, month: 11, day: 22)
        let clock = FixedClock(instant(kst: "2026-11-22T17:40:00"))
        for (conditions, withheld) in [(String(letters.dropFirst(11).prefix(11)) + " 예상", true), ("대기 정체가 이어지겠습니다.", false)] {
            let store = SQLiteStore.scratch()
            let forecasts = await ForecastFetch(
                source: RewrittenForecasts(cause: "정체 " + String(letters.prefix(11))), store: store, clock: clock, echoes: guardian
            )
            .run(searchDate: searchDate)
            #expect(forecasts.issuesStored > 0 && forecasts.textsWithheld == 0)
            let report = await WeeklyOutlookFetch(source: OutlookAPI(conditions: conditions), store: store, clock: clock, echoes: guardian)
                .run(searchDate: searchDate)
            #expect(report.stored)
            #expect(report.textsWithheld == (withheld ? 1 : 0))
            let stored = try await store.newestWeeklyOutlook()?.conditions
            #expect(stored == (withheld ? KeyEchoGuard.withheldText : conditions))
        }
    }

    @Test("A failed request is recorded with its result code and stops the fetch")
    func failure() async throws {
        let store = SQLiteStore.scratch()
        let error = FetchError.response(
            .service(.dailyQuotaExceeded, reportedCode: "22", serverMessage: "LIMITED NUMBER OF SERVICE REQUESTS EXCEEDS ERROR."),
            httpStatus: 200)
        let report = await ForecastFetch(
            source: FixtureForecastAPI(failure: error), store: store, clock: FixedClock(instant(kst: "2026-11-22T17:30:00"))
        )
        .run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        #expect(report.requests == 1)
        #expect(report.failure?.retryAdvice == .waitUntilMidnightKST)
        #expect((try await store.attemptsOldestFirst()).map(\.outcome) == [.quota])
        #expect((try await store.attemptsOldestFirst()).first?.resultCode == "22")
    }

    @Test("Outlook for a 경기 station in 고양: 경기북부, today and tomorrow from the newest issue")
    func outlook() async throws {
        // 행신동's province as its measurements name it, its address as the station list gives it.
        let store = SQLiteStore.scratch()
        let reading = HourlyReading(
            station: "행신동", slot: Slot(containing: instant(kst: "2026-11-22T16:30:00")), concentration: DustPair(repeating: nil),
            sidoName: "경기")
        _ = try await store.saveReadings([reading], fetchedAt: instant(kst: "2026-11-22T17:10:00"))
        try await store.saveStations([Station(name: "행신동", address: "경기도 고양시 덕양구 행신동 1")], at: instant(kst: "2026-11-22T17:10:00"))
        _ = await ForecastFetch(source: FixtureForecastAPI(), store: store, clock: FixedClock(instant(kst: "2026-11-22T17:30:00")))
            .run(searchDate: LocalDate(year: 2026, month: 11, day: 22))
        let reader = ForecastReader(store: store, timeZone: KoreaStandardTime.timeZone)
        let outlook = try await reader.outlook(station: "행신동", override: nil, now: instant(kst: "2026-11-22T18:00:00"))
        #expect(outlook.region == .gyeonggiNorth)
        #expect(outlook.today == LocalDate(year: 2026, month: 11, day: 22))
        #expect(outlook.tomorrowGrades.ultraFineDust?.grade == .known(.bad))
        #expect(outlook.tomorrowGrades.fineDust?.grade == .known(.moderate))
        #expect(outlook.todayGrades.fineDust?.grade == .known(.moderate))
        #expect(outlook.issuedAt == instant(kst: "2026-11-22T17:00:00"))
        // The override wins: 서울 tomorrow is 매우나쁨 for PM2.5.
        let seoul = try await reader.outlook(station: "행신동", override: .seoul, now: instant(kst: "2026-11-22T18:00:00"))
        #expect(seoul.tomorrowGrades.ultraFineDust?.grade == .known(.veryBad))
    }

    @Test("A station the table cannot place asks for forecast.region")
    func unknownStation() async {
        let reader = ForecastReader(store: SQLiteStore.scratch(), timeZone: KoreaStandardTime.timeZone)
        await #expect(throws: ForecastReadError.region(.unknownStation(sido: nil))) {
            try await reader.outlook(station: "어딘가", override: nil, now: instant(kst: "2026-11-22T18:00:00"))
        }
    }
}

/// A service key, and its letters and digits: what the echo tests split across texts.
private enum EchoedKey {
    static let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
    static let letters = key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
}

/// The 2026-11-22 forecast fixtures of the pollutant asked for, each forecast rewritten.
private struct RewrittenForecasts: ForecastAPI {
    let rewrite: @Sendable (Pollutant, DustForecast) -> DustForecast

    init(_ rewrite: @escaping @Sendable (Pollutant, DustForecast) -> DustForecast) {
        self.rewrite = rewrite
    }

    /// Every cause set to `cause`, every issue moved `later` seconds on (another publication).
    init(cause: String, later: TimeInterval = 0) {
        self.init { _, forecast in
            var moved = forecast
            moved.cause = cause
            moved.issuedAt = forecast.issuedAt.addingTimeInterval(later)
            return moved
        }
    }

    func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage {
        guard case .forecast(_, let pollutant, _, _) = request else { throw .httpStatus(400) }
        let name = pollutant == .pm10 ? "synthesized/forecast-pm10-2026-11-22.xml" : "synthesized/forecast-pm25-2026-11-22.xml"
        do {
            var page = try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(name))
            page.forecasts = page.forecasts.map { rewrite(pollutant, $0) }
            return page
        } catch {
            throw .httpStatus(500)
        }
    }
}
