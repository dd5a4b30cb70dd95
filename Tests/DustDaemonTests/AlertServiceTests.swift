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
    @Test("A day's dose past its threshold is news of its day: its retries end at midnight KST; other alerts and clearings go on")
    func dayDoseEndsWithItsDay() throws {
        var settings = try SettingsLoader(environment: [:], workingDirectory: "/nonexistent").load(configurationFile: nil)
        settings.alerts.rules = try ["intake.today.pm25 > 50", "pm25.grade >= 3", "intake.today.pm25 < 20"].map {
            try AlertRule(parsing: $0)
        }
        // 2026-11-20 23:59 KST.
        let clock = ManualClock(instant("2026-11-20T23:59:00+09:00"))
        let service = AlertService(
            live: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!),
            database: DaemonDatabase(SQLiteStore.scratch(), logger: LogCapture().logger()),
            dispatcher: AlertDispatcher(sinks: [], store: SQLiteStore.scratch()), triggers: AsyncStream { nil }, clock: clock,
            logger: LogCapture().logger())
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
}
