import AirKorea
import DustKit
import Foundation

/// Where AirKorea's measurements come from. `AirKoreaClient` is the production source.
public protocol MeasurementAPI: Sendable {
    /// Fetches one page of measurements.
    func measurements(_ request: AirKoreaRequest) async throws(FetchError) -> FetchedPage
}

extension AirKoreaClient: MeasurementAPI {}
