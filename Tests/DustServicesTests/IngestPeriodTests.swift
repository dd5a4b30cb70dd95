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

    @Test(
        "The first hour kept is 2000-01-01 00:00–01:00 KST: 1999-12-31 24:00 and the old 2000-01-01 00:00 name the hour before and are refused"
    )
    func lowerBound() async throws {
        // Each stamp names the hour ending at it: 20:00 … 24:00 of 1999-12-31 and 2000-01-01 00:00 are hours of
        // 1999-12-31 (the last two the same hour, 23:00–24:00 KST); 2000-01-01 01:00 is the first hour of 2000.
        let stamps = ["1999-12-31 19:00", "1999-12-31 20:00", "1999-12-31 24:00", "2000-01-01 00:00", "2000-01-01 01:00"]
        let body = Data(
            ("<response><header><resultCode>00</resultCode></header><body><items>"
                + stamps.map(Self.item).joined() + "</items></body></response>").utf8)
        let store = SQLiteStore.scratch()
        let report = try await IngestService(store: store, clock: FixedClock(DemoReplay.now)).ingest(body, requestedStation: nil)
        #expect(report.readings == 5)
        #expect(report.outOfPeriodItems == 4)
        #expect(report.duplicateItems == 0)
        #expect(report.stored.inserted == 1)
        let stored = try await store.readings(
            stations: ["종로구"], from: Slot(containing: SupportedPeriod.earliestInstant),
            to: Slot(containing: instant(kst: "2000-01-02T00:00:00")))
        #expect(stored.map(\.slot) == [Slot(containing: instant(kst: "2000-01-01T00:00:00"))])
        #expect(IngestService.firstSlotStart == instant(kst: "2000-01-01T00:00:00"))
    }

    @Test(
        "1999-12-31 24:00 alone, and 2000-01-01 00:00 alone, store nothing and are counted before 2000",
        arguments: ["1999-12-31 24:00", "2000-01-01 00:00"])
    func lastHourOf1999(stamp: String) async throws {
        let body = Data(
            ("<response><header><resultCode>00</resultCode></header><body><items>" + Self.item(stamp) + "</items></body></response>").utf8)
        let store = SQLiteStore.scratch()
        let report = try await IngestService(store: store, clock: FixedClock(DemoReplay.now)).ingest(body, requestedStation: nil)
        #expect(report.outOfPeriodItems == 1)
        #expect(report.stored.inserted == 0)
        #expect(try await store.readingCount(station: nil) == 0)
        #expect(report.skippedSummary == ", 1 items dated before 2000-01-01 skipped")
    }
}
