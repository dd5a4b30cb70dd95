import DustKit
import DustServices
import Prometheus

/// The forecast for the region now shown (one region, so the label set stays small): a grade no longer shown
/// (the day rolled over, the region changed, the word is no grade) is not exported, so a scrape never reports
/// yesterday's forecast as today's. No forecast at all is no gauge, not an error.
struct ForecastCollector: GaugeCollector {
    let data: WebData

    func collect(into registry: PrometheusCollectorRegistry) async throws(StorageFailure) {
        guard let outlook = try? await data.forecastOutlook() else { return }
        for (day, grades) in [("today", outlook.todayGrades), ("tomorrow", outlook.tomorrowGrades)] {
            for pollutant in Pollutant.allCases {
                guard let grade = grades[pollutant]?.grade.grade else { continue }
                registry.makeGauge(
                    descriptor: Self.grade, labels: [("region", outlook.region.rawValue), ("pollutant", pollutant.rawValue), ("day", day)]
                )
                .set(to: Double(grade.rawValue))
            }
        }
        if let issued = outlook.issuedAt {
            registry.makeGauge(descriptor: Self.issued, labels: [("region", outlook.region.rawValue)]).set(to: issued.timeIntervalSince1970)
        }
    }

    private static var grade: MetricNameDescriptor {
        .fineDust("forecast_grade", "", "AirKorea's forecast grade for the region: 1 good, 2 moderate, 3 bad, 4 very bad.")
    }
    private static var issued: MetricNameDescriptor {
        .fineDust("forecast_issued_timestamp", "seconds", "When the newest forecast shown was issued (unix seconds).")
    }
}
