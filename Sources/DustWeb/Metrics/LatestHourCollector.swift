import DustKit
import DustServices
import Prometheus

/// The latest known hour per configured station and pollutant: its concentration, its grade and when it ended.
struct LatestHourCollector: GaugeCollector {
    let statistics: StatisticsService
    let settings: WebData.ReportSettings

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        let stored = try await statistics.recentReadings(stations: settings.stations.all)
        for station in settings.stations.all {
            for pollutant in Pollutant.allCases {
                guard let reading = stored.last(where: { $0.station == station && $0.concentration[pollutant] != nil }),
                    let value = reading.concentration[pollutant]
                else { continue }
                let labels = [("station", station), ("pollutant", pollutant.rawValue)]
                // Prometheus wants base units: grams per cubic metre (41 µg/m³ is 4.1e-05).
                registry.makeGauge(descriptor: Self.concentration, labels: labels).set(to: value / 1_000_000)
                // The same value in µg/m³, as every other surface shows it (issue 37); the grams series
                // stays for this release and is documented as deprecated (docs/REFERENCE.md §13).
                registry.makeGauge(descriptor: Self.concentrationMicrograms, labels: labels).set(to: value)
                let grade = DustGrade(concentration: value, of: pollutant, on: settings.calendar.date(containing: reading.slot.start))
                registry.makeGauge(descriptor: Self.grade, labels: labels).set(to: Double(grade.rawValue))
                registry.makeGauge(descriptor: Self.hourEnd, labels: labels).set(to: reading.slot.end.timeIntervalSince1970)
            }
        }
    }

    private static var concentration: MetricNameDescriptor {
        .fineDust(
            "concentration", "grams_per_cubic_meter", "The latest known hourly concentration (grams per cubic metre; µg/m³ × 1e-6).")
    }
    private static var concentrationMicrograms: MetricNameDescriptor {
        .fineDust("concentration", "ug_m3", "The latest known hourly concentration in µg/m³, as the dashboard and the API show it.")
    }
    private static var grade: MetricNameDescriptor {
        .fineDust("grade", "", "AirKorea grade of the latest hourly concentration: 1 good, 2 moderate, 3 bad, 4 very bad.")
    }
    private static var hourEnd: MetricNameDescriptor {
        .fineDust("latest_hour_end_timestamp", "seconds", "When the latest known hour ended (unix seconds).")
    }
}
