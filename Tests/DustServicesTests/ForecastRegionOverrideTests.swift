import DustKit
import DustServices
import DustStore
import Foundation
import Testing

@Suite("The user's forecast region (docs/REFERENCE.md §14)")
struct ForecastRegionOverrideTests {
    let store = InMemoryForecastStore(places: [
        "중구": StationLocation(sido: "서울", address: "서울 중구 덕수궁길 15"),
        "어딘가": StationLocation(sido: "Atlantis", address: nil),
    ])

    @Test("forecast.region overrides the table, even for a station the table could place")
    func overrideWins() throws {
        let reader = ForecastReader(store: store, timeZone: KoreaStandardTime.timeZone)
        #expect(try reader.region(station: "중구", override: .incheon) == .incheon)
        #expect(try reader.region(station: "어딘가", override: .yeongdong) == .yeongdong)
        #expect(try reader.region(station: "중구", override: nil) == .seoul)
    }

    @Test("Without forecast.region, a province the table does not know asks for it")
    func noOverride() {
        let reader = ForecastReader(store: store, timeZone: KoreaStandardTime.timeZone)
        #expect(throws: ForecastReadError.region(.unknownStation(sido: "Atlantis"))) {
            try reader.region(station: "어딘가", override: nil)
        }
    }
}
