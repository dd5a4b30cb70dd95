import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("dustctl forecast and the tomorrow line of today", .timeLimit(.minutes(10)))
struct ForecastCommandTests: AtOneNow {
    /// The test's one now: the forecasts are re-dated to its day, and every dustctl runs at it.
    let now = PinnedNow()

    /// A database with 종로구 (서울) readings and the fixtures' forecasts re-dated to today and
    /// tomorrow (KST) so the test holds on any day.
    func database(_ directory: TemporaryDirectory) async throws -> (String, LocalDate) {
        let db = directory.path("dust.sqlite")
        let imported = try await dustctlNow("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        let store = try SQLiteStore(path: db)
        let today = DayCalendar(timeZone: KoreaStandardTime.timeZone).date(containing: now.date)
        let shift = today.daysSinceEpoch - LocalDate(year: 2026, month: 11, day: 22).daysSinceEpoch
        for name in ["synthesized/forecast-pm10-2026-11-22.xml", "synthesized/forecast-pm25-2026-11-22.xml"] {
            let page = try AirKoreaResponseParser().parseForecasts(try TestFixtures.data(name))
            try await store.saveForecasts(
                page.forecasts.map { forecast in
                    var moved = forecast
                    moved.forecastDate = forecast.forecastDate.adding(days: shift)
                    moved.issuedAt = forecast.issuedAt.addingTimeInterval(Double(shift) * 86_400)
                    return moved
                })
        }
        return (db, today)
    }

    @Test("Text: the region, the 17시 issue, today and tomorrow in Korean and English")
    func text() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, today) = try await database(directory)
        let result = try await dustctlNow("forecast", "--db", db, "--station", "종로구")
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "Forecast · 서울 (Seoul) · \(today) 17시 발표")
        // 서울 from the 17시 issue: today PM10 보통 / PM2.5 보통; tomorrow PM10 나쁨 / PM2.5 매우나쁨.
        #expect(
            lines.contains { $0.hasPrefix("Today \(today.description.suffix(5))") && $0.contains("보통 (moderate)") && !$0.contains("나쁨") })
        #expect(
            lines.contains {
                $0.hasPrefix("Tomorrow \(today.adding(days: 1).description.suffix(5))") && $0.contains("나쁨 (bad)")
                    && $0.contains("매우나쁨 (very bad)")
            })

        let day = try await dustctlNow("today", "--db", db, "--station", "종로구")
        #expect(day.status == 0)
        #expect(day.standardOutput.contains("Tomorrow      PM10 나쁨 (bad)"))
        #expect(day.standardOutput.contains("forecast for 서울, \(today) 17시 발표"))
    }

    @Test("The region override: forecast.region 경기북부 reads that region's grades")
    func override() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, _) = try await database(directory)
        let result = try await dustctlNow(
            "forecast", "--db", db, "--station", "종로구", "--json", environment: ["DUSTD_FORECAST_REGION": "경기북부"])
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(document["region"] as? String == "경기북부")
        let tomorrow = try #require(document["tomorrow"] as? [String: Any])
        #expect((tomorrow["pm25"] as? [String: Any])?["grade"] as? Int == 3)
        #expect((tomorrow["pm10"] as? [String: Any])?["word"] as? String == "보통")
    }

    @Test("Text: the weekly outlook's four days for the region after today and tomorrow, with 신뢰도; none stored says so")
    func weeklyOutlook() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, today) = try await database(directory)
        let before = try await dustctlNow("forecast", "--db", db, "--station", "종로구")
        #expect(before.standardOutput.hasSuffix("\nNo weekly outlook is stored yet; dustd fetches it once a day after 17:30 KST.\n"))
        // Published yesterday, so its first day is the day after tomorrow's tomorrow: 서울 높음, 높음, 낮음, 낮음.
        let store = try SQLiteStore(path: db)
        let page = try AirKoreaResponseParser().parseWeeklyOutlooks(try TestFixtures.data("synthesized/weekly-outlook-2026-11-22.xml"))
        var outlook = try #require(page.outlooks.first)
        let shift = today.adding(days: -1).daysSinceEpoch - outlook.publishedOn.daysSinceEpoch
        outlook.publishedOn = outlook.publishedOn.adding(days: shift)
        outlook.days = outlook.days.map { day in
            var moved = day
            moved.date = day.date.adding(days: shift)
            return moved
        }
        try await store.saveWeeklyOutlook(outlook)
        let result = try await dustctlNow("forecast", "--db", db, "--station", "종로구")
        #expect(result.status == 0, "\(result.standardError)")
        // The lines before the outlook are what they were.
        #expect(
            result.standardOutput.hasPrefix(
                String(
                    before.standardOutput.dropLast("No weekly outlook is stored yet; dustd fetches it once a day after 17:30 KST.\n".count))
            ))
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let heading = try #require(lines.firstIndex(of: "Weekly outlook · 서울 · PM2.5 초미세먼지 · \(outlook.publishedOn) 발표"))
        let days = Array(lines[(heading + 1)...(heading + 4)])
        for (offset, line) in days.enumerated() {
            let date = outlook.days[offset].date
            #expect(line.contains(date.description.suffix(5)), "\(line)")
        }
        #expect(days[0].contains("높음 (high)") && days[0].hasSuffix("신뢰도 높음"))
        #expect(days[1].contains("높음 (high)") && days[1].hasSuffix("신뢰도 높음"))
        #expect(days[2].contains("낮음 (low)") && days[2].hasSuffix("신뢰도 낮음"))
        #expect(days[3].contains("낮음 (low)") && days[3].hasSuffix("신뢰도 낮음"))
        #expect(lines[heading + 6].hasPrefix("○ 3일 후에는 대기 정체로"))
        // Ten days on, every day of it has passed and none newer is stored: said so, not "none stored yet".
        let later = try await dustctlNow("forecast", "--db", db, "--station", "종로구", "--now", "\(today.adding(days: 10))T12:00")
        #expect(
            later.standardOutput.hasSuffix(
                "\nNo current weekly outlook: every day of the newest stored (published \(outlook.publishedOn)) has passed; "
                    + "dustd fetches it once a day after 17:30 KST.\n"), "\(later.standardOutput)")
    }

    @Test("No forecast stored: one sentence, exit 0 (as today with no readings)")
    func nothingStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        _ = try await dustctlNow("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        let result = try await dustctlNow("forecast", "--db", db, "--station", "종로구")
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("No forecast is stored for today or tomorrow yet"))
    }

    @Test("No outlook stored: --json ends with \"outlook\":null, exit 0")
    func noOutlookJSON() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, _) = try await database(directory)
        let result = try await dustctlNow("forecast", "--db", db, "--station", "종로구", "--json")
        #expect(result.status == 0)
        #expect(result.standardOutput.hasSuffix(",\"outlook\":null}\n"))
    }

    @Test("dustctl status counts today's forecast calls (KST) against the cap of 12, text and JSON")
    func statusCountsCalls() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (db, _) = try await database(directory)
        let store = try SQLiteStore(path: db)
        let now = self.now.date
        let midnight = DayCalendar(timeZone: KoreaStandardTime.timeZone).start(
            of: DayCalendar(timeZone: KoreaStandardTime.timeZone).date(containing: now))
        // Three today, one the day before (not counted), one poll (not a forecast call).
        for (offset, kind, operation) in [
            (1.0, AttemptKind.forecast, "forecast PM10 x page 1"), (2.0, .forecast, "forecast PM25 x page 1"),
            (3.0, .forecast, "forecast PM10 x page 1"), (-60.0, .forecast, "forecast PM25 x page 1"),
            (4.0, .measurement, "station 종로구 DAILY page 1"),
        ] {
            let at = offset < 0 ? midnight.addingTimeInterval(offset) : min(midnight.addingTimeInterval(offset), now)
            try await store.recordAttempt(PollAttempt(startedAt: at, station: nil, kind: kind, operation: operation, outcome: .ok))
        }
        let text = try await dustctlNow("status", "--db", db, "--station", "종로구")
        #expect(text.standardOutput.contains("Forecast      3/12 calls today (KST)"), "\(text.standardOutput)")
        let json = try await dustctlNow("status", "--db", db, "--station", "종로구", "--json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let forecast = try #require(document["forecast"] as? [String: Any])
        #expect(forecast["callsToday"] as? Int == 3)
        #expect(forecast["dailyCap"] as? Int == 12)
    }
}
