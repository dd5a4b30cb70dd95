import AirKorea
import DustKit
import DustServices
import Foundation
import Synchronization
import TestSupport
import Testing

/// A sink over its limit once (ntfy.sh's 429 with `Retry-After`), then taking the event.
final class LimitedSink: AlertSink {
    let name = "limited"
    private let asking: Duration
    private let refused = Mutex(false)

    init(asking: Duration) { self.asking = asking }

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        guard refused.withLock({ $0 }) else {
            refused.withLock { $0 = true }
            throw AlertSinkError("limited answered HTTP 429", retryAfter: asking)
        }
    }
}

/// A sink whose delivery lasts until dustd stops it: a webhook that never answers, a command that sleeps.
final class HangingSink: AlertSink {
    let name = "hanging"
    let started = Mutex(false)

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        started.withLock { $0 = true }
        do { try await Task.sleep(for: .seconds(3600)) } catch { throw AlertSinkError("could not be reached: CancellationError") }
    }
}

@Suite("Alerts: rules against stored hours, edges, quiet hours, deliveries", .timeLimit(.minutes(10)))
struct AlertTests {
    /// 2026-11-20 in Seoul: `hour` o'clock plus five minutes (the latest hour then is hour − 1).
    static func at(_ hour: Int, minute: Int = 5) -> Date {
        seoul.start(of: november20).addingTimeInterval(Double(hour * 3600 + minute * 60))
    }

    /// Stores PM2.5 `value` for the hour starting at `hour`.
    static func store(_ value: Double, hour: Int, in scratch: Scratch) async throws {
        _ = try await scratch.store.saveReadings(
            [
                HourlyReading(
                    station: "종로구", slot: Scratch.slot(november20, hour: hour),
                    concentration: DustPair(fineDust: 40, ultraFineDust: value))
            ], fetchedAt: at(hour + 1))
    }

    static func monitor(_ scratch: Scratch, rules: [String], quiet: QuietHours? = nil, now: Date) throws -> AlertMonitor {
        AlertMonitor(
            rules: try rules.map(AlertRule.init(parsing:)), quietHours: quiet, store: scratch.store,
            statistics: scratch.statistics(model: try VentilationIntakeModel(), now: now))
    }

    @Test("pm25.grade >= 3: one alert when the hour turns 나쁨, none while it stays, one when it clears; a restart repeats nothing")
    func risingAndClearing() async throws {
        let scratch = try Scratch()
        // PM2.5 by hour from 09:00: 20 보통, 40 나쁨, 60 나쁨, 80 매우나쁨, 30 보통, 10 좋음.
        let values: [Double] = [20, 40, 60, 80, 30, 10]
        var kinds: [String] = []
        for (offset, value) in values.enumerated() {
            let hour = 9 + offset
            try await Self.store(value, hour: hour, in: scratch)
            // A new monitor each hour, as after a restart: the state lives in the database.
            let events = try await Self.monitor(scratch, rules: ["pm25.grade >= 3"], now: Self.at(hour + 1)).evaluate(at: Self.at(hour + 1))
            kinds += events.map { "\(hour):\($0.kind.rawValue):\(Int($0.value ?? -1))" }
        }
        #expect(kinds == ["10:fired:3", "13:cleared:2"])
        let stored = try await scratch.store.recentAlertEvents(limit: 10).map(\.event)
        #expect(stored.map(\.kind) == [.cleared, .fired])
        #expect(stored.last?.title(in: .en) == "FineDust: PM2.5 나쁨 (bad)")
        #expect(stored.last?.message(in: .en) == "PM2.5 나쁨 (bad) at 종로구. Rule: pm25.grade >= 3.")
        #expect(try await scratch.store.alertStates() == ["pm25.grade >= 3": .idle])
    }

