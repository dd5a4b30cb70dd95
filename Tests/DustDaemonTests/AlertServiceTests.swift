import AirKorea
import DustConfig
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@testable import DustDaemon

@Suite("dustd's alert service: which alerts are still news (docs/ALERTS.md)", .timeLimit(.minutes(10)))
struct AlertServiceTests {
    /// dustd's default settings with these rules and, when given, quiet hours.
    static func settings(rules: [String], quietHours: QuietHours? = nil) throws -> FineDustSettings {
        var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        settings.alerts.rules = try rules.map { try AlertRule(parsing: $0) }
        settings.alerts.quietHours = quietHours
        return settings
    }

    /// The alert service over `store` with no trigger: its `run` resumes what waits, and ends.
    static func service(
        _ settings: FineDustSettings, store: SQLiteStore, dispatcher: AlertDispatcher, clock: ManualClock
    ) -> AlertService {
        AlertService(
            live: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!),
            database: DaemonDatabase(store, logger: LogCapture().logger()), dispatcher: dispatcher,
            triggers: AsyncStream { $0.finish() }, clock: clock, logger: LogCapture().logger())
    }

    @Test("A day's dose past its threshold is news of its day: its retries end at midnight KST; other alerts and clearings go on")
    func dayDoseEndsWithItsDay() throws {
        let settings = try Self.settings(rules: ["intake.today.pm25 > 50", "pm25.grade >= 3", "intake.today.pm25 < 20"])
        // 2026-11-20 23:59 KST.
        let clock = ManualClock(instant("2026-11-20T23:59:00+09:00"))
        let service = Self.service(
            settings, store: SQLiteStore.scratch(), dispatcher: AlertDispatcher(sinks: [], store: SQLiteStore.scratch()), clock: clock)
        let at = instant("2026-11-20T23:30:00+09:00")
        func event(_ kind: AlertEvent.Kind, _ rule: String) throws -> AlertEvent {
            let parsed = try AlertRule(parsing: rule)
            return AlertEvent(kind: kind, rule: parsed.description, metric: parsed.metric, value: 60, station: "종로구", at: at)
        }
        let dose = try event(.fired, "intake.today.pm25 > 50")
        #expect(service.dayEnded(dose) == nil)
        clock.advance(by: 120)  // 00:01 on the 21st
        #expect(service.dayEnded(dose) == "the day of the dose it was about ended")
        #expect(service.dayEnded(try event(.cleared, "intake.today.pm25 > 50")) == nil)
        #expect(service.dayEnded(try event(.fired, "pm25.grade >= 3")) == nil)
        #expect(service.dayEnded(try event(.fired, "intake.today.pm25 < 20")) == nil)
    }

    @Test(
        "Yesterday's dose left retrying by a stop is not sent after midnight: ended, with the reason; the same before midnight is resumed"
    )
    func resumedOnlyWithinItsDay() async throws {
        let settings = try Self.settings(rules: ["intake.today.pm25 > 50"])
        for (now, sent) in [("2026-11-20T23:50:00+09:00", true), ("2026-11-21T00:20:00+09:00", false)] {
            let store = SQLiteStore.scratch()
            let rule = settings.alerts.rules[0]
            let event = try await store.saveAlertEvent(
                AlertEvent(
                    kind: .fired, rule: rule.description, metric: rule.metric, value: 60, station: "종로구",
                    at: instant("2026-11-20T23:30:00+09:00")))
            for attempt in 0...1 {
                try await store.recordAlertDelivery(
                    AlertDelivery(
                        eventID: event.id, sink: "ntfy", attempt: attempt, at: instant("2026-11-20T23:30:00+09:00"), outcome: .retrying,
                        detail: nil))
            }
            let sink = RecordingSink(name: "ntfy")
            let clock = ManualClock(instant(now))
            try await Self.service(
                settings, store: store, dispatcher: AlertDispatcher(sinks: [sink], store: store, clock: clock), clock: clock
            )
            .run()
            #expect(sink.events.map(\.id) == (sent ? [event.id] : []), "\(now)")
            let last = try #require(try await store.recentAlertEvents(limit: 1).first?.deliveries.last)
            #expect(last.outcome == (sent ? .delivered : .failed), "\(now)")
            if !sent { #expect(last.detail == "the day of the dose it was about ended") }
        }
    }

    @Test("A rise left retrying by a stop at 02:58 is not sent at 03:00 inside quiet hours 3–7: it waits for 07:00")
    func resumedNotInQuietHours() async throws {
        let settings = try Self.settings(rules: ["pm25.grade >= 3"], quietHours: QuietHours(fromHour: 3, toHour: 7))
        let rule = settings.alerts.rules[0]
        let store = SQLiteStore.scratch()
        let event = try await store.saveAlertEvent(
            AlertEvent(
                kind: .fired, rule: rule.description, metric: rule.metric, value: 3, station: "종로구",
                at: instant("2026-11-20T02:58:00+09:00")))
        try await store.recordAlertDelivery(
            AlertDelivery(
                eventID: event.id, sink: "ntfy", attempt: 1, at: instant("2026-11-20T02:58:00+09:00"), outcome: .retrying,
                detail: "HTTP 500"))
        let sink = RecordingSink(name: "ntfy")
        let clock = ManualClock(instant("2026-11-20T03:00:20+09:00"))
        let service = Self.service(
            settings, store: store, dispatcher: AlertDispatcher(sinks: [sink], store: store, clock: clock), clock: clock)
        #expect(service.quietUntil(event) == instant("2026-11-20T07:00:00+09:00"))
        #expect(
            service.quietUntil(
                AlertEvent(kind: .cleared, rule: rule.description, metric: rule.metric, value: 2, station: "종로구", at: clock.now)) == nil)
        // The service ends at once (no trigger): the resumed delivery, waiting for 07:00, stays retrying.
        try await service.run()
        #expect(sink.events.isEmpty)
        let last = try #require(try await store.recentAlertEvents(limit: 1).first?.deliveries.last)
        #expect(last.outcome == .retrying && last.attempt == 1, "\(last)")
        clock.advance(by: 4 * 3600)
        #expect(service.quietUntil(event) == nil)
    }

    @Test("A rise whose retry falls in quiet hours 3–7 waits for 07:00; one that a clearing supersedes meanwhile is ended, never sent")
    func retryWaitsOutQuietHours() async throws {
        let settings = try Self.settings(rules: ["pm25.grade >= 3"], quietHours: QuietHours(fromHour: 3, toHour: 7))
        let rule = settings.alerts.rules[0]
        for superseded in [false, true] {
            let store = SQLiteStore.scratch()
            let clock = ManualClock(instant("2026-11-20T02:59:50+09:00"))
            let sink = RecordingSink(name: "ntfy", failures: 1)
            let dispatcher = AlertDispatcher(sinks: [sink], store: store, clock: clock)
            let service = Self.service(settings, store: store, dispatcher: dispatcher, clock: clock)
            let event = try await store.saveAlertEvent(
                AlertEvent(kind: .fired, rule: rule.description, metric: rule.metric, value: 3, station: "종로구", at: clock.now))
            let clearedAt = instant("2026-11-20T04:10:00+09:00")
            let results = await runAdvancing(clock) {
                await dispatcher.deliver(
                    event, endedBy: { superseded && clock.now >= clearedAt ? "a clearing came" : nil },
                    heldUntil: { service.quietUntil(event) })
            }
            if superseded {
                #expect(results.map(\.outcome) == [.failed] && results[0].detail?.hasSuffix("; a clearing came") == true, "\(results)")
                #expect(sink.events.isEmpty)
                #expect(results[0].at < instant("2026-11-20T04:20:00+09:00"), "asked again within 5 minutes: \(results[0].at)")
            } else {
                #expect(results.map(\.outcome) == [.delivered], "\(results)")
                #expect(results[0].at >= instant("2026-11-20T07:00:00+09:00"), "\(results[0].at)")
                #expect(sink.events.count == 1)
            }
        }
    }
}
