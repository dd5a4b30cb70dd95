import DustKit
import DustServices
import DustStore
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Prometheus
import Synchronization
import TestSupport
import Testing

@Suite("/metrics: gauges read afresh at each scrape, in the names, texts and formats Prometheus has always seen", .timeLimit(.minutes(10)))
struct MetricsTests {
    /// The demo database's gauges at the demo's clock, sorted (families come in hash order).
    static let demoGauges = [
        "# HELP finedust_build_info FineDust's version; always 1.",
        // Added by issue 21 (docs/REFERENCE.md §17): the latest hour's gases and integrated index.
        "# HELP finedust_cai AirKorea's integrated air-quality index (통합대기환경지수, 0–500) of the latest hour that had one.",
        "# HELP finedust_concentration_grams_per_cubic_meter The latest known hourly concentration (grams per cubic metre; µg/m³ × 1e-6).",
        "# HELP finedust_data_age_seconds How long ago the newest stored hour ended.",
        "# HELP finedust_data_stale 1 when nothing new arrived for 3 hours (or nothing is stored), else 0.",
        "# HELP finedust_forecast_grade AirKorea's forecast grade for the region: 1 good, 2 moderate, 3 bad, 4 very bad.",
        "# HELP finedust_forecast_issued_timestamp_seconds When the newest forecast shown was issued (unix seconds).",
        "# HELP finedust_gas_ppm The latest known hourly gas concentration in ppm (parts per million by volume).",
        "# HELP finedust_grade AirKorea grade of the latest hourly concentration: 1 good, 2 moderate, 3 bad, 4 very bad.",
        "# HELP finedust_latest_hour_end_timestamp_seconds When the latest known hour ended (unix seconds).",
        "# HELP finedust_measured_slots_today Hours of today with a known concentration.",
        "# TYPE finedust_build_info gauge",
        "# TYPE finedust_cai gauge",
        "# TYPE finedust_concentration_grams_per_cubic_meter gauge",
        // Issue 37: the same in µg/m³, as every other surface.
        "# HELP finedust_concentration_ug_m3 The latest known hourly concentration in µg/m³, as the dashboard and the API show it.",
        "# TYPE finedust_concentration_ug_m3 gauge",
        "finedust_concentration_ug_m3{station=\"종로구\",pollutant=\"pm10\"} 45.0",
        "finedust_concentration_ug_m3{station=\"종로구\",pollutant=\"pm25\"} 22.0",
        "# TYPE finedust_data_age_seconds gauge",
        "# TYPE finedust_data_stale gauge",
        "# TYPE finedust_forecast_grade gauge",
        "# TYPE finedust_forecast_issued_timestamp_seconds gauge",
        "# TYPE finedust_gas_ppm gauge",
        "# TYPE finedust_grade gauge",
        "# TYPE finedust_latest_hour_end_timestamp_seconds gauge",
        "# TYPE finedust_measured_slots_today gauge",
        "finedust_build_info{version=\"\(FineDustVersion.current)\"} 1.0",
        "finedust_cai{station=\"종로구\"} 62.0",
        "finedust_concentration_grams_per_cubic_meter{station=\"종로구\",pollutant=\"pm10\"} 4.5e-05",
        "finedust_concentration_grams_per_cubic_meter{station=\"종로구\",pollutant=\"pm25\"} 2.2e-05",
        "finedust_data_age_seconds 1200.0",
        "finedust_data_stale 0.0",
        "finedust_forecast_grade{region=\"서울\",pollutant=\"pm10\",day=\"today\"} 3.0",
        "finedust_forecast_grade{region=\"서울\",pollutant=\"pm10\",day=\"tomorrow\"} 2.0",
        "finedust_forecast_grade{region=\"서울\",pollutant=\"pm25\",day=\"today\"} 4.0",
        "finedust_forecast_grade{region=\"서울\",pollutant=\"pm25\",day=\"tomorrow\"} 2.0",
        "finedust_forecast_issued_timestamp_seconds{region=\"서울\"} 1795161600.0",
        "finedust_gas_ppm{station=\"종로구\",gas=\"co\"} 0.52",
        "finedust_gas_ppm{station=\"종로구\",gas=\"no2\"} 0.0262",
        "finedust_gas_ppm{station=\"종로구\",gas=\"o3\"} 0.0184",
        "finedust_gas_ppm{station=\"종로구\",gas=\"so2\"} 0.0031",
        "finedust_grade{station=\"종로구\",pollutant=\"pm10\"} 2.0",
        "finedust_grade{station=\"종로구\",pollutant=\"pm25\"} 2.0",
        // Issue 22 (docs/REFERENCE.md §18): the intake is a person's, `me` without `people:`; issue 37: at the
        // demo's clock (00:20) today has no hour yet, so no intake sample (the API's null), never 0.
        "finedust_latest_hour_end_timestamp_seconds{station=\"종로구\",pollutant=\"pm10\"} 1795186800.0",
        "finedust_latest_hour_end_timestamp_seconds{station=\"종로구\",pollutant=\"pm25\"} 1795186800.0",
        "finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm10\"} 0.0",
        "finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm25\"} 0.0",
    ]