    @Test(
        "PM2.5 wavering around 나쁨 hour by hour (36, 35, 36, 35, 36) is one alert with an hour's hold: it clears after two hours below, not every hour"
    )
    func waveringClearsOnce() async throws {
        let values: [Double] = [36, 35, 36, 35, 36, 35, 30, 20]
        // `minute(hour)`: when the check after that hour's poll comes (a poll's jitter moves it by up to a minute).
        func run(clearAfter: TimeInterval, minute: (Int) -> Int = { _ in 5 }) async throws -> [String] {
            let scratch = try Scratch()
            let hold = ClearingHold()
            var kinds: [String] = []
            for (offset, value) in values.enumerated() {
                let hour = 8 + offset
                try await Self.store(value, hour: hour, in: scratch)
                let monitor = AlertMonitor(
                    rules: [try AlertRule(parsing: "pm25.grade >= 3")], quietHours: nil, store: scratch.store,
                    statistics: scratch.statistics(model: try VentilationIntakeModel(), now: Self.at(hour + 1, minute: minute(hour))),
                    clearing: hold, clearAfter: clearAfter)
                kinds += try await monitor.evaluate(at: Self.at(hour + 1, minute: minute(hour))).map { "\(hour):\($0.kind.rawValue)" }
            }
            return kinds
        }
        // Without the hold, as before: a firing and a clearing every hour.
        #expect(try await run(clearAfter: 0) == ["8:fired", "9:cleared", "10:fired", "11:cleared", "12:fired", "13:cleared"])
        // With it: the hours below 36 that come back above never clear it; 13:00, 14:00 and 15:00 below do, an hour on.
        let held = try await run(clearAfter: 3600)
        #expect(held == ["8:fired", "14:cleared"], "\(held)")
        // The check after the first hour below came a minute late and the next one on time (59 minutes on):
        // it still clears then, not an hour later.
        let jittered = try await run(clearAfter: 3600) { $0 == 13 ? 6 : 5 }
        #expect(jittered == ["8:fired", "14:cleared"], "\(jittered)")
    }

    @Test("At 00:20 the latest hour is yesterday's 23–24 (24:00), and its grade counts")
    func midnight() async throws {
        let scratch = try Scratch()
        try await Self.store(80, hour: 23, in: scratch)
        let twentyPast = seoul.start(of: november20.adding(days: 1)).addingTimeInterval(20 * 60)
        let monitor = try Self.monitor(scratch, rules: ["pm25.grade >= 3"], now: twentyPast)
        #expect(try await monitor.inputs(at: twentyPast).values[.pm25Grade] == 4)
        #expect(try await monitor.evaluate(at: twentyPast).map(\.kind) == [.fired])
    }

    @Test(
        "A day's dose past its threshold: fired once; the day's turn takes the rule back to idle without a message; the next day fires again"
    )
    func intakeClearsSilentlyAtTheDaysTurn() async throws {
        let scratch = try Scratch()
        let rule = try AlertRule(parsing: "intake.today.pm25 > 20")
        let monitor = try Self.monitor(scratch, rules: [rule.description], quiet: QuietHours(fromHour: 22, toHour: 7), now: Self.at(22))
        let inputs = { (dose: Double) in AlertInputs(station: "종로구", values: [.intakeTodayPM25: dose]) }
        #expect(try await monitor.evaluate(inputs(29.1), at: Self.at(21, minute: 30)).map(\.kind) == [.fired])
        // 01:30 the next day, PM2.5 unchanged, the day's dose so far 15.1: no clearing sent (it was, at 01:00 each night).
        let night = Self.at(25, minute: 30)
        #expect(try await monitor.evaluate(inputs(15.1), at: night).isEmpty)
        #expect(try await scratch.store.alertStates()[rule.description] == .idle)
        #expect(try await monitor.evaluate(inputs(25), at: Self.at(34)).map(\.kind) == [.fired])
    }

