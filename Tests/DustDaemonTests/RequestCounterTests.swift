import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import Foundation
import Metrics
import MetricsTestKit
import Prometheus
import TestSupport
import Testing

@Suite("Requests counted through swift-metrics: the loops know no backend, dustd's renders them as it always did", .timeLimit(.minutes(10)))
struct RequestCounterTests {
    /// Five poll requests (result codes 00, 00, a hostile "abc", 30, none) and three forecast requests.
    static func countSome(_ counters: RequestCounters) {
        for (outcome, code) in [(PollAttempt.Outcome.ok, "00"), (.ok, "00"), (.retrying, "abc"), (.failed, "30"), (.quota, nil)] {
            counters.count(
                PollAttempt(
                    startedAt: Date(), station: "종로구", kind: .measurement, operation: "measurements", outcome: outcome, resultCode: code))
        }
        for outcome in [PollAttempt.Outcome.ok, .ok, .retrying] {
            counters.count(
                PollAttempt(startedAt: Date(), station: nil, kind: .forecast, operation: "forecast PM10 page 1", outcome: outcome))
        }
    }

    @Test("Through the Prometheus backend: the counter families, HELP and TYPE lines and values of dustd 0.3, line for line")
    func prometheusLineForLine() {
        let backend = PrometheusBackend()
        Self.countSome(RequestCounters(factory: backend))
        let lines = backend.registry.emitToString().split(separator: "\n").map(String.init).sorted()
        #expect(
            lines == [
                "# HELP finedust_airkorea_result_codes_total AirKorea result codes seen in answers, by code.",
                "# HELP finedust_forecast_requests_total Forecast requests to AirKorea (getMinuDustFrcstDspth) by outcome.",
                "# HELP finedust_poll_attempts_total Requests to AirKorea by outcome (ok, retrying, failed, quota, stopped).",
                "# TYPE finedust_airkorea_result_codes_total counter",
                "# TYPE finedust_forecast_requests_total counter",
                "# TYPE finedust_poll_attempts_total counter",
                "finedust_airkorea_result_codes_total{code=\"00\"} 2",
                "finedust_airkorea_result_codes_total{code=\"30\"} 1",
                "finedust_airkorea_result_codes_total{code=\"other\"} 1",
                "finedust_forecast_requests_total{outcome=\"ok\"} 2",
                "finedust_forecast_requests_total{outcome=\"retrying\"} 1",
                "finedust_poll_attempts_total{outcome=\"failed\"} 1",
                "finedust_poll_attempts_total{outcome=\"ok\"} 2",
                "finedust_poll_attempts_total{outcome=\"quota\"} 1",
                "finedust_poll_attempts_total{outcome=\"retrying\"} 1",
            ])
    }

    @Test("Advisory requests have their own family: never a poll attempt, never a result code of the measurements")
    func advisoriesApart() {
        let backend = PrometheusBackend()
        let counters = RequestCounters(factory: backend)
        for (outcome, code) in [(PollAttempt.Outcome.ok, "00"), (.failed, "20"), (.failed, "20")] {
            counters.count(
                PollAttempt(
                    startedAt: Date(), station: nil, kind: .advisory, operation: "advisories PM10 2026 page 1", outcome: outcome,
                    resultCode: code))
        }
        let lines = backend.registry.emitToString().split(separator: "\n").map(String.init).sorted()
        #expect(
            lines == [
                "# HELP finedust_advisory_requests_total Advisory requests to AirKorea (getUlfptcaAlarmInfo, getOzAdvsryOccrrncInfo) by outcome.",
                "# TYPE finedust_advisory_requests_total counter",
                "finedust_advisory_requests_total{outcome=\"failed\"} 2",
                "finedust_advisory_requests_total{outcome=\"ok\"} 1",
            ])
    }

    @Test("Nothing counted, nothing rendered; once dustd declares them (at start), every outcome of every family is there at 0")
    func noRequestNoFamily() {
        let backend = PrometheusBackend()
        let counters = RequestCounters(factory: backend)
        #expect(backend.registry.emitToString() == "")
        counters.declareEveryOutcome()
        let text = backend.registry.emitToString()
        for family in ["finedust_poll_attempts_total", "finedust_forecast_requests_total", "finedust_advisory_requests_total"] {
            for outcome in ["ok", "retrying", "failed", "quota", "stopped"] {
                #expect(text.contains("\(family){outcome=\"\(outcome)\"} 0\n"), "\(family) \(outcome)")
            }
        }
        // Counting goes on from 0.
        Self.countSome(counters)
        #expect(backend.registry.emitToString().contains("finedust_poll_attempts_total{outcome=\"ok\"} 2\n"))
    }

    @Test("Any swift-metrics factory receives the counts: forecast requests apart from poll attempts")
    func injectedFactory() throws {
        let metrics = TestMetrics()
        Self.countSome(RequestCounters(factory: metrics))
        let forecastOK = try metrics.expectCounter("finedust_forecast_requests_total", [("outcome", "ok")])
        #expect(forecastOK.totalValue == 2)
        #expect(try metrics.expectCounter("finedust_forecast_requests_total", [("outcome", "retrying")]).totalValue == 1)
        #expect(try metrics.expectCounter("finedust_poll_attempts_total", [("outcome", "ok")]).totalValue == 2)
        #expect(try metrics.expectCounter("finedust_airkorea_result_codes_total", [("code", "other")]).totalValue == 1)
        #expect(metrics.counters.filter { $0.label == "finedust_poll_attempts_total" }.map(\.totalValue).reduce(0, +) == 5)
    }

    @Test("A label the backend has no HELP for is registered as swift-prometheus registers it")
    func unknownLabel() {
        let backend = PrometheusBackend()
        Metrics.Counter(label: "hb_requests", dimensions: [("method", "GET")], factory: backend).increment()
        #expect(backend.registry.emitToString() == "# TYPE hb_requests counter\nhb_requests{method=\"GET\"} 1\n")
    }

    @Test("The poll loop counts each request it records with the factory it was given")
    func pollLoopCounts() async throws {
        try await withRig { rig in
            let metrics = TestMetrics()
            let settings = try loopSettings(baseURL: rig.baseURL, storagePath: rig.store.path)
            let loop = await clockedLoop(rig, settings: settings, jitter: { 1 }, metrics: metrics)
            // The first poll starts at once; the next is an hour away, so the count is settled while the loop waits.
            let (requests, _) = try await runLoop(rig, loop: loop) { await recordedState(rig) == .idle }
            let recorded = try await rig.store.recentAttempts(limit: 100)
            #expect(recorded.count == requests.count)
            #expect(recorded.allSatisfy { $0.outcome == .ok })
            #expect(try metrics.expectCounter("finedust_poll_attempts_total", [("outcome", "ok")]).totalValue == Int64(recorded.count))
            #expect(try metrics.expectCounter("finedust_airkorea_result_codes_total", [("code", "00")]).totalValue == Int64(recorded.count))
        }
    }

    @Test("The forecast loop counts its requests (the weekly outlook's among them) apart from the poll's, with the factory it was given")
    func forecastLoopCounts() async throws {
        try await withRig { rig in
            rig.server.setScript(ForecastServiceTests.answer)
            let metrics = TestMetrics()
            // 17:40 KST: the 17시 publication is due, one request per pollutant, and the weekly outlook; the next is planned for 23:30.
            let clock = ManualClock(instant(kst: "2026-11-22T17:40:00"))
            let service = try await ForecastServiceTests.service(rig, clock: clock, metrics: metrics)
            let task = Task { try await service.run() }
            defer { task.cancel() }
            #expect(try await clock.waitUntilSleeping { try await rig.store.loadStatus()?.forecast?.nextFetchAt != nil })
            // PM10, PM25, then the weekly outlook.
            #expect(rig.server.requests.count == 3)
            #expect(try metrics.expectCounter("finedust_forecast_requests_total", [("outcome", "ok")]).totalValue == 3)
            #expect(!metrics.counters.contains { $0.label == "finedust_poll_attempts_total" })
        }
    }
}
