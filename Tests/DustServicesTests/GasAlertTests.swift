import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

/// The gas and index alert metrics (docs/REFERENCE.md §17): `o3.grade`, `no2.grade`, `co.grade`, `so2.grade`, `khai.grade`.
@Suite("Alerts on the gases and the index", .timeLimit(.minutes(10)))
struct GasAlertTests {
    /// Stores the hour starting at `hour` with PM and the given gases.
    static func store(_ gases: GasReading, hour: Int, in scratch: Scratch) async throws {
        _ = try await scratch.store.saveReadings(
            [
                HourlyReading(
                    station: "종로구", slot: Scratch.slot(november20, hour: hour),
                    concentration: DustPair(fineDust: 40, ultraFineDust: 20), gases: gases)
            ], fetchedAt: AlertTests.at(hour + 1))
    }

    static func ozone(_ ppm: Double?, cai: Int? = nil, caiGrade: DustGrade? = nil) -> GasReading {
        GasReading(ppm: GasValues(o3: ppm, no2: 0.02, co: 0.4, so2: 0.003), cai: cai, caiGrade: caiGrade)
    }

    @Test("o3.grade >= 나쁨: one alert when O3 passes 0.090 ppm, none while it stays, one when it clears; a restart repeats nothing")
    func ozoneRisesAndClears() async throws {
        let scratch = try Scratch()
        // O3 by hour from 12:00: 0.060 보통, 0.091 나쁨, 0.120 나쁨, 0.151 매우나쁨, 0.090 보통, 0.030 좋음.
        let values = [0.060, 0.091, 0.120, 0.151, 0.090, 0.030]
        var kinds: [String] = []
        for (offset, value) in values.enumerated() {
            let hour = 12 + offset
            try await Self.store(Self.ozone(value), hour: hour, in: scratch)
            let events = try await AlertTests.monitor(scratch, rules: ["o3.grade >= 나쁨"], now: AlertTests.at(hour + 1))
                .evaluate(at: AlertTests.at(hour + 1))
            kinds += events.map { "\(hour):\($0.kind.rawValue):\(Int($0.value ?? -1))" }
        }
        #expect(kinds == ["13:fired:3", "16:cleared:2"])
        let stored = try await scratch.store.recentAlertEvents(limit: 10).map(\.event)
        #expect(stored.last?.title(in: .en) == "FineDust: O3 나쁨 (bad)")
        #expect(stored.first?.message(in: .en) == "No longer o3.grade >= 3 at 종로구: now O3 보통 (moderate).")
    }

    @Test("khai.grade >= 3 follows AirKorea's reported index grade: fires once, clears once")
    func indexRisesAndClears() async throws {
        let scratch = try Scratch()
        let hours: [(Int, DustGrade)] = [(150, .bad), (160, .bad), (90, .moderate)]
        var kinds: [String] = []
        for (offset, (index, grade)) in hours.enumerated() {
            let hour = 9 + offset
            try await Self.store(Self.ozone(0.02, cai: index, caiGrade: grade), hour: hour, in: scratch)
            let events = try await AlertTests.monitor(scratch, rules: ["khai.grade >= 3"], now: AlertTests.at(hour + 1))
                .evaluate(at: AlertTests.at(hour + 1))
            kinds += events.map { "\(hour):\($0.kind.rawValue):\(Int($0.value ?? -1))" }
        }
        #expect(kinds == ["9:fired:3", "11:cleared:2"])
        #expect(try await scratch.store.recentAlertEvents(limit: 10).last?.event.title(in: .en) == "FineDust: CAI 나쁨 (bad)")
    }

    @Test("Inputs: each gas's CAI grade and the index grade of the latest hour with gases, only while under 3 hours old")
    func inputs() async throws {
        let scratch = try Scratch()
        var gases = GasReading(ppm: GasValues(o3: 0.031, no2: 0.061, co: 15.01, so2: nil), cai: 180, caiGrade: .bad)
        gases.flag.so2 = "통신장애"
        try await Self.store(gases, hour: 10, in: scratch)
        let monitor = try AlertTests.monitor(scratch, rules: ["so2.grade >= 2"], now: AlertTests.at(11))
        let values = try await monitor.inputs(at: AlertTests.at(11)).values
        #expect(values[.o3Grade] == 2)
        #expect(values[.no2Grade] == 3)
        #expect(values[.coGrade] == 4)
        #expect(values[.so2Grade] == nil, "a flagged SO2 is unknown, not good")
        #expect(values[.khaiGrade] == 3)
        let later = try await AlertTests.monitor(scratch, rules: [], now: AlertTests.at(14)).inputs(at: AlertTests.at(14)).values
        #expect(later[.o3Grade] == nil && later[.khaiGrade] == nil)
        #expect(try AlertRule(parsing: "no2.grade >= 매우나쁨") == AlertRule(metric: .no2Grade, comparison: .atLeast, threshold: 4))
        #expect(try AlertRule(parsing: "co.grade > 2").metric == .coGrade)
    }
}