    @Test(
        "A day's dose fired or held yesterday is idle from midnight: a new day whose first known hour is already over the threshold fires; a stale state is not shown"
    )
    func intakeOfANewDayOverItsThresholdFires() async throws {
        let scratch = try Scratch()
        let rule = try AlertRule(parsing: "intake.today.pm25 > 50")
        let monitor = try Self.monitor(scratch, rules: [rule.description], now: Self.at(22))
        let inputs = { (dose: Double?) in AlertInputs(station: "종로구", values: dose.map { [.intakeTodayPM25: $0] } ?? [:]) }
        #expect(try await monitor.evaluate(inputs(412.9), at: Self.at(21, minute: 25)).map(\.kind) == [.fired])
        // 00:25 the next day: no hour of it is known yet. Nothing is sent, and the rule is idle, not "active".
        #expect(try await monitor.evaluate(inputs(nil), at: Self.at(24, minute: 25)).isEmpty)
        #expect(try await scratch.store.alertStates()[rule.description] == .idle)
        // 01:25: the new day's first hour is already over 50. Its own alert, once.
        let fired = try await monitor.evaluate(inputs(75.6), at: Self.at(25, minute: 25))
        #expect(fired.map(\.kind) == [.fired] && fired.first?.value == 75.6)
        #expect(try await monitor.evaluate(inputs(90), at: Self.at(26, minute: 25)).isEmpty)
        // The same straight from yesterday's state to a new day's hour over the threshold, with no check in between.
        #expect(try await monitor.evaluate(inputs(60), at: Self.at(48 + 1, minute: 25)).map(\.kind) == [.fired])

        // Held by quiet hours (22–7) at 23:25 and still unknown the next morning: idle, not "held back by quiet hours".
        let quiet = try Scratch()
        let held = try Self.monitor(quiet, rules: [rule.description], quiet: QuietHours(fromHour: 22, toHour: 7), now: Self.at(23))
        #expect(try await held.evaluate(inputs(80), at: Self.at(23, minute: 25)).isEmpty)
        #expect(try await quiet.store.alertStates()[rule.description] == .held)
        #expect(try await held.evaluate(inputs(nil), at: Self.at(24 + 7, minute: 26)).isEmpty)
        #expect(try await quiet.store.alertStates()[rule.description] == .idle)
        // Held again the next night in quiet hours, over the threshold again: stored as that day's, so it
        // still reads held at 03:00, and fires when quiet hours end.
        #expect(try await held.evaluate(inputs(90), at: Self.at(24 + 23, minute: 25)).isEmpty)
        #expect(try await held.evaluate(inputs(95), at: Self.at(48 + 1, minute: 25)).isEmpty)
        let heldToday = try #require(try await quiet.store.storedAlertStates()[rule.description])
        #expect(rule.state(heldToday, at: Self.at(48 + 3), calendar: seoul) == .held)
        #expect(try await held.evaluate(inputs(120), at: Self.at(48 + 7, minute: 25)).map(\.kind) == [.fired])
        // A rule of the air (not a day's dose) keeps its state across midnight.
        let stored = StoredAlertState(.active, changedAt: Self.at(21))
        let grade = try AlertRule(parsing: "pm25.grade >= 3")
        #expect(grade.state(stored, at: Self.at(25), calendar: seoul) == .active)
        #expect(rule.state(stored, at: Self.at(23, minute: 59), calendar: seoul) == .active)
        #expect(rule.state(stored, at: Self.at(24), calendar: seoul) == .idle)
    }

    @Test("The same rule written twice is one rule: one alert, one clearing")
    func duplicateRules() async throws {
        let scratch = try Scratch()
        let monitor = try Self.monitor(scratch, rules: ["pm25.grade >= 3", "pm25.grade >= 나쁨"], now: Self.at(12))
        let inputs = { (grade: Double) in AlertInputs(station: "종로구", values: [.pm25Grade: grade]) }
        #expect(try await monitor.evaluate(inputs(3), at: Self.at(12)).map(\.kind) == [.fired])
        #expect(try await monitor.evaluate(inputs(1), at: Self.at(13)).map(\.kind) == [.cleared])
    }

    @Test(
        "Quiet hours 22–7: a rise at 23:00 is held and announced at 07:00 if it still holds; one that clears by then is never sent; a clearing is sent in quiet hours"
    )
    func quietHours() async throws {
        let quiet = QuietHours(fromHour: 22, toHour: 7)
        let rule = try AlertRule(parsing: "pm25.grade >= 3")
        let inputs = { (value: Double?) in AlertInputs(station: "종로구", values: value.map { [.pm25Grade: $0] } ?? [:]) }
        let scratch = try Scratch()
        let monitor = AlertMonitor(
            rules: [rule], quietHours: quiet, store: scratch.store,
            statistics: scratch.statistics(model: try VentilationIntakeModel()))
        let night = seoul.start(of: november20).addingTimeInterval(23 * 3600 + 300)
        let hours = (0..<10).map { night.addingTimeInterval(Double($0) * 3600) }  // 23:05 … 08:05
        #expect(try await monitor.evaluate(inputs(3), at: hours[0]).isEmpty)
        #expect(try await scratch.store.alertStates()[rule.description] == .held)
        #expect(try await monitor.evaluate(inputs(4), at: hours[3]).isEmpty)
        #expect(try await monitor.evaluate(inputs(nil), at: hours[5]).isEmpty)  // unknown: still held
        let morning = try await monitor.evaluate(inputs(3), at: hours[8])  // 07:05
        #expect(morning.map(\.kind) == [.fired])
        #expect(try await monitor.evaluate(inputs(3), at: hours[9]).isEmpty)

        // The next night: it clears at 01:05, inside quiet hours, and the clearing is sent.
        let later = hours[9].addingTimeInterval(17 * 3600)
        #expect(try await monitor.evaluate(inputs(2), at: later).map(\.kind) == [.cleared])

        // A rise at 23:05 that clears at 03:05 sends nothing at all.
        let other = try Scratch()
        let quietOnly = AlertMonitor(
            rules: [rule], quietHours: quiet, store: other.store,
            statistics: other.statistics(model: try VentilationIntakeModel()))
        #expect(try await quietOnly.evaluate(inputs(3), at: hours[0]).isEmpty)
        #expect(try await quietOnly.evaluate(inputs(1), at: hours[4]).isEmpty)
        #expect(try await quietOnly.evaluate(inputs(1), at: hours[8]).isEmpty)
        #expect(try await other.store.recentAlertEvents(limit: 10).isEmpty)
    }

