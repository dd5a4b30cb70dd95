import DustServices
import Metrics

/// The requests dustd makes to AirKorea, counted through swift-metrics (docs/REFERENCE.md §13) with the factory
/// the daemon was given: the loops know no backend, and a test hands them its own factory.
public struct RequestCounters: Sendable {
    /// Requests to AirKorea for measurements and station lists, by outcome.
    static let pollAttempts = "finedust_poll_attempts_total"
    /// AirKorea result codes seen in answers, by code.
    static let resultCodes = "finedust_airkorea_result_codes_total"
    /// Forecast requests, by outcome.
    static let forecastRequests = "finedust_forecast_requests_total"
    /// Advisory requests, by outcome.
    static let advisoryRequests = "finedust_advisory_requests_total"

    /// Each counter's HELP text, by name, for the Prometheus backend (`PrometheusBackend`).
    public static let help: [String: String] = [
        pollAttempts: "Requests to AirKorea by outcome (ok, retrying, failed, quota, stopped).",
        resultCodes: "AirKorea result codes seen in answers, by code.",
        forecastRequests: "Forecast requests to AirKorea (getMinuDustFrcstDspth) by outcome.",
        advisoryRequests: "Advisory requests to AirKorea (getUlfptcaAlarmInfo, getOzAdvsryOccrrncInfo) by outcome.",
    ]

    private let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts one request by its kind and outcome: a forecast request in its own family, any other
    /// request (measurements, the station list) with its result code when it had one. A counter starts
    /// at zero with the process, as Prometheus counters do (`rate()` copes with restarts), and appears
    /// at its first request.
    public func count(_ attempt: PollAttempt) {
        let outcome = [("outcome", attempt.outcome.rawValue)]
        switch attempt.kind {
        case .forecast, .weeklyOutlook:
            Counter(label: Self.forecastRequests, dimensions: outcome, factory: factory).increment()
        case .advisory:
            Counter(label: Self.advisoryRequests, dimensions: outcome, factory: factory).increment()
        case .measurement, .stationList:
            Counter(label: Self.pollAttempts, dimensions: outcome, factory: factory).increment()
            if let code = attempt.resultCode {
                Counter(label: Self.resultCodes, dimensions: [("code", Self.codeLabel(code))], factory: factory).increment()
            }
        }
    }

    /// Creates each family's series for every outcome, at 0: a counter exists from dustd's start, as
    /// Prometheus's guidance asks, not from its first event (result codes appear as AirKorea sends them).
    public func declareEveryOutcome() {
        for outcome in PollAttempt.Outcome.allCases {
            for family in [Self.pollAttempts, Self.forecastRequests, Self.advisoryRequests] {
                _ = Counter(label: family, dimensions: [("outcome", outcome.rawValue)], factory: factory)
            }
        }
    }

    /// Result codes are two digits in the real API; anything else is folded into one label so a hostile
    /// server cannot grow the label set.
    static func codeLabel(_ code: String) -> String {
        code.count == 2 && code.allSatisfy(\.isASCII) && code.allSatisfy(\.isNumber) ? code : "other"
    }
}
