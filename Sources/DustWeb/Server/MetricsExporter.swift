import DustKit
import DustServices
import DustStore
import Foundation
import Prometheus

/// Counts what dustd's polls did, as Prometheus counters (they start at zero with the process, as
/// Prometheus counters do; `rate()` copes with restarts).
public final class PollMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    /// Counts one request to AirKorea by its outcome, and its result code when it had one.
    public func count(_ attempt: PollAttempt) {
        registry.makeCounter(name: "finedust_poll_attempts_total", labels: [("outcome", attempt.outcome.rawValue)],
                             help: "Requests to AirKorea by outcome (ok, retrying, failed, quota, stopped).").increment()
        if let code = attempt.resultCode {
            // Result codes are two digits in the real API; anything else is folded into one label
            // so a hostile server cannot grow the label set.
            let label = code.count == 2 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber) ? code : "other"
            registry.makeCounter(name: "finedust_airkorea_result_codes_total", labels: [("code", label)],
                                 help: "AirKorea result codes seen in answers, by code.").increment()
        }
    }
}

/// A `PollStore` that counts every recorded attempt in `PollMetrics` and passes everything on.
public struct MeasuredPollStore: PollStore {
    private let base: any PollStore
    private let metrics: PollMetrics

    public init(_ base: any PollStore, metrics: PollMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        try base.saveReadings(readings, fetchedAt: fetchedAt)
    }

    public func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        try base.storedReadings(stations: stations, from: from, to: to)
    }

    public func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        try base.newestSlot(station: station, endingBy: now)
    }

    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        metrics.count(attempt)
        try base.recordAttempt(attempt)
    }
}

/// The `/metrics` document: gauges read from the database and the status record at scrape time
/// (so they always equal what `dustctl` shows), plus the poll counters.
struct MetricsExporter: Sendable {
    let source: WebSource
    let metrics: PollMetrics

    func exposition() throws(StorageFailure) -> String {
        let registry = metrics.registry
        let settings = source.reportSettings
        let statistics = source.statistics()
        registry.makeGauge(name: "finedust_build_info", labels: [("version", FineDustVersion.current)],
                           help: "FineDust's version; always 1.").set(to: 1)

        // The latest known hour per configured station and pollutant.
        let stored = try statistics.recentReadings(stations: settings.stations.all)
        for station in settings.stations.all {
            for pollutant in Pollutant.allCases {
                guard let reading = stored.last(where: { $0.station == station && $0.concentration[pollutant] != nil }),
                      let value = reading.concentration[pollutant] else { continue }
                let labels = [("station", station), ("pollutant", pollutant.rawValue)]
                // Prometheus wants base units: grams per cubic metre (41 µg/m³ is 4.1e-05).
                registry.makeGauge(name: "finedust_concentration_grams_per_cubic_meter", labels: labels,
                                   help: "The latest known hourly concentration (grams per cubic metre; µg/m³ × 1e-6).").set(to: value / 1_000_000)
                let grade = DustGrade(concentration: value, of: pollutant, on: settings.calendar.date(containing: reading.slot.start))
                registry.makeGauge(name: "finedust_grade", labels: labels,
                                   help: "AirKorea grade of the latest hourly concentration: 1 good, 2 moderate, 3 bad, 4 very bad.").set(to: Double(grade.rawValue))
                registry.makeGauge(name: "finedust_latest_hour_end_timestamp_seconds", labels: labels,
                                   help: "When the latest known hour ended (unix seconds).").set(to: reading.slot.end.timeIntervalSince1970)
            }
        }

        // Today's intake and hours measured for the primary station, as `dustctl today` computes them.
        let today = try statistics.day(statistics.today)
        let points = settings.intakeModel.unit == .points
        let intakeName = points ? "finedust_intake_today_points" : "finedust_intake_today_grams"
        for pollutant in Pollutant.allCases {
            let labels = [("station", settings.stations.primary), ("pollutant", pollutant.rawValue)]
            let intake = today.totals.intake[pollutant] ?? 0
            registry.makeGauge(name: intakeName, labels: labels,
                               help: points ? "The original app's intake points so far today." : "Estimated inhaled dose so far today (grams; µg × 1e-6).")
                .set(to: points ? intake : intake / 1_000_000)
            registry.makeGauge(name: "finedust_measured_slots_today", labels: labels,
                               help: "Hours of today with a known concentration.").set(to: Double(today.totals.hours[pollutant]))
        }

        exportForecast(into: registry)

        let health = try source.health()
        if let success = health.status?.lastSuccess {
            registry.makeGauge(name: "finedust_last_success_timestamp_seconds", help: "When dustd's last poll succeeded (unix seconds).")
                .set(to: success.at.timeIntervalSince1970)
        }
        if let age = health.dataAge {
            registry.makeGauge(name: "finedust_data_age_seconds", help: "How long ago the newest stored hour ended.").set(to: age.rounded())
        }
        registry.makeGauge(name: "finedust_data_stale", help: "1 when nothing new arrived for 3 hours (or nothing is stored), else 0.")
            .set(to: health.stale ? 1.0 : 0.0)
        return registry.emitToString()
    }

