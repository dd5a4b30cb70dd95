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
    }
    _ = try? parser.parseStations(body)
    if let page = try? parser.parseForecasts(body) {
        precondition(page.forecasts.allSatisfy { $0.grades.byRegion.count <= ForecastRegion.allCases.count })
    }
    return 0
}
