import DustKit
import DustServices
import Prometheus

/// The latest known hour of each gas and of AirKorea's integrated index per configured station
/// (docs/REFERENCE.md §17); an unknown value gives no sample.
struct GasCollector: GaugeCollector {
    let statistics: StatisticsService
    let settings: WebData.ReportSettings

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        let stored = try await statistics.recentReadings(stations: settings.stations.all)
        for station in settings.stations.all {
            for gas in Gas.allCases {
                guard let value = stored.last(where: { $0.station == station && $0.gases.ppm[gas] != nil })?.gases.ppm[gas] else {
                    continue
                }
                registry.makeGauge(descriptor: Self.ppm, labels: [("station", station), ("gas", gas.rawValue)]).set(to: value)
            }
            if let index = stored.last(where: { $0.station == station && $0.gases.cai != nil })?.gases.cai {
                registry.makeGauge(descriptor: Self.cai, labels: [("station", station)]).set(to: Double(index))
            }
        }
    }

    // ppm is a ratio, not a base unit Prometheus names; the family keeps the name people search for.
    private static var ppm: MetricNameDescriptor {
        .fineDust("gas", "ppm", "The latest known hourly gas concentration in ppm (parts per million by volume).")
    }
    private static var cai: MetricNameDescriptor {
        .fineDust("cai", "", "AirKorea's integrated air-quality index (통합대기환경지수, 0–500) of the latest hour that had one.")
    }
}
