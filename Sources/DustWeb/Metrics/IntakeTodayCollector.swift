import DustKit
import DustServices
import Prometheus

/// Today's intake and hours measured for the primary station, as `dustctl today` computes them.
struct IntakeTodayCollector: GaugeCollector {
    let statistics: StatisticsService
    let settings: WebData.ReportSettings

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        let today = try await statistics.day(statistics.today)
        let points = settings.intakeModel.unit == .points
        for pollutant in Pollutant.allCases {
            let labels = [("station", settings.stations.primary), ("pollutant", pollutant.rawValue)]
            let intake = today.totals.intake[pollutant] ?? 0
            registry.makeGauge(descriptor: points ? Self.intakePoints : Self.intakeGrams, labels: labels)
                .set(to: points ? intake : intake / 1_000_000)
            registry.makeGauge(descriptor: Self.measuredSlots, labels: labels).set(to: Double(today.totals.hours[pollutant]))
        }
    }

    private static var intakeGrams: MetricNameDescriptor {
        .fineDust("intake_today", "grams", "Estimated inhaled dose so far today (grams; µg × 1e-6).")
    }
    private static var intakePoints: MetricNameDescriptor {
        .fineDust("intake_today", "points", "The original app's intake points so far today.")
    }
    private static var measuredSlots: MetricNameDescriptor {
        .fineDust("measured_slots_today", "", "Hours of today with a known concentration.")
    }
}
