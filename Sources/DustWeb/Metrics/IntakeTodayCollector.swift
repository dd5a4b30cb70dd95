import DustKit
import DustReports
import DustServices
import Prometheus

/// Today's intake of each person at their home station (`person` label, docs/REFERENCE.md §18), as
/// `dustctl today --person NAME` computes it, and the hours measured at the first person's home station.
struct IntakeTodayCollector: GaugeCollector {
    let data: WebData
    let settings: WebData.ReportSettings

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        let everyone = try await data.everyoneToday()
        let points = settings.intakeModel.unit == .points
        for pollutant in Pollutant.allCases {
            for entry in everyone {
                let labels = [("station", entry.station), ("pollutant", pollutant.rawValue), ("person", entry.person)]
                // Unknown (no hour of today yet) is no sample, as the API's null: never 0.
                // Rounded as the API writes it, so the two agree to the last digit.
                guard let intake = entry.day.totals.intake[pollutant].map(JSON.measuredValue) else { continue }
                registry.makeGauge(descriptor: points ? Self.intakePoints : Self.intakeGrams, labels: labels)
                    .set(to: points ? intake : intake / 1_000_000)
            }
            // Hours measured belong to a station, not a person: the first person's home (`station.name`
            // without `people:`), as before people existed.
            guard let first = everyone.first else { continue }
            let labels = [("station", first.station), ("pollutant", pollutant.rawValue)]
            registry.makeGauge(descriptor: Self.measuredSlots, labels: labels).set(to: Double(first.day.totals.hours[pollutant]))
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
