import DustKit
import DustServices
import Foundation
import Prometheus

/// Every metric dustd exports: name (base units, Prometheus' suffixes) and help, in one place.
/// (Computed: swift-prometheus' descriptor is not `Sendable`.)
enum FineDustMetric {
    private static func named(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "finedust", metricName: metric, unitName: unit, helpText: help)
    }

    static var pollAttempts: MetricNameDescriptor {
        named("poll_attempts", "total", "Requests to AirKorea by outcome (ok, retrying, failed, quota, stopped).")
    }
    static var resultCodes: MetricNameDescriptor {
        named("airkorea_result_codes", "total", "AirKorea result codes seen in answers, by code.")
    }
    static var forecastRequests: MetricNameDescriptor {
        named("forecast_requests", "total", "Forecast requests to AirKorea (getMinuDustFrcstDspth) by outcome.")
    }
    static var buildInfo: MetricNameDescriptor { named("build", "info", "FineDust's version; always 1.") }
    static var concentration: MetricNameDescriptor {
        named("concentration", "grams_per_cubic_meter", "The latest known hourly concentration (grams per cubic metre; µg/m³ × 1e-6).")
    }
    static var grade: MetricNameDescriptor {
        named("grade", "", "AirKorea grade of the latest hourly concentration: 1 good, 2 moderate, 3 bad, 4 very bad.")
    }
    static var latestHourEnd: MetricNameDescriptor {
        named("latest_hour_end_timestamp", "seconds", "When the latest known hour ended (unix seconds).")
    }
    static var intakeGrams: MetricNameDescriptor {
        named("intake_today", "grams", "Estimated inhaled dose so far today (grams; µg × 1e-6).")
    }
    static var intakePoints: MetricNameDescriptor { named("intake_today", "points", "The original app's intake points so far today.") }
    static var measuredSlotsToday: MetricNameDescriptor { named("measured_slots_today", "", "Hours of today with a known concentration.") }
    static var lastSuccess: MetricNameDescriptor {
        named("last_success_timestamp", "seconds", "When dustd's last poll succeeded (unix seconds).")
    }
    static var dataAge: MetricNameDescriptor { named("data_age", "seconds", "How long ago the newest stored hour ended.") }
    static var dataStale: MetricNameDescriptor {
        named("data_stale", "", "1 when nothing new arrived for 3 hours (or nothing is stored), else 0.")
    }
    static var forecastGrade: MetricNameDescriptor {
        named("forecast_grade", "", "AirKorea's forecast grade for the region: 1 good, 2 moderate, 3 bad, 4 very bad.")
    }
    static var forecastIssued: MetricNameDescriptor {
        named("forecast_issued_timestamp", "seconds", "When the newest forecast shown was issued (unix seconds).")
    }
}

/// Counts what dustd's polls did, as Prometheus counters (they start at zero with the process, as
/// Prometheus counters do; `rate()` copes with restarts).
public final class PollMetrics: Sendable {
    let registry: PrometheusCollectorRegistry

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
    }

    /// Counts one request to AirKorea by its outcome, and its result code when it had one.
    public func count(_ attempt: PollAttempt) {
        registry.makeCounter(descriptor: FineDustMetric.pollAttempts, labels: [("outcome", attempt.outcome.rawValue)]).increment()
        if let code = attempt.resultCode {
            // Result codes are two digits in the real API; anything else is folded into one label
            // so a hostile server cannot grow the label set.
            let label = code.count == 2 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber) ? code : "other"
            registry.makeCounter(descriptor: FineDustMetric.resultCodes, labels: [("code", label)]).increment()
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

    public func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) async throws(StorageFailure) -> UpsertSummary {
        try await base.saveReadings(readings, fetchedAt: fetchedAt)
    }

    public func readings(stations: [String], from: Slot, to: Slot) async throws(StorageFailure) -> [HourlyReading] {
        try await base.readings(stations: stations, from: from, to: to)
    }

    public func measurementCount(station: String?) async throws(StorageFailure) -> Int {
        try await base.measurementCount(station: station)
    }

    public func newestSlot(station: String, endingBy now: Date) async throws(StorageFailure) -> Slot? {
        try await base.newestSlot(station: station, endingBy: now)
    }

    public func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        metrics.count(attempt)
        try await base.recordAttempt(attempt)
    }

    public func attemptCount(kind: AttemptKind, since start: Date) async throws(StorageFailure) -> Int {
        try await base.attemptCount(kind: kind, since: start)
    }
}

/// The `/metrics` document: gauges read from the database and the status record at scrape time
/// (so they always equal what `dustctl` shows), plus the poll counters.
struct MetricsExporter: Sendable {
    let source: WebData
    let metrics: PollMetrics

