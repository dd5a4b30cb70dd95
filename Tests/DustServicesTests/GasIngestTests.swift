import AirKorea
import DustKit
import DustServices
import Foundation
import TestSupport
import Testing

/// The ingest path carries the gases as it carries PM (docs/REFERENCE.md §17).
@Suite("Ingest: gases through parse, the duplicate-slot merge and the store", .timeLimit(.minutes(10)))
struct GasIngestTests {
    private func body(_ items: [String]) -> Data {
        let items = items.map { "<item><stationName>종로구</stationName><dataTime>2026-11-20 10:00</dataTime>\($0)</item>" }
        return Data(
            ("<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
                + items.joined()
                + "</items><numOfRows>10</numOfRows><pageNo>1</pageNo><totalCount>\(items.count)</totalCount></body></response>")
                .utf8)
    }

    @Test("Two items for one hour: the last one's gases are stored; a later answer without gas elements keeps them")
    func duplicateSlotAndMissingElements() async throws {
        let scratch = try Scratch()
        let ingest = IngestService(store: scratch.store, clock: FixedClock(DemoReplay.now))
        let first = try await ingest.ingest(
            body([
                "<pm10Value>40</pm10Value><o3Value>0.040</o3Value><coValue>0.5</coValue><khaiValue>80</khaiValue><khaiGrade>2</khaiGrade>",
                "<pm10Value>40</pm10Value><o3Value>0.095</o3Value><coValue>0.6</coValue><khaiValue>160</khaiValue><khaiGrade>3</khaiGrade>",
            ]), requestedStation: nil)
        #expect(first.duplicateItems == 1)
        #expect(first.stored == UpsertSummary(inserted: 1))
        let slot = Scratch.slot(november20, hour: 9)
        let revision = try await ingest.ingest(body(["<pm10Value>41</pm10Value>"]), requestedStation: nil)
        #expect(revision.stored == UpsertSummary(updated: 1))
        let stored = try await scratch.store.readings(stations: ["종로구"], from: slot, to: slot.advanced(by: 1))
        #expect(stored.first?.concentration.fineDust == 41)
        #expect(stored.first?.gases.ppm == GasValues(o3: 0.095, no2: nil, co: 0.6, so2: nil))
        #expect(stored.first?.gases.cai == 160 && stored.first?.gases.caiGrade == .bad)
        #expect(try await scratch.store.revision(station: "종로구", slot: slot) == 1)
    }
}
