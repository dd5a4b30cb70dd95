import DustServices
import Prometheus

/// One concern's gauges, computed from the stored state at each scrape into a registry made for that scrape
/// (as node_exporter's collectors are), so a gauge whose subject is gone (a station removed by a reload,
/// yesterday's forecast) is simply not there.
protocol GaugeCollector: Sendable {
    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure)
}

extension MetricNameDescriptor {
    /// A FineDust gauge: `finedust_` + name + unit (base units, Prometheus' suffixes), with its help.
    /// (A function, not a constant: swift-prometheus' descriptor is not `Sendable`.)
    static func fineDust(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "finedust", metricName: metric, unitName: unit, helpText: help)
    }
}
