import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("The user's forecast region (docs/REFERENCE.md §14)", .timeLimit(.minutes(10)))
struct ForecastRegionOverrideTests {
    /// 중구 placed by its address (Seoul); 어딘가 in a province the table does not know.
    func store() async throws -> SQLiteStore {
        let store = SQLiteStore.scratch()
        let slot = Slot(containing: instant(kst: "2026-11-20T10:30:00"))
        _ = try await store.saveReadings(
            [HourlyReading(station: "어딘가", slot: slot, concentration: DustPair(fineDust: 30, ultraFineDust: 12), sidoName: "Atlantis")],
            fetchedAt: instant(kst: "2026-11-20T11:10:00"))
        try await store.saveStations([Station(name: "중구", address: "서울 중구 덕수궁길 15")], at: instant(kst: "2026-11-20T11:10:00"))
        return store
    }

    @Test("forecast.region overrides the table, even for a station the table could place")
    func overrideWins() async throws {
        let reader = await ForecastReader(store: try store(), timeZone: KoreaStandardTime.timeZone)
        #expect(try await reader.region(station: "중구", override: .incheon) == .incheon)
        #expect(try await reader.region(station: "어딘가", override: .yeongdong) == .yeongdong)
        #expect(try await reader.region(station: "중구", override: nil) == .seoul)
    }

    @Test("Without forecast.region, a province the table does not know asks for it")
    func noOverride() async throws {
        let reader = await ForecastReader(store: try store(), timeZone: KoreaStandardTime.timeZone)
        await #expect(throws: ForecastReadError.region(.unknownStation(sido: "Atlantis"))) {
            try await reader.region(station: "어딘가", override: nil)
        }
    }
}