    /// What issue 21 added (docs/REFERENCE.md §17): the demo's 서울 도심권 PM10 경보 in force at its "now".
    static let demoAdvisoryGauges =
        [
            "# HELP finedust_advisory_active Deprecated (removed in the next release): finedust_advisory_in_force with the pollutant labelled PM10, PM25, O3.",
            "# TYPE finedust_advisory_active gauge",
        ]
        + ["O3", "PM10", "PM25"].flatMap { pollutant in
            ["emergency", "unknown", "warning", "watch"].map { level in
                "finedust_advisory_active{pollutant=\"\(pollutant)\",level=\"\(level)\"} \(pollutant == "PM10" && level == "warning" ? "1.0" : "0.0")"
            }
        }
        // Issue 37: the pollutant labelled as every other series labels it.
        + [
            "# HELP finedust_advisory_in_force Official advisories in force for your district and area, by pollutant and level (watch 주의보, warning 경보, emergency 중대경보).",
            "# TYPE finedust_advisory_in_force gauge",
        ]
        + ["o3", "pm10", "pm25"].flatMap { pollutant in
            ["emergency", "unknown", "warning", "watch"].map { level in
                "finedust_advisory_in_force{pollutant=\"\(pollutant)\",level=\"\(level)\"} \(pollutant == "pm10" && level == "warning" ? "1.0" : "0.0")"
            }
        }

