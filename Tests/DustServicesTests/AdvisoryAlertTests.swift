import AirKorea
import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@Suite("advisory.level: the alert metric of the advisories in force for the user's district", .timeLimit(.minutes(10)))
struct AdvisoryAlertTests {
    /// 2026-11-20 at `hour`:05 KST.
    static func at(_ hour: Int) -> Date { instant(kst: "2026-11-20T00:05:00").addingTimeInterval(Double(hour * 3600)) }

    @Test("advisory.level >= 1 fires once when the 주의보 is issued, stays through the 경보, clears once when the 경보 is cleared")
    func firesOnceClearsOnce() async throws {
        let scratch = try Scratch()
        // 종로구's district comes from its stored sidoName (서울).
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let rule = try AlertRule(parsing: "advisory.level >= 주의보")
        #expect(rule.description == "advisory.level >= 1")
        let level = StoredAdvisoryLevel(reader: AdvisoryReader(store: scratch.store), district: nil, area: "도심권", station: "종로구")
        let monitor = AlertMonitor(
            rules: [rule], quietHours: nil, store: scratch.store,
            statistics: scratch.statistics(model: try VentilationIntakeModel(), now: Self.at(8)), advisories: level)
        let watch = Advisory(
            pollutant: .pm10, key: "86", district: "서울", area: "도심권", level: .watch, issuedAt: instant(kst: "2026-11-20T09:00:00"))
        let warning = Advisory(
            pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: instant(kst: "2026-11-20T13:00:00"))
        // Another district's 경보 never counts.
        let elsewhere = Advisory(
            pollutant: .pm25, key: "9", district: "경기", area: nil, level: .warning, issuedAt: instant(kst: "2026-11-20T07:00:00"))
        _ = try await scratch.store.saveAdvisories([elsewhere], fetchedAt: Self.at(7))

        var kinds: [String] = []
        func step(_ hour: Int, _ advisories: [Advisory]) async throws {
            _ = try await scratch.store.saveAdvisories(advisories, fetchedAt: Self.at(hour))
            let events = try await monitor.evaluate(at: Self.at(hour))
            kinds += events.map { "\(hour):\($0.kind.rawValue):\(Int($0.value ?? -1))" }
        }
        try await step(8, [])
        #expect(try await monitor.inputs(at: Self.at(8)).values[.advisoryLevel] == 0)
        try await step(9, [watch])
        try await step(
            13,
            [
                {
                    var cleared = watch
                    cleared.clearedAt = instant(kst: "2026-11-20T13:00:00")
                    return cleared
                }(), warning,
            ])
        #expect(try await monitor.inputs(at: Self.at(13)).values[.advisoryLevel] == 2)
        try await step(15, [])
        try await step(
            20,
            [
                {
                    var cleared = warning
                    cleared.clearedAt = instant(kst: "2026-11-20T20:00:00")
                    return cleared
                }()
            ])
        try await step(21, [])
        #expect(kinds == ["9:fired:1", "20:cleared:0"])
        let stored = try await scratch.store.recentAlertEvents(limit: 10).map(\.event)
        #expect(stored.last?.title(in: .en) == "FineDust: advisory 주의보 (watch) in force")
        #expect(stored.first?.message(in: .en) == "No longer advisory.level >= 1 at 종로구: now no advisory in force.")
    }

    @Test("No district known (no station's 시도, no advisories.district): no value, no alert, no error")
    func unknownDistrict() async throws {
        let scratch = try Scratch()
        let level = StoredAdvisoryLevel(reader: AdvisoryReader(store: scratch.store), district: nil, area: nil, station: "종로구")
        #expect(try await level.level(at: Self.at(9)) == nil)
        let configured = StoredAdvisoryLevel(reader: AdvisoryReader(store: scratch.store), district: "부산", area: nil, station: nil)
        #expect(try await configured.level(at: Self.at(9)) == 0)
    }

    @Test("Rules: a level is 0–3 or its word; anything else names the levels")
    func parsing() throws {
        #expect(try AlertRule(parsing: "advisory.level >= 경보").threshold == 2)
        #expect(try AlertRule(parsing: "advisory.level == 0").threshold == 0)
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "advisory.level >= 4") }
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "advisory.level >= 1.5") }
        do {
            _ = try AlertRule(parsing: "advisory.level >= 나쁨")
        } catch {
            #expect(error.description.contains("1 (주의보), 2 (경보)"))
        }
    }
}