    func exposition() async throws(StorageFailure) -> String {
        let registry = metrics.registry
        let settings = source.reportSettings
        let statistics = source.statistics()
        registry.makeGauge(descriptor: FineDustMetric.buildInfo, labels: [("version", FineDustVersion.current)]).set(to: 1)

        // The latest known hour per configured station and pollutant.
        let stored = try await statistics.recentReadings(stations: settings.stations.all)
        for station in settings.stations.all {
            for pollutant in Pollutant.allCases {
                guard let reading = stored.last(where: { $0.station == station && $0.concentration[pollutant] != nil }),
                    let value = reading.concentration[pollutant]
                else { continue }
                let labels = [("station", station), ("pollutant", pollutant.rawValue)]
                // Prometheus wants base units: grams per cubic metre (41 µg/m³ is 4.1e-05).
                registry.makeGauge(descriptor: FineDustMetric.concentration, labels: labels).set(to: value / 1_000_000)
                let grade = DustGrade(concentration: value, of: pollutant, on: settings.calendar.date(containing: reading.slot.start))
                registry.makeGauge(descriptor: FineDustMetric.grade, labels: labels).set(to: Double(grade.rawValue))
                registry.makeGauge(descriptor: FineDustMetric.latestHourEnd, labels: labels).set(to: reading.slot.end.timeIntervalSince1970)
            }
        }

        // Today's intake and hours measured for the primary station, as `dustctl today` computes them.
        let today = try await statistics.day(statistics.today)
        let points = settings.intakeModel.unit == .points
        for pollutant in Pollutant.allCases {
            let labels = [("station", settings.stations.primary), ("pollutant", pollutant.rawValue)]
            let intake = today.totals.intake[pollutant] ?? 0
            registry.makeGauge(descriptor: points ? FineDustMetric.intakePoints : FineDustMetric.intakeGrams, labels: labels)
                .set(to: points ? intake : intake / 1_000_000)
            registry.makeGauge(descriptor: FineDustMetric.measuredSlotsToday, labels: labels).set(to: Double(today.totals.hours[pollutant]))
        }

        await exportForecast(into: registry)

        let health = try await source.health()
        if let success = health.status?.lastSuccess {
            registry.makeGauge(descriptor: FineDustMetric.lastSuccess).set(to: success.at.timeIntervalSince1970)
        }
        if let age = health.dataAge {
            registry.makeGauge(descriptor: FineDustMetric.dataAge).set(to: age.rounded())
        }
        registry.makeGauge(descriptor: FineDustMetric.dataStale).set(to: health.stale ? 1.0 : 0.0)
        return registry.emitToString()
    }

    /// The forecast for the region (one region, so the label set stays small). A grade that is no
    /// longer shown (the day rolled over, the region changed, the word is no grade) is removed, so
    /// a scrape never reports yesterday's forecast as today's.
    private func exportForecast(into registry: PrometheusCollectorRegistry) async {
        let outlook = try? await source.forecastOutlook()
        for region in ForecastRegion.allCases {
            for (day, grades) in [("today", outlook?.todayGrades), ("tomorrow", outlook?.tomorrowGrades)] {
                for pollutant in Pollutant.allCases {
                    let gauge = registry.makeGauge(
                        descriptor: FineDustMetric.forecastGrade,
                        labels: [("region", region.rawValue), ("pollutant", pollutant.rawValue), ("day", day)])
                    if region == outlook?.region, let grade = grades?[pollutant]?.grade.grade {
                        gauge.set(to: Double(grade.rawValue))
                    } else {
                        registry.unregisterGauge(gauge)
                    }
                }
            }
            let issued = registry.makeGauge(descriptor: FineDustMetric.forecastIssued, labels: [("region", region.rawValue)])
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
        registry.makeCounter(descriptor: FineDustMetric.forecastRequests, labels: [("outcome", attempt.outcome.rawValue)]).increment()
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

    public func saveForecasts(_ forecasts: [DustForecast], fetchedAt: Date) async throws(StorageFailure) -> Int {
        try await base.saveForecasts(forecasts, fetchedAt: fetchedAt)
    }

    public func newestForecastIssue(pollutant: Pollutant) async throws(StorageFailure) -> Date? {
        try await base.newestForecastIssue(pollutant: pollutant)
    }

    public func forecast(pollutant: Pollutant, date: LocalDate, region: ForecastRegion) async throws(StorageFailure) -> RegionalForecast? {
        try await base.forecast(pollutant: pollutant, date: date, region: region)
    }

    public func attemptCount(kind: AttemptKind, since start: Date) async throws(StorageFailure) -> Int {
        try await base.attemptCount(kind: kind, since: start)
    }

    public func recordAttempt(_ attempt: PollAttempt) async throws(StorageFailure) {
        metrics.countForecast(attempt)
        try await base.recordAttempt(attempt)
    }

    public func stationLocation(name: String) async throws(StorageFailure) -> StationLocation? {
        try await base.stationLocation(name: name)
    }
}
