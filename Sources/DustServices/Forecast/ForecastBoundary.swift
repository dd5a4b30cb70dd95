import AirKorea
import DustKit
import Foundation

/// Where forecasts come from. `AirKoreaClient` is the production source.
public protocol ForecastAPI: Sendable {
    /// Fetches one page of forecasts (`AirKoreaRequest.forecast`).
    func forecasts(_ request: AirKoreaRequest) async throws(FetchError) -> ForecastPage
}

extension AirKoreaClient: ForecastAPI {}
