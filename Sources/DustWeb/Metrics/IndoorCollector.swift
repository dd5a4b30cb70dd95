import DustKit
import DustServices
import Prometheus

/// Each indoor sensor's value now, per pollutant (docs/REFERENCE.md §21): `finedust_indoor_ug_m3`. A
/// sensor without a standing sample (silent, unknown values) has no series, as a station without an hour.
struct IndoorCollector: GaugeCollector {
    let data: WebData

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        for sample in try await data.indoorNow() {
            for pollutant in Pollutant.allCases {
                guard let value = sample.value[pollutant] else { continue }
                registry.makeGauge(descriptor: Self.indoor, labels: [("sensor", sample.sensor), ("pollutant", pollutant.rawValue)])
                    .set(to: value)
            }
        }
    }

    private static var indoor: MetricNameDescriptor {
        .fineDust("indoor", "ug_m3", "An indoor monitor's latest sample in µg/m³ (within 5 minutes; a Home Assistant state within 60).")
    }
}
