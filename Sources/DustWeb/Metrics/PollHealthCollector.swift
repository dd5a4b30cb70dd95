import DustServices
import Prometheus

/// dustd's health as `dustctl status` judges it: the last successful poll, the age of the newest stored hour,
/// and whether the data is stale.
struct PollHealthCollector: GaugeCollector {
    let data: WebData

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        let health = try await data.health()
        if let success = health.status?.lastSuccess {
            registry.makeGauge(descriptor: Self.lastSuccess).set(to: success.at.timeIntervalSince1970)
        }
        if let age = health.dataAge {
            registry.makeGauge(descriptor: Self.dataAge).set(to: age.rounded())
        }
        registry.makeGauge(descriptor: Self.dataStale).set(to: health.stale ? 1.0 : 0.0)
    }

    private static var lastSuccess: MetricNameDescriptor {
        .fineDust("last_success_timestamp", "seconds", "When dustd's last poll succeeded (unix seconds).")
    }
    private static var dataAge: MetricNameDescriptor { .fineDust("data_age", "seconds", "How long ago the newest stored hour ended.") }
    private static var dataStale: MetricNameDescriptor {
        .fineDust("data_stale", "", "1 when nothing new arrived for 3 hours (or nothing is stored), else 0.")
    }
}
