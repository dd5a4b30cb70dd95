import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

@Suite("The user's forecast region (docs/REFERENCE.md §14)")
struct ForecastRegionOverrideTests {
    /// 중구 where the table places it (서울), 어딘가 in a province the table does not know.
    func store() async throws -> MemoryStore {
        let store = MemoryStore()
        let slot = Slot(containing: instant(kst: "2026-11-22T10:30:00"))
        try await store.saveReadings(
            ["중구": "서울", "어딘가": "Atlantis"].map { station, sido in
                HourlyReading(station: station, slot: slot, concentration: DustPair(fineDust: 40, ultraFineDust: 20), sidoName: sido)
            }, fetchedAt: Date())
        try await store.saveStations([Station(name: "중구", address: "서울 중구 덕수궁길 15")], at: Date())
        return store
    }

    @Test("forecast.region overrides the table, even for a station the table could place")
    func overrideWins() async throws {
        let reader = ForecastReader(store: try await store(), timeZone: KoreaStandardTime.timeZone)
        #expect(try await reader.region(station: "중구", override: .incheon) == .incheon)
        #expect(try await reader.region(station: "어딘가", override: .yeongdong) == .yeongdong)
        #expect(try await reader.region(station: "중구", override: nil) == .seoul)
    }

    @Test("Without forecast.region, a province the table does not know asks for it")
    func noOverride() async throws {
        let reader = ForecastReader(store: try await store(), timeZone: KoreaStandardTime.timeZone)
        await #expect(throws: ForecastReadError.region(.unknownStation(sido: "Atlantis"))) {
            try await reader.region(station: "어딘가", override: nil)
        }
    }
}
