import DustKit
import DustServices
import Prometheus

/// The advisories in force for the user's district and 권역 (docs/REFERENCE.md §17), by pollutant and level: every
/// pollutant and known level is exported, 0 when none is in force, so an alert on `> 0` needs no `absent()`; an
/// unknown level word is counted as `unknown`. The district not known (no `advisories.district`, no station's 시도
/// stored) is no gauge, not an error. `finedust_advisory_in_force` labels the pollutant as every other series does
/// (`pm10`, `pm25`, `o3`); `finedust_advisory_active`, with AirKorea's `PM10`, `PM25`, `O3`, is deprecated: kept
/// this release, removed in the next (docs/REFERENCE.md §13).
struct AdvisoryCollector: GaugeCollector {
    let data: WebData

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        guard let inForce = try await data.advisoriesInForce() else { return }
        var counts: [String: Int] = [:]
        for advisory in inForce { counts["\(advisory.pollutant.rawValue) \(advisory.level.name)", default: 0] += 1 }
        for pollutant in AdvisoryPollutant.allCases {
            for level in ["watch", "warning", "emergency", "unknown"] {
                let count = Double(counts["\(pollutant.rawValue) \(level)"] ?? 0)
                registry.makeGauge(descriptor: Self.inForce, labels: [("pollutant", pollutant.rawValue.lowercased()), ("level", level)])
                    .set(to: count)
                registry.makeGauge(descriptor: Self.active, labels: [("pollutant", pollutant.rawValue), ("level", level)]).set(to: count)
            }
        }
    }

    private static var inForce: MetricNameDescriptor {
        .fineDust(
            "advisory_in_force", "",
            "Official advisories in force for your district and area, by pollutant and level (watch 주의보, warning 경보, emergency 중대경보).")
    }

    private static var active: MetricNameDescriptor {
        .fineDust(
            "advisory_active", "",
            "Deprecated (removed in the next release): finedust_advisory_in_force with the pollutant labelled PM10, PM25, O3.")
    }
}