    @Test("The demo database's gauges, line for line as dustd 0.3 exported them (sorted: families come in hash order)")
    func demoGaugesLineForLine() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.storeWarningInForce()
        let body = try await scrape(rig.application(try rig.source()))
        #expect(body.hasSuffix("\n"))
        #expect(body.split(separator: "\n").map(String.init).sorted() == (Self.demoGauges + Self.demoAdvisoryGauges).sorted())
    }

    @Test("A station removed from the configuration by a reload has no gauge at the next scrape")
    func reloadedStationLeaves() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // 중구, a fallback station, measured the hour before the demo's last: 51 and 30 µg/m³.
        let hour = Slot(containing: DemoReplay.now).advanced(by: -1)
        _ = try await rig.store.saveReadings([
            HourlyReading(station: "중구", slot: hour, concentration: DustPair(fineDust: 51, ultraFineDust: 30))
        ])
        // The web reads the settings through a closure, as dustd reads its live configuration after SIGHUP.
        let stations = Mutex(StationPreference(primary: "종로구", fallbacks: ["중구"]))
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path)
        let data = WebData(
            store: { store },
            settings: {
                var current = settings
                current.stations = stations.withLock { $0 }
                return current
            }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        let registry = PrometheusCollectorRegistry()
        try await Application(router: WebServer(data: data, registry: registry, token: nil).router()).test(.router) { client in
            let before = try await client.execute(uri: "/metrics", method: .get) { text($0) }
            #expect(before.contains("finedust_concentration_grams_per_cubic_meter{station=\"중구\",pollutant=\"pm10\"} 5.1e-05"))
            #expect(before.contains("finedust_grade{station=\"중구\",pollutant=\"pm25\"} 2.0"))
            stations.withLock { $0 = StationPreference(primary: "종로구") }
            let after = try await client.execute(uri: "/metrics", method: .get) { text($0) }
            #expect(!after.contains("중구"))
            #expect(after.contains("finedust_concentration_grams_per_cubic_meter{station=\"종로구\",pollutant=\"pm10\"} 4.5e-05"))
        }
    }

    @Test("Gases: the latest known ppm per gas and the index, a flagged hour passed over; a gas never known has no sample")
    func gases() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // 중구's last hour: O3 0.095 (나쁨), CO flagged 장비점검, no NO2 and no index; the hour before
        // had NO2, CO and the index; SO2 neither hour.
        let hour = Slot(containing: DemoReplay.now).advanced(by: -1)
        let earlier = GasReading(ppm: GasValues(o3: 0.05, no2: 0.041, co: 0.4, so2: nil), cai: 75, caiGrade: .moderate)
        var latest = GasReading(ppm: GasValues(o3: 0.095, no2: nil, co: nil, so2: nil), cai: nil, caiGrade: nil)
        latest.flag.co = "장비점검"
        latest.reported = [.value(of: .o3), .value(of: .co)]
        _ = try await rig.store.saveReadings([
            HourlyReading(
                station: "중구", slot: hour.advanced(by: -1), concentration: DustPair(fineDust: 40, ultraFineDust: 20), gases: earlier),
            HourlyReading(station: "중구", slot: hour, concentration: DustPair(fineDust: 51, ultraFineDust: 30), gases: latest),
        ])
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "중구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path)
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        let body = try await scrape(
            Application(router: WebServer(data: data, registry: PrometheusCollectorRegistry(), token: nil).router()))
        let gasLines = body.split(separator: "\n").filter { $0.contains("finedust_gas_ppm") || $0.contains("finedust_cai") }.sorted()
        #expect(
            gasLines == [
                "# HELP finedust_cai AirKorea's integrated air-quality index (통합대기환경지수, 0–500) of the latest hour that had one.",
                "# HELP finedust_gas_ppm The latest known hourly gas concentration in ppm (parts per million by volume).",
                "# TYPE finedust_cai gauge",
                "# TYPE finedust_gas_ppm gauge",
                "finedust_cai{station=\"중구\"} 75.0",
                "finedust_gas_ppm{station=\"중구\",gas=\"co\"} 0.4",
                "finedust_gas_ppm{station=\"중구\",gas=\"no2\"} 0.041",
                "finedust_gas_ppm{station=\"중구\",gas=\"o3\"} 0.095",
            ])
    }

    @Test("Nothing stored: no hour, no forecast, no health but the stale flag; the build is still there")
    func emptyDatabase() async throws {
        let directory = try TemporaryDirectory("metrics")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("empty.sqlite"))
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path)
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        let body = try await scrape(
            Application(router: WebServer(data: data, registry: PrometheusCollectorRegistry(), token: nil).router()))
        let samples = body.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init).sorted()
        #expect(
            samples == [
                "finedust_build_info{version=\"\(FineDustVersion.current)\"} 1.0",
                "finedust_data_stale 1.0",
                // Nothing stored: no intake sample (unknown is absent, never 0).
                "finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm10\"} 0.0",
                "finedust_measured_slots_today{station=\"종로구\",pollutant=\"pm25\"} 0.0",
            ])
    }

    @Test("Indoor monitors: each sensor's standing sample per pollutant; a sample older than its hold has no series")
    func indoor() async throws {
        let directory = try TemporaryDirectory("metrics")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("indoor.sqlite"))
        let now = DemoReplay.now
        try await store.saveIndoor(
            samples: [
                IndoorSample(sensor: "living-room", at: now.addingTimeInterval(-120), value: DustPair(fineDust: 14, ultraFineDust: 8.5)),
                // Ten minutes old: past a sampled monitor's 5 minutes.
                IndoorSample(sensor: "bedroom", at: now.addingTimeInterval(-600), value: DustPair(fineDust: 30, ultraFineDust: 20)),
                // Home Assistant's state stands for 60 minutes.
                IndoorSample(
                    sensor: "study", at: now.addingTimeInterval(-1800), value: DustPair(fineDust: nil, ultraFineDust: 6),
                    holdSeconds: IndoorSample.stateHoldSeconds),
            ], states: [])
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path,
            people: [Person(name: "me", station: "종로구", indoorSensors: ["living-room", "bedroom", "study"])])
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(now), processIsDustd: { _ in false })
        let body = try await scrape(
            Application(router: WebServer(data: data, registry: PrometheusCollectorRegistry(), token: nil).router()))
        let lines = body.split(separator: "\n").filter { $0.contains("finedust_indoor") }.map(String.init).sorted()
        #expect(
            lines == [
                "# HELP finedust_indoor_ug_m3 An indoor monitor's latest sample in µg/m³ (within 5 minutes; a Home Assistant state within 60).",
                "# TYPE finedust_indoor_ug_m3 gauge",
                "finedust_indoor_ug_m3{sensor=\"living-room\",pollutant=\"pm10\"} 14.0",
                "finedust_indoor_ug_m3{sensor=\"living-room\",pollutant=\"pm25\"} 8.5",
                "finedust_indoor_ug_m3{sensor=\"study\",pollutant=\"pm25\"} 6.0",
            ])
    }

    private func scrape(_ application: some ApplicationProtocol) async throws -> String {
        try await application.test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                return text(response)
            }
        }
    }
}
