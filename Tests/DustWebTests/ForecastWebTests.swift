import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestSupport
import Testing

/// Forecasts for 서울 (the demo station 종로구's region) for today and tomorrow as of `now`, issued
/// at 05시 today; the overall text is hostile, to prove it is escaped.
func storeForecastForNow(_ store: SQLiteStore, now: PinnedNow) async throws -> LocalDate {
    let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
    let today = calendar.date(containing: now.date)
    let issued = calendar.start(of: today).addingTimeInterval(5 * 3600)
    func forecast(_ pollutant: Pollutant, _ date: LocalDate, _ grade: ForecastGrade) -> DustForecast {
        DustForecast(
            pollutant: pollutant, issuedAt: issued, forecastDate: date,
            grades: ForecastGrades(byRegion: [.seoul: grade, .jeju: .known(.good)]),
            overall: "○ <script>alert(1)</script> 서울 '나쁨'", cause: "대기 정체")
    }
    try await store.saveForecasts([
        forecast(.pm10, today, .known(.moderate)), forecast(.pm25, today, .known(.bad)),
        forecast(.pm10, today.adding(days: 1), .known(.bad)), forecast(.pm25, today.adding(days: 1), .known(.veryBad)),
    ])
    return today
}

@Suite("The forecast on the web: /api/v1/forecast is dustctl forecast --json, the panel, /metrics", .timeLimit(.minutes(10)))
struct ForecastWebTests {
    @Test("/api/v1/forecast and /api/v1/today are byte for byte what dustctl forecast and today --json print")
    func apiEqualsCLI() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let today = try await storeForecastForNow(rig.store, now: rig.now)
        let forecast = try await rig.dustctl(["forecast"])
        #expect(forecast.status == 0, "\(forecast.standardError)")
        let todayCLI = try await rig.dustctl(["today"])
        #expect(
            todayCLI.standardOutput.contains(
                "\"forecastTomorrow\":{\"region\":\"서울\",\"date\":\"\(today.adding(days: 1))\",\"pm10\":{\"grade\":3,\"word\":\"나쁨\""))
        #expect(
            forecast.standardOutput.hasPrefix(
                "{\"region\":\"서울\",\"regionEnglish\":\"Seoul\",\"station\":\"종로구\",\"issuedAt\":\"\(today)T05:00:00+09:00\","))
        #expect(
            forecast.standardOutput.contains("\"tomorrow\":{\"date\":\"\(today.adding(days: 1))\",\"pm10\":{\"grade\":3,\"word\":\"나쁨\""))
        #expect(forecast.standardOutput.contains("\"pm25\":{\"grade\":4,\"word\":\"매우나쁨\""))
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/forecast", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                #expect(text(response) == forecast.standardOutput)
            }
            try await client.execute(uri: "/api/v1/today", method: .get) { response in
                #expect(text(response) == todayCLI.standardOutput)
            }
        }
    }

    @Test("The today page has a forecast panel, escaped; /metrics exports the region's grades")
    func panelAndMetrics() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let today = try await storeForecastForNow(rig.store, now: rig.now)
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/?lang=en", method: .get) { response in
                let page = text(response)
                #expect(page.contains("<section class=\"card forecast\" data-region=\"서울\">"))
                #expect(page.contains("data-forecast-date=\"\(today.adding(days: 1))\" data-forecast-pm10=\"3\" data-forecast-pm25=\"4\""))
                #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(!page.contains("<script>"))
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let metrics = text(response)
                #expect(metrics.contains("finedust_forecast_grade{region=\"서울\",pollutant=\"pm25\",day=\"tomorrow\"} 4"))
                #expect(metrics.contains("finedust_forecast_grade{region=\"서울\",pollutant=\"pm10\",day=\"today\"} 2"))
            }
        }
    }

    @Test("No forecast stored: dustctl forecast says so and exits 0; the API serves the same empty document")
    func nothingStored() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let printed = try await rig.dustctl(["forecast"])
        #expect(printed.status == 0)
        #expect(printed.standardOutput.contains("\"today\":{\"date\":"))
        #expect(printed.standardOutput.contains("\"pm10\":null,\"pm25\":null"))
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/forecast", method: .get) { response in
                #expect(text(response) == printed.standardOutput)
            }
        }
    }

    @Test(
        "A station the table cannot place: the API says to set forecast.region (404); dustctl names a --station it holds no hour of (64)"
    )
    func unknownRegion() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source(station: "어딘가", clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/forecast", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(text(response).contains("set forecast.region"))
            }
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
        environment["DUSTD_CONFIG"] = rig.configuration
        let result = try await Executables.run(
            "dustctl", ["forecast", "--db", rig.store.path, "--station", "어딘가"], environment: environment)
        // Never stored here, it is a mistyped --station before it is a province FineDust cannot place.
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("dustctl: No readings of a station 어딘가 are stored;"), "\(result.standardError)")
        environment["DUSTD_FORECAST_REGION"] = "제주"
        let overridden = try await Executables.run(
            "dustctl", ["forecast", "--db", rig.store.path, "--station", "어딘가"], environment: environment)
        #expect(overridden.status == 0)
        #expect(overridden.standardOutput.contains("Forecast · 제주 (Jeju)"))
    }

    @Test("/metrics renders what the backend counted (HELP, TYPE and values) beside the gauges read from the database")
    func countersBesideGauges() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let registry = PrometheusCollectorRegistry()
        let help = "Forecast requests to AirKorea (getMinuDustFrcstDspth) by outcome."
        let requests = MetricNameDescriptor(metricName: "finedust_forecast_requests_total", unitName: "", helpText: help)
        registry.makeCounter(descriptor: requests, labels: [("outcome", "ok")]).increment(by: Int64(2))
        registry.makeCounter(descriptor: requests, labels: [("outcome", "retrying")]).increment()
        let app = Application(router: WebServer(data: try rig.source(), registry: registry, token: nil).router())
        try await app.test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                let lines = Set(text(response).split(separator: "\n").map(String.init))
                #expect(lines.contains("# HELP finedust_forecast_requests_total \(help)"))
                #expect(lines.contains("# TYPE finedust_forecast_requests_total counter"))
                #expect(lines.contains("finedust_forecast_requests_total{outcome=\"ok\"} 2"))
                #expect(lines.contains("finedust_forecast_requests_total{outcome=\"retrying\"} 1"))
                #expect(!lines.contains { $0.hasPrefix("finedust_poll_attempts_total") })
                #expect(lines.contains("finedust_data_stale 0.0"))
            }
        }
    }

    @Test("A forecast grade no longer shown leaves /metrics: the day after, yesterday's tomorrow is not reported")
    func staleGaugesRemoved() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let kst = DayCalendar(timeZone: KoreaStandardTime.timeZone)
        // The 17시 issue of 2026-11-22 for 서울, PM2.5: today 보통, tomorrow 매우나쁨.
        let issued = kst.start(of: LocalDate(year: 2026, month: 11, day: 22)).addingTimeInterval(17 * 3600)
        try await rig.store.saveForecasts([
            DustForecast(
                pollutant: .pm25, issuedAt: issued, forecastDate: LocalDate(year: 2026, month: 11, day: 22),
                grades: ForecastGrades(informGrade: "서울 : 보통,제주 : 좋음")),
            DustForecast(
                pollutant: .pm25, issuedAt: issued, forecastDate: LocalDate(year: 2026, month: 11, day: 23),
                grades: ForecastGrades(informGrade: "서울 : 매우나쁨,제주 : 좋음")),
        ])
        let registry = PrometheusCollectorRegistry()
        // 2026-11-22 18:00 KST: 서울 PM2.5 tomorrow (11-23) is 매우나쁨 (4) in the 17시 issue.
        let eveningClock = FixedClock(kst.start(of: LocalDate(year: 2026, month: 11, day: 22)).addingTimeInterval(18 * 3600))
        let evening = try await Application(
            router: WebServer(data: try rig.source(clock: eveningClock), registry: registry, token: nil).router()
        )
        .test(.router) { client in try await client.execute(uri: "/metrics", method: .get) { text($0) } }
        #expect(evening.contains("finedust_forecast_grade{region=\"서울\",pollutant=\"pm25\",day=\"tomorrow\"} 4"))
        #expect(evening.contains("finedust_forecast_grade{region=\"서울\",pollutant=\"pm25\",day=\"today\"} 2"))
        // 2026-11-25 12:00 KST: nothing stored for the 25th or the 26th, so no grade at all.
        let laterClock = FixedClock(kst.start(of: LocalDate(year: 2026, month: 11, day: 25)).addingTimeInterval(12 * 3600))
        let later = try await Application(
            router: WebServer(data: try rig.source(clock: laterClock), registry: registry, token: nil).router()
        )
        .test(.router) { client in try await client.execute(uri: "/metrics", method: .get) { text($0) } }
        #expect(!later.contains("finedust_forecast_grade{"))
        #expect(!later.contains("finedust_forecast_issued_timestamp_seconds{"))
    }
}
