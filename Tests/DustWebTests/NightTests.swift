import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Between midnight and the day's first stored hour (docs/REFERENCE.md §6, `latest`): every today view
/// shows the newest stored hour with its time, and an intake not known yet is null or absent, never 0.
@Suite("Never blank at night", .timeLimit(.minutes(10)))
struct NightTests {
    /// 2026-11-21 00:30 KST: the demo's last hour (11-20 23:00–24:00, PM10 45, PM2.5 22) has ended, today has none.
    static let night = instant(kst: "2026-11-21T00:30:00")

    @Test("/api/v1/today's latest is the newest stored hour and is dustctl today --now's, byte for byte; intake null, not 0")
    func api() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let cli = try await rig.dustctl(["today", "--now", "2026-11-21T00:30"])
        #expect(cli.status == 0, "\(cli.standardError)")
        try await rig.application(try rig.source(clock: FixedClock(Self.night))).test(.router) { client in
            try await client.execute(uri: "/api/v1/today", method: .get) { response in
                #expect(text(response) == cli.standardOutput)
                let document = try #require(try JSONSerialization.jsonObject(with: Data(text(response).utf8)) as? [String: Any])
                let latest = try #require(document["latest"] as? [String: Any])
                #expect(latest["start"] as? String == "2026-11-20T23:00:00+09:00")
                #expect(latest["end"] as? String == "2026-11-21T00:00:00+09:00")
                #expect(latest["pm10"] as? Double == 45 && latest["pm25"] as? Double == 22)
                #expect((latest["grade"] as? [String: Any])?["pm10"] as? Int == 2)
                let intake = try #require(document["intake"] as? [String: Any])
                #expect(intake["pm10"] is NSNull && intake["pm25"] is NSNull)
            }
            try await client.execute(uri: "/", method: .get) { response in
                let page = text(response)
                #expect(page.contains("가장 최근 측정"))
                #expect(page.contains("data-latest=\"2026-11-20T23:00:00+09:00\""))
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let metrics = text(response)
                #expect(!metrics.contains("finedust_intake_today_grams{"), "no hour of today: no intake sample, never 0")
                #expect(metrics.contains("finedust_concentration_grams_per_cubic_meter{station=\"종로구\",pollutant=\"pm10\"} 4.5e-05"))
            }
        }
        // By day the document's latest is the day's newest stored hour, as the card shows it (the demo stores
        // 23:00–24:00, which a real AirKorea publishes after it ends).
        try await rig.application(try rig.source(clock: FixedClock(instant(kst: "2026-11-20T23:30:00")))).test(.router) { client in
            try await client.execute(uri: "/api/v1/today", method: .get) { response in
                let document = try #require(try JSONSerialization.jsonObject(with: Data(text(response).utf8)) as? [String: Any])
                #expect((document["latest"] as? [String: Any])?["start"] as? String == "2026-11-20T23:00:00+09:00")
            }
        }
    }

    @Test("dustctl today at night prints the newest stored hour with its date; --now and FINEDUST_NOW are checked")
    func terminal() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let result = try await Executables.run(
            "dustctl", ["today", "--db", rig.store.path, "--station", "종로구"],
            environment: ["DUSTD_CONFIG": rig.configuration, "FINEDUST_NOW": "2026-11-20T15:30:00Z"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.contains(
                "Latest stored hour 2026-11-20 23:00–24:00   PM10 45 µg/m³ 보통 (moderate)   PM2.5 22 µg/m³ 보통 (moderate)"))
        let bad = try await rig.dustctl(["today", "--now", "tomorrow"])
        #expect(bad.status == 64 && bad.standardError.contains("--now \"tomorrow\" is not a time"))
    }

    @Test("A past day's big card is the day itself: its mean and the grade of the mean, not its last hour's")
    func pastDay() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let day = try await rig.dustctl(["day", "2026-11-19"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(day.standardOutput.utf8)) as? [String: Any])
        let grades = try #require(document["grade"] as? [String: Any])
        // The badge shows the worse of the two means' grades.
        let grade = try #require([grades["pm10"], grades["pm25"]].compactMap { $0 as? Int }.max())
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/day/2026-11-19", method: .get) { response in
                let page = text(response)
                #expect(page.contains("이날 평균"))
                #expect(page.contains("<div class=\"badge g\(grade)\">"), "the badge is the day's mean grade, \(grade)")
                #expect(!page.contains("최근 1시간"))
            }
        }
    }

    @Test("The day's intake beside a point of reference: the times a WHO day's dose, from each hour's intake and value")
    func intakeReference() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let day = try await rig.dustctl(["day", "2026-11-20"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(day.standardOutput.utf8)) as? [String: Any])
        let hours = try #require(document["hourly"] as? [[String: Any]])
        var expected: [String] = []
        for (pollutant, guideline) in [("pm10", 45.0), ("pm25", 15.0)] {
            var intake = 0.0
            var perMicrogram = 0.0
            for hour in hours {
                guard let value = hour[pollutant] as? Double, value > 0,
                    let dose = (hour["intake"] as? [String: Any])?[pollutant] as? Double
                else { continue }
                intake += dose
                perMicrogram += dose / value
            }
            expected.append(String(format: "%.1f", intake / (guideline * perMicrogram)))
        }
        let ratios = expected
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/day/2026-11-20?lang=en", method: .get) { response in
                let page = text(response)
                for ratio in ratios { #expect(page.contains("<dt>vs. a WHO day</dt><dd>\(ratio)×</dd>"), "\(ratio)") }
            }
        }
    }
}