    @Test("Quiet hours are local hours in a zone half an hour off UTC: from 23 in Kolkata they begin at 23:00, not 23:30")
    func quietHoursOffTheHour() async throws {
        let kolkata = DayCalendar(timeZone: TimeZone(identifier: "Asia/Kolkata")!)
        let rule = try AlertRule(parsing: "pm25.grade >= 3")
        let scratch = try Scratch()
        let monitor = AlertMonitor(
            rules: [rule], quietHours: QuietHours(fromHour: 23, toHour: 7), store: scratch.store,
            statistics: StatisticsService(
                store: scratch.store, clock: FixedClock(DemoReplay.now), calendar: kolkata, intakeModel: try VentilationIntakeModel(),
                stations: StationPreference(primary: "종로구"), followingRadiusKilometres: nil))
        // 23:18 IST is 17:48 UTC, in the slot that begins at 22:30 IST.
        let evening = kolkata.start(of: november20).addingTimeInterval(23 * 3600 + 18 * 60)
        #expect(kolkata.hour(at: evening) == 23 && kolkata.hour(of: Slot(containing: evening)) == 22)
        #expect(kolkata.nextHourStart(after: evening) == kolkata.start(of: november20).addingTimeInterval(24 * 3600))
        let inputs = AlertInputs(station: "종로구", values: [.pm25Grade: 3])
        #expect(try await monitor.evaluate(inputs, at: evening).isEmpty, "fired inside quiet hours")
        #expect(try await scratch.store.alertStates()[rule.description] == .held)
        // 07:18 IST: quiet hours are over, and the alert held since the evening is sent.
        let morning = evening.addingTimeInterval(8 * 3600)
        #expect(try await monitor.evaluate(inputs, at: morning).map(\.kind) == [.fired])
    }

    @Test("Inputs: the latest hour's grades only while under 3 hours old; today's intake in µg")
    func inputs() async throws {
        let scratch = try Scratch()
        try await Self.store(40, hour: 9, in: scratch)
        let fresh = try await Self.monitor(scratch, rules: [], now: Self.at(12, minute: 59)).inputs(at: Self.at(12, minute: 59))
        #expect(fresh.values[.pm25Grade] == 3)
        #expect(fresh.values[.pm10Grade] == 2)
        // 09:00 is sedentary under the default schedule: 40 µg/m³ × 0.26 m³/h × 0.7 = 7.28 µg.
        #expect(abs(fresh.values[.intakeTodayPM25]! - 7.28) < 1e-9)
        let stale = try await Self.monitor(scratch, rules: [], now: Self.at(13, minute: 1)).inputs(at: Self.at(13, minute: 1))
        #expect(stale.values[.pm25Grade] == nil && stale.values[.pm10Grade] == nil)
        #expect(stale.values[.intakeTodayPM25] != nil)
    }

