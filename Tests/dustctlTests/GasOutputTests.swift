import DustKit
import Foundation
import TestSupport
import Testing

/// What `dustctl today|day|hourly` show of the gases (docs/REFERENCE.md §17).
@Suite("dustctl shows the gases after PM", .timeLimit(.minutes(10)))
struct GasOutputTests {
    private func importedJunggu() async throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let db = directory.path("dust.sqlite")
        let imported = try await dustctl(
            "import", fixture("synthesized/station-junggu-ver1.5-gases-dash-flag-implausible-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0)
        return (directory, db)
    }

    @Test("day: the gases block closes the text, graded by the CAI bands, implausible and flagged hours not counted")
    func dayText() async throws {
        let (directory, db) = try await importedJunggu()
        defer { directory.remove() }
        let text = try await dustctl("day", "2026-11-20", "--station", "중구", "--db", db).standardOutput
        let block = """

            Gases 대기가스 · latest hour 23:00–24:00 · ppm, graded by the CAI bands
                          O3 오존         NO2 이산화질소  CO 일산화탄소   SO2 아황산가스
            Latest        0.031 보통      0.030 좋음      9.01 나쁨       0.151 매우나쁨
            Hours         1 of 24         1 of 24         2 of 24         2 of 24
            Mean          0.031           0.030           4.71            0.085
            Max           0.031           0.030           9.01            0.151
            Grade of max  보통 moderate   좋음 good       나쁨 bad        매우나쁨 very bad
            CAI 통합대기환경지수  latest – · max 120 나쁨 (bad) · mean 120.0 · 1 of 24 hours

            """
        #expect(text.hasSuffix(block))
        #expect(text.hasPrefix("중구 · 2026-11-20 (Fri) · Asia/Seoul\n"))
    }

    @Test("hourly: each hour's ppm, the index and the flags, after the PM table")
    func hourlyText() async throws {
        let (directory, db) = try await importedJunggu()
        defer { directory.remove() }
        let text = try await dustctl("hourly", "2026-11-20", "--station", "중구", "--db", db).standardOutput
        let table = """

            Gases, ppm        O3    NO2     CO    SO2  CAI  Note
            20:00–21:00        –      –      –      –    –
            21:00–22:00        –      –   0.40  0.020  120  O3 장비점검, NO2 implausible
            22:00–23:00        –      –      –      –    –  O3 점검중, CO implausible, SO2 implausible
            23:00–24:00    0.031  0.030   9.01  0.151    –

            """
        #expect(text.hasSuffix(table))
    }

    @Test("--json: `gases` is the last key of day and hourly, with the latest hour, the totals and every hour")
    func jsonKeyLast() async throws {
        let (directory, db) = try await importedJunggu()
        defer { directory.remove() }
        let day = try await dustctl("day", "2026-11-20", "--station", "중구", "--db", db, "--json").standardOutput
        let latest =
            #"{"start":"2026-11-20T23:00:00+09:00","o3":0.031,"no2":0.03,"co":9.01,"so2":0.151,"#
            + #""grade":{"o3":2,"no2":1,"co":3,"so2":4},"flags":{"o3":null,"no2":null,"co":null,"so2":null},"cai":null,"caiGrade":null}"#
        let gasesAt = try #require(day.range(of: #","gases":{"latest":"#))
        #expect(day[gasesAt.lowerBound...].hasPrefix(#","gases":{"latest":"# + latest + #","totals":{"o3":{"hours":1,"mean":0.031,"#))
        // The gases object parses on its own once the document's closing brace is taken off: nothing follows it.
        #expect(day.hasSuffix("}}\n"))
        let gases = "{\"latest\":" + day[gasesAt.upperBound...].dropLast(2)
        let object = try JSONSerialization.jsonObject(with: Data(gases.utf8)) as? [String: Any]
        let totals = try #require(object?["totals"] as? [String: [String: Any]])
        #expect(totals["co"]?["hours"] as? Int == 2)
        #expect(totals["co"]?["max"] as? Double == 9.01)
        #expect(totals["co"]?["grade"] as? Int == 3)
        #expect(totals["cai"]?["max"] as? Int == 120)
        #expect((object?["hourly"] as? [Any])?.count == 4)

        let hourly = try await dustctl("hourly", "2026-11-20", "--station", "중구", "--db", db, "--json").standardOutput
        let hourlyObject = try #require(try JSONSerialization.jsonObject(with: Data(hourly.utf8)) as? [String: Any])
        #expect(hourly.contains(#"}],"gases":{"hourly":[{"start":"2026-11-20T20:00:00+09:00","o3":null"#))
        #expect(hourly.hasSuffix("]}}\n"))
        let flags = try #require(((hourlyObject["gases"] as? [String: Any])?["hourly"] as? [[String: Any]])?[2]["flags"] as? [String: Any])
        #expect(flags["o3"] as? String == "점검중")
        #expect(flags["co"] as? String == HourlyReading.implausibleFlag)
    }
}
