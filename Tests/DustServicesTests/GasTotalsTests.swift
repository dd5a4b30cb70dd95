import AirKorea
import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

/// A day's gases and index (docs/REFERENCE.md §17): hours, mean, max and the grade of the max hour.
@Suite("Gas day totals by hand", .timeLimit(.minutes(10)))
struct GasTotalsTests {
    private func reading(_ station: String, hour: Int, o3: Double?, co: Double?, cai: Int?, caiGrade: DustGrade?) -> HourlyReading {
        HourlyReading(
            station: station, slot: Scratch.slot(november20, hour: hour), concentration: DustPair(fineDust: 40, ultraFineDust: 20),
            gases: GasReading(ppm: GasValues(o3: o3, no2: nil, co: co, so2: nil), cai: cai, caiGrade: caiGrade))
    }

    @Test("Four 종로구 hours: O3 mean 0.05, max 0.095 (나쁨); CO two hours; the index's max with its reported grade")
    func dayTotals() async throws {
        let scratch = try Scratch()
        _ = try await scratch.store.saveReadings(
            [
                reading("종로구", hour: 10, o3: 0.020, co: 0.5, cai: 55, caiGrade: .moderate),
                reading("종로구", hour: 11, o3: 0.035, co: nil, cai: 120, caiGrade: .bad),
                reading("종로구", hour: 12, o3: 0.095, co: 0.7, cai: 120, caiGrade: .veryBad),
                reading("종로구", hour: 13, o3: 0.050, co: nil, cai: nil, caiGrade: nil),
                // A fallback's gases never enter the primary station's day.
                reading("중구", hour: 14, o3: 0.300, co: 20, cai: 400, caiGrade: .veryBad),
            ], fetchedAt: DemoReplay.now)
        let stations = StationPreference(primary: "종로구", fallbacks: ["중구"])
        let day = try await scratch.statistics(model: try VentilationIntakeModel(), stations: stations).day(november20)
        let totals = day.gasTotals
        #expect(totals.gases.o3.hours == 4)
        #expect(abs(totals.gases.o3.mean! - 0.05) < 1e-12)
        #expect(totals.gases.o3.max == 0.095)
        #expect(totals.gases.o3.maxGrade == .bad)
        #expect(totals.gases.co == GasTotals.GasTotal(hours: 2, mean: 0.6, max: 0.7, maxGrade: .good))
        #expect(totals.gases.no2 == GasTotals.GasTotal(hours: 0, mean: nil, max: nil, maxGrade: nil))
        #expect(totals.cai == GasTotals.IndexTotal(hours: 3, mean: 295.0 / 3, max: 120, maxGrade: .bad))
        #expect(day.hourly.count == 5)
        #expect(day.hourly[4].gases.ppm.o3 == nil, "the 14:00 hour has PM from 중구, no gases")
        #expect(day.latestGases?.slot == Scratch.slot(november20, hour: 13))
    }

    @Test("The demo's 종로구 day: the synthesized gases in 23 hours, the 점검및교정 hour's flagged gases unknown")
    func demoDay() async throws {
        let scratch = try Scratch()
        try await scratch.importFixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml")
        let day = try await scratch.statistics(model: try VentilationIntakeModel()).day(november20)
        #expect(day.gasTotals.gases.o3.hours == 23)
        #expect(abs(day.gasTotals.gases.o3.mean! - 0.0184) < 1e-12)
        #expect(day.gasTotals.gases.o3.max == 0.0184 && day.gasTotals.gases.o3.maxGrade == .good)
        #expect(day.gasTotals.gases.co.hours == 23)
        #expect(day.hourly[5].gases.flag.o3 == "점검및교정")
        #expect(day.gasTotals.cai.hours == 23)
        #expect(day.gasTotals.cai.max == 62)
    }
}
