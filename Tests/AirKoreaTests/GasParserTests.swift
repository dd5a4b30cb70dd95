import DustKit
import Foundation
import TestSupport
import Testing

@testable import AirKorea

/// Gases and the CAI as station and province answers carry them (docs/REFERENCE.md §17).
@Suite("Gases and the integrated index are read beside PM", .timeLimit(.minutes(10)))
struct GasParserTests {
    @Test("The real 강남구 ver1.5 capture: four-decimal ppm, the index and its grade, empty flags")
    func gangnamCapture() throws {
        let page = try parse("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml")
        let bySlot = Dictionary(uniqueKeysWithValues: page.readings.map { ($0.slot, $0) })
        let noon = try #require(bySlot[slot("2026-08-21T11:00:00+09:00")])
        #expect(noon.gases.ppm == GasValues(o3: 0.0109, no2: 0.0196, co: 0.46, so2: 0.0022))
        #expect(noon.gases.flag == GasValues(repeating: nil))
        #expect(noon.gases.cai == 82)
        #expect(noon.gases.caiGrade == .moderate)
        #expect(noon.gases.grade == GasValues(repeating: .good))
        #expect(noon.gases.reported == .all)
        let midnight = try #require(bySlot[slot("2026-08-20T23:00:00+09:00")])
        #expect(midnight.gases.ppm.co == 0.56)
        #expect(midnight.gases.cai == 97)
    }

    @Test("A real ver-less 서울 province answer and a real ver1.3 station answer carry gases: they are read")
    func olderAnswersWithGases() throws {
        let seoul = try parse("real/rltm-sido-newapi-seoul-nover-2023-05-31-truncated.xml")
        let junggu = try #require(seoul.readings.first { $0.station == "중구" })
        #expect(junggu.gases.ppm == GasValues(o3: 0.028, no2: 0.026, co: 0.4, so2: 0.003))
        #expect(junggu.gases.cai == 47)
        #expect(junggu.gases.caiGrade == .good)
        let old = try parse("real/rltm-station-oldapi-ver1.3-2020-01-22-numOfRows1.xml", station: "종로구")
        #expect(old.readings.first?.gases.ppm == GasValues(o3: 0.003, no2: 0.065, co: 0.8, so2: 0.003))
        #expect(old.readings.first?.gases.grade.no2 == .bad)
        #expect(old.readings.first?.gases.caiGrade == .bad)
    }

    @Test("An old answer whose index is `-` and whose grade is empty: the index unknown, the gases known")
    func oldDashIndex() throws {
        let page = try parse("synthesized/wrapped-oldapi-dash-values-2018-05-03.xml", station: "종로구")
        let reading = try #require(page.readings.first)
        #expect(reading.gases.ppm == GasValues(o3: 0.054, no2: 0.005, co: 0.4, so2: 0.003))
        #expect(reading.gases.cai == nil)
        #expect(reading.gases.caiGrade == nil)
        #expect(reading.gases.reported.contains([.cai, .caiGrade]))
    }

    @Test("An old answer without gas elements: gases unknown and not reported, never an error")
    func oldWithoutGases() throws {
        let page = try parse("synthesized/station-oldapi-nostationname-00-hours-2016-01-10.xml", station: "종로구")
        #expect(page.readings.count == 4)
        for reading in page.readings {
            #expect(reading.gases.ppm.o3 == nil && reading.gases.ppm.co == nil && reading.gases.cai == nil)
            #expect(reading.gases.reported == .value(of: .so2))
        }
        #expect(page.readings.first?.gases.ppm.so2 == 0.007)
    }

    @Test("Band edges, `-`, flags with and without a number, implausible values and an index out of range")
    func edgesDashFlagsImplausible() throws {
        let page = try parse("synthesized/station-junggu-ver1.5-gases-dash-flag-implausible-2026-11-20.xml")
        let bySlot = Dictionary(uniqueKeysWithValues: page.readings.map { ($0.slot, $0) })
        let edges = try #require(bySlot[slot("2026-11-20T23:00:00+09:00")])
        #expect(edges.gases.ppm == GasValues(o3: 0.031, no2: 0.030, co: 9.01, so2: 0.151))
        #expect(edges.gases.grade == GasValues(o3: .moderate, no2: .good, co: .bad, so2: .veryBad))
        #expect(edges.gases.cai == nil, "khaiValue 501 is outside 0–500")
        #expect(edges.gases.caiGrade == nil, "khaiGrade 5 is not a grade")
        #expect(edges.gases.reported == .all)

        let dashes = try #require(bySlot[slot("2026-11-20T22:00:00+09:00")])
        #expect(dashes.gases.ppm == GasValues(repeating: nil))
        #expect(
            dashes.gases.flag
                == GasValues(o3: "점검중", no2: nil, co: HourlyReading.implausibleFlag, so2: HourlyReading.implausibleFlag))
        #expect(dashes.gases.reported == .all)

        let flagged = try #require(bySlot[slot("2026-11-20T21:00:00+09:00")])
        #expect(flagged.gases.ppm == GasValues(o3: nil, no2: nil, co: 0.4, so2: 0.020))
        #expect(flagged.gases.flag == GasValues(o3: "장비점검", no2: HourlyReading.implausibleFlag, co: nil, so2: nil))
        #expect(flagged.gases.cai == 120)
        #expect(flagged.gases.caiGrade == .bad)

        let none = try #require(bySlot[slot("2026-11-20T20:00:00+09:00")])
        #expect(none.gases == .unreported)
        #expect(none.concentration == DustPair(fineDust: 43, ultraFineDust: 23))
    }
}
