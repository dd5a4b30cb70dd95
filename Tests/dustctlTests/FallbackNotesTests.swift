import Foundation
import TestSupport
import Testing

/// docs/REFERENCE.md §5's fallbacks, as `today` and `day` show them: a value another station gave is named
/// beside it, with its pollutant when the hour's other value is the home station's own.
@Suite("Fallback notes: the latest hour and each row name the station that gave a value", .timeLimit(.minutes(10)))
struct FallbackNotesTests {
    static func item(_ station: String, _ time: String, pm10: String, pm25: String, flag25: String = "") -> String {
        "<item><stationName>\(station)</stationName><dataTime>\(time)</dataTime><pm10Value>\(pm10)</pm10Value>"
            + "<pm25Value>\(pm25)</pm25Value><pm10Flag></pm10Flag><pm25Flag>\(flag25)</pm25Flag></item>"
    }

    @Test(
        "종로구's newest hour flagged, 중구's standing in: the latest hour says from 중구; an hour whose PM2.5 is 종로구's says PM10 from 중구"
    )
    func named() async throws {
        let directory = try TemporaryDirectory("finedust-fallback-notes")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\n  fallbacks: [중구]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let items = [
            Self.item("종로구", "2020-12-31 01:00", pm10: "-", pm25: "9"), Self.item("중구", "2020-12-31 01:00", pm10: "101", pm25: "5"),
            Self.item("종로구", "2020-12-31 02:00", pm10: "57", pm25: "8"),
            Self.item("종로구", "2020-12-31 03:00", pm10: "-", pm25: "40", flag25: "통신장애"),
            Self.item("중구", "2020-12-31 03:00", pm10: "103", pm25: "52"),
        ]
        let file = directory.path("hours.xml")
        try
            ("<response><header><resultCode>00</resultCode></header><body><items>" + items.joined()
            + "</items><totalCount>5</totalCount></body></response>").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try await dustctl("import", file, "--db", db, "--config", config).status == 0)
        let today = try await dustctl(
            "today", "--now", "2020-12-31T02:30", "--db", db, "--config", config, environment: ["LC_ALL": "C", "NO_COLOR": "1"])
        #expect(today.status == 0, "\(today.standardError)")
        let lines = today.standardOutput.split(separator: "\n").map(String.init)
        let latest = try #require(lines.first { $0.hasPrefix("Latest hour") })
        #expect(latest.hasPrefix("Latest hour 02:00–03:00") && latest.hasSuffix("   from 중구"), "\(latest)")
        let mixed = try #require(lines.first { $0.hasPrefix("00:00–01:00") })
        #expect(mixed.contains("PM10 from 중구") && !mixed.contains("PM2.5 from"), "\(mixed)")
        let own = try #require(lines.first { $0.hasPrefix("01:00–02:00") })
        #expect(!own.contains("from"), "\(own)")
        let korean = try await dustctl(
            "today", "--now", "2020-12-31T02:30", "--db", db, "--config", config,
            environment: ["LANG": "ko_KR.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "NO_COLOR": "1"])
        #expect(korean.standardOutput.contains("PM10 중구 측정값"), "\(korean.standardOutput)")
    }
}
