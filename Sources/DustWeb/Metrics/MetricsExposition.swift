import DustServices
import Prometheus

/// The `/metrics` document (docs/REFERENCE.md §13): what was counted through swift-metrics (the backend's
/// registry), then the gauges each collector reads afresh from the database and the status record, so they
/// always equal what `dustctl` shows.
struct MetricsExposition: Sendable {
    let data: WebData
    /// The registry the process's swift-metrics backend counts into.
    let counters: PrometheusCollectorRegistry

    func text() async throws(StorageFailure) -> String {
        let settings = data.reportSettings
        let statistics = data.statistics()
        let collectors: [any GaugeCollector] = [
            BuildInfoCollector(),
            LatestHourCollector(statistics: statistics, settings: settings),
            IntakeTodayCollector(data: data, settings: settings),
            ForecastCollector(data: data),
            PollHealthCollector(data: data),
            GasCollector(statistics: statistics, settings: settings),
            AdvisoryCollector(data: data),
            IndoorCollector(data: data),
        ]
        let gauges = PrometheusCollectorRegistry()
        for collector in collectors {
            try await collector.collect(into: gauges)
        }
        return counters.emitToString() + gauges.emitToString()
    }
}
