import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// `dustctl import` and the demo store saved responses through `IngestService` with no request
/// window, but the period rule still holds: nothing before 2000-01-01, nothing more than an hour ahead.
@Suite("Ingest: the supported period holds for saved files too", .timeLimit(.minutes(10)))
struct IngestPeriodTests {
    static func item(_ dataTime: String) -> String {
        "<item><stationName>종로구</stationName><dataTime>\(dataTime)</dataTime><pm10Value>40</pm10Value><pm25Value>20</pm25Value></item>"
    }

    @Test("A saved file: 1900, 0001 and 9999 items are skipped and counted, a 2020 item (outside any poll window) is kept")
    func savedFile() async throws {
        let body = Data(
            ("<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
                + ["1900-01-01 01:00", "0001-01-01 01:00", "9999-12-31 24:00", "2020-02-29 13:00", "2026-11-20 07:00"].map(Self.item)
                .joined()
                + "</items><numOfRows>100</numOfRows><pageNo>1</pageNo><totalCount>5</totalCount></body></response>").utf8)
        let store = SQLiteStore.scratch()
        let report = try await IngestService(store: store, clock: FixedClock(DemoReplay.now)).ingest(body, requestedStation: nil)
        #expect(report.readings == 5)
        #expect(report.outOfPeriodItems == 2)
        #expect(report.futureItems == 1)
        #expect(report.outsideWindowItems == 0)
        #expect(report.stored.inserted == 2)
        #expect(try await store.readingCount(station: nil) == 2)
        #expect(report.skippedSummary == ", 2 items dated before 2000-01-01 skipped, 1 items stamped more than an hour from now skipped")
    }

    @Test("The first instant kept is 2000-01-01 00:00 at UTC+14; an hour earlier is refused")
    func lowerBound() async throws {
        // 2000-01-01 00:00 at UTC+14 is 1999-12-31 19:00 KST: the slot of dataTime 1999-12-31 20:00.
        let body = Data(
            ("<response><header><resultCode>00</resultCode></header><body><items>"
                + ["1999-12-31 19:00", "1999-12-31 20:00"].map(Self.item).joined() + "</items></body></response>").utf8)
        let store = SQLiteStore.scratch()
        let report = try await IngestService(store: store, clock: FixedClock(DemoReplay.now)).ingest(body, requestedStation: nil)
        #expect(report.outOfPeriodItems == 1)
        #expect(report.stored.inserted == 1)
        #expect(KoreaStandardTime.slot(forDataTime: "1999-12-31 20:00")?.start == SupportedPeriod.earliestInstant)
    }
}