    @Test(
        "forecast.tomorrow.pm25 >= 나쁨 against the stored 17시 forecast: 서울 tomorrow is 매우나쁨 (fires), 영동 is 좋음 (does not); an unknown region is no value"
    )
    func forecastRule() async throws {
        let scratch = try Scratch()
        for name in ["synthesized/forecast-pm10-2026-11-20.xml", "synthesized/forecast-pm25-2026-11-20.xml"] {
            let page = try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(name))
            _ = try await scratch.store.saveForecasts(page.forecasts, fetchedAt: Self.at(18))
        }
        let reader = ForecastReader(store: scratch.store, timeZone: seoul.timeZone)
        let rule = try AlertRule(parsing: "forecast.tomorrow.pm25 >= 나쁨")
        func monitor(_ region: ForecastRegion?, station: String? = "종로구") async throws -> AlertMonitor {
            AlertMonitor(
                rules: [rule], quietHours: nil, store: scratch.store,
                statistics: scratch.statistics(model: try VentilationIntakeModel(), now: Self.at(18)),
                forecast: StoredTomorrowForecast(reader: reader, station: station, region: region))
        }
        let seoulInputs = try await monitor(.seoul).inputs(at: Self.at(18))
        #expect(seoulInputs.values[.forecastTomorrowPM25] == 4)
        #expect(try await monitor(.seoul).evaluate(at: Self.at(18)).map(\.kind) == [.fired])
        let stored = try #require(try await scratch.store.recentAlertEvents(limit: 1).first?.event)
        #expect(stored.title(in: .en) == "FineDust: tomorrow's PM2.5 forecast 매우나쁨 (very bad)")
        #expect(try await monitor(.yeongdong).inputs(at: Self.at(18)).values[.forecastTomorrowPM25] == 1)
        // 종로구 without a stored address or province: no region, so no value (and no error).
        #expect(try await monitor(nil).inputs(at: Self.at(18)).values[.forecastTomorrowPM25] == nil)
    }

    @Test("outlook.high.days >= 1 on the weekly outlook: fires once for 서울 (2 days 높음), not again, clears once when a newer one is all 낮음")
    func outlookRule() async throws {
        let scratch = try Scratch()
        let page = try AirKoreaResponseParser().parseWeeklyOutlooks(try TestFixtures.data("synthesized/weekly-outlook-2026-11-20.xml"))
        let published = try #require(page.outlooks.first)
        _ = try await scratch.store.saveWeeklyOutlook(published, fetchedAt: Self.at(18))
        let reader = ForecastReader(store: scratch.store, timeZone: seoul.timeZone)
        let rule = try AlertRule(parsing: "outlook.high.days >= 1")
        func monitor(_ region: ForecastRegion, now: Date) throws -> AlertMonitor {
            AlertMonitor(
                rules: [rule], quietHours: nil, store: scratch.store,
                statistics: scratch.statistics(model: try VentilationIntakeModel(), now: now),
                forecast: StoredTomorrowForecast(reader: reader, station: "종로구", region: region))
        }
        #expect(try await monitor(.busan, now: Self.at(18)).inputs(at: Self.at(18)).values[.outlookHighDays] == 0)
        #expect(try await monitor(.seoul, now: Self.at(18)).inputs(at: Self.at(18)).values[.outlookHighDays] == 2)
        #expect(try await monitor(.seoul, now: Self.at(18)).evaluate(at: Self.at(18)).map(\.kind) == [.fired])
        let stored = try #require(try await scratch.store.recentAlertEvents(limit: 1).first?.event)
        #expect(stored.title(in: .en) == "FineDust: 2 of the weekly outlook's days 높음 (high) for PM2.5")
        #expect(try await monitor(.seoul, now: Self.at(19)).evaluate(at: Self.at(19)).isEmpty, "no repeat while it holds")
        // The next day's publication marks every day 낮음: it replaces the one before, and the alert clears once.
        var next = published
        next.publishedOn = published.publishedOn.adding(days: 1)
        next.days = published.days.map { day in
            var low = day
            low.date = day.date.adding(days: 1)
            low.byRegion = low.byRegion.mapValues { _ in .known(.low) }
            return low
        }
        _ = try await scratch.store.saveWeeklyOutlook(next, fetchedAt: Self.at(20))
        #expect(try await monitor(.seoul, now: Self.at(20)).evaluate(at: Self.at(20)).map(\.kind) == [.cleared])
        #expect(try await monitor(.seoul, now: Self.at(21)).evaluate(at: Self.at(21)).isEmpty, "no repeat of the clearing")
    }

    @Test("outlook.high.days takes a number of days, not a grade word")
    func outlookRuleParsing() throws {
        #expect(try AlertRule(parsing: "outlook.high.days >= 2").description == "outlook.high.days >= 2")
        #expect(throws: AlertRuleError("\"나쁨\" is not a number of days (0–4)")) { try AlertRule(parsing: "outlook.high.days >= 나쁨") }
    }

    @Test("A failing sink is retried with doubling waits, then recorded as failed; another sink is not held up")
    func retries() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(
                kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3,
                station: "종로구", at: Self.at(10)))
        let clock = ManualClock(Self.at(10))
        let dead = RecordingSink(name: "dead", failures: 99)
        let flaky = RecordingSink(name: "flaky", failures: 2)
        let good = RecordingSink(name: "good")
        let dispatcher = AlertDispatcher(
            sinks: [dead, flaky, good], store: scratch.store,
            policy: AlertRetryPolicy(maxAttempts: 4, initialDelay: .seconds(30)), clock: clock)
        let results = await runAdvancing(clock) { await dispatcher.deliver(event) }
        #expect(results.map(\.sink) == ["dead", "flaky", "good"])
        #expect(results.map(\.outcome) == [.failed, .delivered, .delivered])
        #expect(results.map(\.attempt) == [4, 3, 1])
        #expect(good.events.count == 1 && flaky.events.count == 1 && dead.events.isEmpty)
        // dead: 30, 60, 120 s; flaky: 30, 60 s.
        #expect(clock.requestedSleeps.sorted() == [30, 30, 60, 60, 120])
        let deliveries = try #require(try await scratch.store.recentAlertEvents(limit: 1).first).deliveries
        // The record each delivery begins with (attempt 0), then one per attempt.
        #expect(deliveries.filter { $0.sink == "dead" }.map(\.outcome) == [.retrying, .retrying, .retrying, .retrying, .failed])
        #expect(deliveries.filter { $0.sink == "flaky" }.map(\.outcome) == [.retrying, .retrying, .retrying, .delivered])
        // What a sink said is stored without its terminal escapes.
        #expect(deliveries.first { $0.sink == "dead" }?.detail?.contains("\u{1B}") == false)
    }

    @Test("A rise still being retried gives way to its clearing: the sink never gets the rise after the clearing")
    func superseded() async throws {
        let scratch = try Scratch()
        let rise = try await scratch.store.saveAlertEvent(
            AlertEvent(
                kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3,
                station: "종로구", at: Self.at(10)))
        let newest = Mutex<Int64>(rise.id)
        let clock = ManualClock(Self.at(10))
        let dispatcher = AlertDispatcher(
            sinks: [RecordingSink(name: "down", failures: 99)], store: scratch.store,
            policy: AlertRetryPolicy(maxAttempts: 5, initialDelay: .seconds(30)), clock: clock)
        let task = Task {
            await dispatcher.deliver(rise) { newest.withLock { $0 } == rise.id ? nil : "a newer alert of the same rule replaced it" }
        }
        #expect(try await clock.waitUntilSleeping())
        newest.withLock { $0 = rise.id + 1 }  // the clearing arrives during the wait
        clock.advance(by: 30)
        let results = await task.value
        #expect(results.map(\.outcome) == [.failed])
        #expect(results.map(\.attempt) == [1])
        #expect(results.first?.detail?.hasSuffix("a newer alert of the same rule replaced it") == true)
    }

    @Test("A sink's Retry-After is waited for when longer than the backoff, at most an hour; a shorter one changes nothing")
    func retryAfterHonoured() async throws {
        for (asked, waited) in [(600, 600), (2 * 86_400, 3600), (5, 30)] {
            let scratch = try Scratch()
            let event = try await scratch.store.saveAlertEvent(
                AlertEvent(kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: Self.at(10)))
            let clock = ManualClock(Self.at(10))
            let dispatcher = AlertDispatcher(
                sinks: [LimitedSink(asking: .seconds(asked))], store: scratch.store,
                policy: AlertRetryPolicy(maxAttempts: 3, initialDelay: .seconds(30)), clock: clock)
            let task = Task { await dispatcher.deliver(event) }
            #expect(try await clock.waitUntilSleeping())
            #expect(clock.deadlines == [Self.at(10).addingTimeInterval(TimeInterval(waited))], "asked \(asked) s")
            clock.advance(by: TimeInterval(waited))
            #expect(await task.value.map(\.outcome) == [.delivered])
        }
    }

    @Test("Stopping dustd ends the wait before a retry; the delivery stays recorded as retrying, for the next start")
    func cancelledRetry() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(
                kind: .cleared, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 2,
                station: "종로구", at: Self.at(10)))
        let clock = ManualClock(Self.at(10))
        let dispatcher = AlertDispatcher(
            sinks: [RecordingSink(name: "dead", failures: 99)], store: scratch.store,
            policy: AlertRetryPolicy(maxAttempts: 5, initialDelay: .seconds(3600)), clock: clock)
        let task = Task { await dispatcher.deliver(event) }
        // Asleep: the first attempt has failed and been recorded.
        #expect(try await clock.waitUntilSleeping())
        #expect(clock.deadlines == [Self.at(10).addingTimeInterval(3600)])
        task.cancel()
        let results = await task.value
        #expect(results.map(\.outcome) == [.retrying])
        #expect(results.map(\.attempt) == [1])
        let deliveries = try #require(try await scratch.store.recentAlertEvents(limit: 1).first).deliveries
        #expect(deliveries.map(\.outcome) == [.retrying, .retrying] && deliveries.map(\.attempt).first == 0)
    }

    @Test("Killed during a first attempt while another sink's was recorded: the unfinished sink is resumed at the next start")
    func crashDuringFirstAttempt() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: Self.at(10)))
        let hanging = HangingSink()
        let dispatcher = AlertDispatcher(
            sinks: [RecordingSink(name: "quick"), hanging], store: scratch.store,
            policy: AlertRetryPolicy(maxAttempts: 5, initialDelay: .seconds(30)), clock: ManualClock(Self.at(10)))
        let task = Task { await dispatcher.deliver(event) }
        let deadline = ContinuousClock.now + .seconds(300)
        func recorded() async throws -> [AlertDelivery] { try await scratch.store.recentAlertEvents(limit: 1).first?.deliveries ?? [] }
        while try await !recorded().contains(where: { $0.sink == "quick" && $0.outcome == .delivered })
            || !hanging.started.withLock({ $0 }),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(5))
        }
        // What a kill -9 now leaves: the quick sink delivered, the hanging one begun and unfinished.
        let recent = try await scratch.store.recentAlertEvents(limit: 10)
        let pending = AlertResumption.pending(
            in: recent, rules: ["pm25.grade >= 3"], sinks: ["hanging", "quick"], now: Self.at(10).addingTimeInterval(60))
        #expect(pending.map { "\($0.sink) \($0.lastAttempt)" } == ["hanging 0"])
        task.cancel()
        _ = await task.value
    }

    @Test("Stopping dustd during an attempt leaves the delivery retrying, that attempt not counted: the next start sends it")
    func cancelledAttempt() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(
                kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3,
                station: "종로구", at: Self.at(10)))
        let sink = HangingSink()
        let dispatcher = AlertDispatcher(
            sinks: [sink], store: scratch.store, policy: AlertRetryPolicy(maxAttempts: 5, initialDelay: .seconds(30)),
            clock: ManualClock(Self.at(10)))
        let task = Task { await dispatcher.deliver(event) }
        // Until the attempt is under way: beside the whole suite on two cores the delivery's task once waited
        // over 30 s to run.
        let deadline = ContinuousClock.now + .seconds(300)
        while !sink.started.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(sink.started.withLock { $0 }, "the attempt never began")
        task.cancel()
        let results = await task.value
        #expect(results.map(\.outcome) == [.retrying])
        #expect(results.map(\.attempt) == [0])
        #expect(results.first?.detail == "dustd stopped during this attempt")
        let deliveries = try #require(try await scratch.store.recentAlertEvents(limit: 1).first).deliveries
        #expect(deliveries.map(\.outcome) == [.retrying, .retrying] && deliveries.map(\.attempt).first == 0)
        // The next start takes it up as its first attempt.
        let resumed = try #require(
            await AlertDispatcher(
                sinks: [RecordingSink(name: "hanging")], store: scratch.store,
                policy: AlertRetryPolicy(maxAttempts: 5, initialDelay: .seconds(30)), clock: ManualClock(Self.at(10))
            ).resume(event, sink: "hanging", afterAttempt: 0))
        #expect(resumed.outcome == .delivered && resumed.attempt == 1)
    }

    @Test(
        "A delivery left retrying is taken up after its last attempt: the next attempt is counted on, and a sink no longer configured is skipped"
    )
    func resumed() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(
                kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3,
                station: "종로구", at: Self.at(10)))
        for attempt in 1...2 {
            try await scratch.store.recordAlertDelivery(
                AlertDelivery(
                    eventID: event.id, sink: "flaky", attempt: attempt, at: Self.at(10),
                    outcome: .retrying, detail: "HTTP 503"))
        }
        let sink = RecordingSink(name: "flaky")
        let clock = ManualClock(Self.at(11))
        let dispatcher = AlertDispatcher(sinks: [sink], store: scratch.store, policy: AlertRetryPolicy(maxAttempts: 5), clock: clock)
        let delivery = await dispatcher.resume(event, sink: "flaky", afterAttempt: 2)
        #expect(delivery?.outcome == .delivered && delivery?.attempt == 3)
        #expect(sink.events.map(\.id) == [event.id])
        let deliveries = try #require(try await scratch.store.recentAlertEvents(limit: 1).first).deliveries
        // The resumed attempt is recorded as begun before it is made, then with its outcome.
        #expect(deliveries.map(\.attempt) == [1, 2, 3, 3])
        #expect(deliveries.map(\.outcome) == [.retrying, .retrying, .retrying, .delivered])
        #expect(deliveries[2].detail == AlertDelivery.resumed)
        #expect(await dispatcher.resume(event, sink: "gone", afterAttempt: 1) == nil)
        // The last attempts allowed: failed for good, not retried forever.
        let last = RecordingSink(name: "last", failures: 99)
        let limited = AlertDispatcher(sinks: [last], store: scratch.store, policy: AlertRetryPolicy(maxAttempts: 5), clock: clock)
        #expect(await limited.resume(event, sink: "last", afterAttempt: 4)?.outcome == .failed)
    }

    @Test(
        "An attempt that stops dustd (a crash, an out-of-memory kill) counts: each start goes on from the next, and after the last none is made"
    )
    func resumedAttemptsCount() async throws {
        let scratch = try Scratch()
        let event = try await scratch.store.saveAlertEvent(
            AlertEvent(kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: Self.at(10)))
        let policy = AlertRetryPolicy(maxAttempts: 3)
        // A sink whose every answer stops dustd: the attempt never ends. What each start finds is what the
        // last one recorded before it stopped.
        var attemptsMade = 0
        for _ in 1...5 {
            let recent = try await scratch.store.recentAlertEvents(limit: 5)
            let pending = AlertResumption.pending(
                in: recent, rules: ["pm25.grade >= 3"], sinks: ["deadly"], now: Self.at(10).addingTimeInterval(600))
            guard let resumable = pending.first else { break }
            let dispatcher = AlertDispatcher(
                sinks: [StoppingSink(name: "deadly")], store: scratch.store, policy: policy, clock: ManualClock(Self.at(10)))
            let task = Task { await dispatcher.resume(event, sink: "deadly", afterAttempt: resumable.lastAttempt) }
            // The process ends during the attempt: nothing after it is recorded.
            let ended = await task.value
            if ended?.outcome == .failed { break }
            attemptsMade += 1
        }
        #expect(attemptsMade == 3)
        let deliveries = try #require(try await scratch.store.recentAlertEvents(limit: 1).first).deliveries
        #expect(deliveries.filter { $0.detail == AlertDelivery.resumed }.map(\.attempt) == [1, 2, 3])
        let final = try #require(
            deliveries.max { ($0.attempt, $0.at, $0.outcome == .failed ? 1 : 0) < ($1.attempt, $1.at, $1.outcome == .failed ? 1 : 0) })
        #expect(final.outcome == .failed && final.attempt == 3)
        #expect(final.detail == "dustd stopped during its last attempt (3 of 3)")
    }

    @Test(
        "What a start takes up: the newest event of each configured rule, under 3 hours old, per configured sink left retrying or never tried"
    )
    func resumption() async {
        let now = Self.at(12)
        func event(_ id: Int64, _ kind: AlertEvent.Kind, _ rule: String, hoursAgo: Double) -> AlertEvent {
            AlertEvent(
                id: id, kind: kind, rule: rule, metric: .pm25Grade, value: 3, station: "종로구", at: now.addingTimeInterval(-hoursAgo * 3600))
        }
        func record(_ id: Int64, _ sink: String, _ attempt: Int, _ outcome: AlertDelivery.Outcome) -> AlertDelivery {
            AlertDelivery(eventID: id, sink: sink, attempt: attempt, at: now, outcome: outcome, detail: nil)
        }
        let recent: [(event: AlertEvent, deliveries: [AlertDelivery])] = [
            // rule A: the rise (1) was left retrying, but its clearing (2) is newer and is what counts.
            (event(1, .fired, "A", hoursAgo: 2), [record(1, "x", 1, .retrying)]),
            (
                event(2, .cleared, "A", hoursAgo: 1),
                [
                    record(2, "x", 1, .retrying), record(2, "x", 2, .retrying), record(2, "y", 1, .delivered),
                    record(2, "gone", 1, .retrying),
                ]
            ),
            // rule B: left retrying four hours ago: no longer news.
            (event(3, .fired, "B", hoursAgo: 4), [record(3, "x", 1, .retrying)]),
            // rule C: no longer configured.
            (event(4, .fired, "C", hoursAgo: 0.5), [record(4, "x", 1, .retrying)]),
            // rule D: failed for good on x; y and z have no record beside it: added, or moved in the list
            // (a sink's name says its place), since the event, so not sent old news or sent it again.
            (event(5, .fired, "D", hoursAgo: 0.2), [record(5, "x", 5, .failed), record(5, "x", 4, .retrying)]),
            // a test alert is never resumed.
            (event(6, .test, "", hoursAgo: 0.1), []),
            // rule E: no record at all: dustd stopped before its first attempts, every sink is tried.
            (event(7, .fired, "E", hoursAgo: 0.1), []),
        ]
        let pending = AlertResumption.pending(in: recent, rules: ["A", "B", "D", "E"], sinks: ["x", "y", "z"], now: now)
        #expect(pending.map { "\($0.event.id) \($0.sink) \($0.lastAttempt)" } == ["2 x 2", "7 x 0", "7 y 0", "7 z 0"])
    }
}

/// A sink whose answer stops dustd: the attempt never returns a result. Stands in for the process ending
/// during it by ending the task's work (`deliver` returns nothing the dispatcher records afterwards):
/// it throws a cancellation after cancelling its own task, which the dispatcher treats as dustd stopping.
private struct StoppingSink: AlertSink {
    let name: String

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        withUnsafeCurrentTask { $0?.cancel() }
        throw AlertSinkError("stopped")
    }
}
