// libFuzzer entry point for the AirKorea XML parser (scripts/fuzz.sh builds it with
// -sanitize=fuzzer,address together with the DustKit and AirKorea sources).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(bytes: bytes, count: count)
    let parser = AirKoreaResponseParser()
    // Any result is fine; a crash, a hang or a leak is the bug.
    if let page = try? parser.parseMeasurements(body, requestedStation: "fuzz") {
        precondition(page.readings.allSatisfy { $0.concentration.fineDust.map { $0 >= 0 } ?? true })
        // A gas is unknown or inside what an instrument can measure; the index inside 0–500 (docs/REFERENCE.md §17).
        precondition(
            page.readings.allSatisfy { reading in
                Gas.allCases.allSatisfy { gas in reading.gases.ppm[gas].map { $0 >= 0 && $0.isFinite } ?? true }
                    && (reading.gases.cai.map { (0...500).contains($0) } ?? true)
            })
    }
    for pollutant in [AdvisoryPollutant.pm10, .pm25, .o3] {
        if let page = try? parser.parseAdvisories(body, pollutant: pollutant) {
            precondition(
                page.advisories.allSatisfy { $0.pollutant == pollutant && $0.clearedAt.map { $0.timeIntervalSince1970.isFinite } ?? true })
        }
    }
    if let page = try? parser.parseWeeklyOutlooks(body) {
        precondition(page.outlooks.allSatisfy { $0.days.count <= 4 })
    }
    _ = try? parser.parseStations(body)
    if let page = try? parser.parseForecasts(body) {
        precondition(page.forecasts.allSatisfy { $0.grades.byRegion.count <= ForecastRegion.allCases.count })
    }
    return 0
}