    private static let forecastGradeHelp = "AirKorea's forecast grade for the region: 1 good, 2 moderate, 3 bad, 4 very bad."
    private static let forecastIssuedHelp = "When the newest forecast shown was issued (unix seconds)."

    /// The forecast for the region (one region, so the label set stays small). A grade that is no
    /// longer shown (the day rolled over, the region changed, the word is no grade) is removed, so
    /// a scrape never reports yesterday's forecast as today's.
    private func exportForecast(into registry: PrometheusCollectorRegistry) {
        let outlook = try? source.forecastOutlook()
        for region in ForecastRegion.allCases {
            for (day, grades) in [("today", outlook?.todayGrades), ("tomorrow", outlook?.tomorrowGrades)] {
                for pollutant in Pollutant.allCases {
                    let gauge = registry.makeGauge(name: "finedust_forecast_grade",
                                                   labels: [("region", region.rawValue), ("pollutant", pollutant.rawValue), ("day", day)],
                                                   help: Self.forecastGradeHelp)
                    if region == outlook?.region, let grade = grades?[pollutant]?.grade.grade {
                        gauge.set(to: Double(grade.rawValue))
                    } else {
                        registry.unregisterGauge(gauge)
                    }
                }
            }
            let issued = registry.makeGauge(name: "finedust_forecast_issued_timestamp_seconds", labels: [("region", region.rawValue)],
                                            help: Self.forecastIssuedHelp)
            if region == outlook?.region, let instant = outlook?.issuedAt {
                issued.set(to: instant.timeIntervalSince1970)
            } else {
                registry.unregisterGauge(issued)
            }
        }
    }
}

extension PollMetrics {
    /// Counts one forecast request by its outcome.
    public func countForecast(_ attempt: PollAttempt) {
        registry.makeCounter(name: "finedust_forecast_requests_total", labels: [("outcome", attempt.outcome.rawValue)],
                             help: "Forecast requests to AirKorea (getMinuDustFrcstDspth) by outcome.").increment()
    }
}

/// A `ForecastStore` that counts every recorded forecast request in `PollMetrics`.
public struct MeasuredForecastStore: ForecastStore {
    private let base: any ForecastStore
    private let metrics: PollMetrics

    public init(_ base: any ForecastStore, metrics: PollMetrics) {
        self.base = base
        self.metrics = metrics
    }

    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) throws(StorageFailure) -> Int {
        try base.saveForecasts(forecasts, fetchedAt: fetchedAt)
    }

    public func newestIssue(pollutant: Pollutant) throws(StorageFailure) -> Date? { try base.newestIssue(pollutant: pollutant) }

    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) throws(StorageFailure) -> RegionalForecast? {
        try base.forecast(pollutant: pollutant, date: date, region: region)
    }

    public func forecastCalls(since start: Date) throws(StorageFailure) -> Int { try base.forecastCalls(since: start) }

    public func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        metrics.countForecast(attempt)
        try base.recordAttempt(attempt)
    }

    public func stationLocation(name: String) throws(StorageFailure) -> StationLocation? { try base.stationLocation(name: name) }
}
