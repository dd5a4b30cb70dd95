import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

@Suite("dustctl advisories and the advisory line at the top of today", .timeLimit(.minutes(10)))
struct AdvisoriesCommandTests: AtOneNow {
    /// The test's one now: every dustctl runs at it.
    let now = PinnedNow()
    /// A whole minute an hour before now, so the test holds at any time of any day but the year's first hour.
    var issued: Date { Date(timeIntervalSince1970: ((now.date.timeIntervalSince1970 / 60).rounded(.down) - 60) * 60) }

    let calendar = DayCalendar(timeZone: KoreaStandardTime.timeZone)
    var year: Int { calendar.date(containing: issued).year }

    /// `YYYY-MM-DD HH:MM` of `instant` in KST.
    func minute(_ instant: Date) -> String {
        let iso = calendar.iso8601(instant)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5))
    }

    /// 종로구 (서울) readings, and: a 서울 도심권 PM10 경보 in force, a 경기 PM2.5 주의보 in force,
    /// a 서울 PM10 주의보 that was cleared, all issued this year.
    func database(_ directory: TemporaryDirectory, advisories: Bool = true) async throws -> String {
        let db = directory.path("dust.sqlite")
        let imported = try await dustctlNow("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        guard advisories else { return db }
        try await SQLiteStore(path: db).saveAdvisories([
            Advisory(
                pollutant: .pm10, key: "87", district: "서울", area: "도심권", level: .warning, issuedAt: issued, issueValue: 312),
            Advisory(
                pollutant: .pm25, key: "12", district: "경기", area: "남부권", level: .watch, issuedAt: issued.addingTimeInterval(60),
                issueValue: 81),
            Advisory(
                pollutant: .pm10, key: "86", district: "서울", area: "도심권", level: .watch, issuedAt: issued.addingTimeInterval(-60),
                clearedAt: issued, issueValue: 168, clearValue: nil),
        ])
        return db
    }

    @Test("Text: the district, those in force (the user's first, marked ▶), then the year's")
    func text() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await database(directory)
        let result = try await dustctlNow("advisories", "--db", db, "--station", "종로구")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput == """
                Advisories · 서울 (every 권역) · \(year)
                In force now
                ▶ 미세먼지 경보 (PM10 warning) · 서울 도심권 · since \(minute(issued)) · 312 µg/m³
                  초미세먼지 주의보 (PM2.5 watch) · 경기 남부권 · since \(minute(issued.addingTimeInterval(60))) · 81 µg/m³
                Issued in \(year)
                  초미세먼지 주의보 (PM2.5 watch) · 경기 남부권 · since \(minute(issued.addingTimeInterval(60))) · 81 µg/m³
                  미세먼지 경보 (PM10 warning) · 서울 도심권 · since \(minute(issued)) · 312 µg/m³
                  미세먼지 주의보 (PM10 watch) · 서울 도심권 · since \(minute(issued.addingTimeInterval(-60))) · until \(minute(issued)) · 168 µg/m³

                """)
        // Another 권역 of the district: the 경보 of 도심권 does not concern the user.
        let elsewhere = try await dustctlNow("advisories", "--db", db, "--station", "종로구", environment: ["DUSTD_ADVISORIES_AREA": "동북권"])
        #expect(elsewhere.standardOutput.hasPrefix("Advisories · 서울 동북권 · \(year)\nIn force now\n  초미세먼지 주의보"))
        #expect(elsewhere.standardOutput.contains("\n  미세먼지 경보 (PM10 warning) · 서울 도심권"))
        #expect(!elsewhere.standardOutput.contains("▶"))
    }

    @Test("JSON: the region, the active ones with their level, values (unknown is null) and whether they concern the user")
    func json() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await database(directory)
        let result = try await dustctlNow("advisories", "--db", db, "--station", "종로구", "--json")
        #expect(result.status == 0, "\(result.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(
            result.standardOutput.hasPrefix(
                #"{"region":{"district":"서울","area":null},"year":\#(year),"active":[{"pollutant":"PM10","key":"87""#))
        let active = try #require(document["active"] as? [[String: Any]])
        #expect(active.map { $0["key"] as? String } == ["87", "12"])
        #expect(active.map { $0["concernsYou"] as? Bool } == [true, false])
        #expect(active.first?["level"] as? String == "warning")
        #expect(active.first?["levelWord"] as? String == "경보")
        #expect(active.first?["levelRank"] as? Int == 2)
        #expect(active.first?["issueValue"] as? Double == 312)
        #expect(active.first?["clearedAt"] is NSNull)
        #expect(active.first?["issuedAt"] as? String == calendar.iso8601(issued))
        let all = try #require(document["advisories"] as? [[String: Any]])
        #expect(all.map { $0["key"] as? String } == ["12", "87", "86"])
        #expect(all.last?["clearValue"] is NSNull)
        #expect(all.last?["active"] as? Bool == false)
    }

    @Test("Another year: none stored is said, exit 0; a year out of range is a usage error")
    func otherYear() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await database(directory)
        let past = try await dustctlNow("advisories", "--db", db, "--station", "종로구", "--year", "2001")
        #expect(past.status == 0)
        #expect(past.standardOutput.contains("Issued in 2001\n  none stored"))
        let last = try await dustctlNow("advisories", "--db", db, "--station", "종로구", "--year", "2099")
        #expect(last.status == 0 && last.standardOutput.contains("Issued in 2099\n  none stored"), "\(last.standardError)")
        // 9999 trapped building 10000-01-01, the end of its range.
        for year in ["1999", "2100", "9999", "10000"] {
            let wrong = try await dustctlNow("advisories", "--db", db, "--year", year)
            #expect(wrong.status == 64, "\(year): \(wrong.standardError)")
            #expect(wrong.standardError.contains("--year must be a year from 2000 to 2099"))
        }
    }

    @Test("today: an advisory in force for the user's district is the first line; none for the user, today's text is unchanged")
    func todayTopLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plain = try await database(directory, advisories: false)
        let before = try await dustctlNow("today", "--db", plain, "--station", "종로구")
        #expect(before.status == 0, "\(before.standardError)")
        let other = try TemporaryDirectory()
        defer { other.remove() }
        let db = try await database(other)
        let today = try await dustctlNow("today", "--db", db, "--station", "종로구")
        #expect(today.status == 0)
        #expect(today.standardOutput == "▶ 미세먼지 경보 (PM10 warning) · 서울 도심권 · since \(minute(issued)) · 312 µg/m³\n" + before.standardOutput)
        let elsewhere = try await dustctlNow("today", "--db", db, "--station", "종로구", environment: ["DUSTD_ADVISORIES_DISTRICT": "부산"])
        #expect(elsewhere.standardOutput == before.standardOutput)
        // --json: `advisory`, last, the one the top line names; null when none concerns the user.
        let json = try await dustctlNow("today", "--db", db, "--station", "종로구", "--json")
        #expect(json.standardOutput.contains(#","advisory":{"pollutant":"PM10","key":"87","district":"서울","area":"도심권","level":"warning""#))
        // Then `latest` (issue 37): the newest stored hour whatever its day.
        #expect(json.standardOutput.contains(#""active":true,"concernsYou":true},"latest":{"start":"#))
        let none = try await dustctlNow("today", "--db", plain, "--station", "종로구", "--json")
        #expect(none.standardOutput.contains(#","advisory":null,"latest":{"#))
    }

    @Test("dustctl status: a line per operation turned off, saying what to apply for; none when every service answers")
    func statusLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = try await database(directory, advisories: false)
        let store = try SQLiteStore(path: db)
        var status = DaemonStatus(
            state: .idle, mode: .daemon, pid: 999_999, version: "test", station: "종로구", startedAt: issued, heartbeatSeconds: 600)
        let before = try await dustctlNow("status", "--db", db, "--station", "종로구")
        try await store.saveStatus(status)
        let plain = try await dustctlNow("status", "--db", db, "--station", "종로구")
        #expect(!plain.standardOutput.contains("Advisories"))
        status.advisories = DaemonStatus.AdvisoryRun(
            lastFetchAt: issued, turnedOff: [DaemonStatus.TurnedOff(pollutant: .pm10, at: issued, resultCode: "20")])
        try await store.saveStatus(status)
        let result = try await dustctlNow("status", "--db", db, "--station", "종로구")
        #expect(before.status == result.status)
        #expect(
            result.standardOutput.contains(
                "Advisories    PM10 off since \(calendar.iso8601(issued)): the service key is not approved for 한국환경공단_에어코리아_미세먼지 경보 발령 현황 (result 20): apply for it on data.go.kr (마이페이지 → 활용신청), then reload dustd (systemctl reload dustd)"
            ))
        let json = try await dustctlNow("status", "--db", db, "--station", "종로구", "--json")
        #expect(
            json.standardOutput.contains(
                #""advisories":{"lastFetch":"\#(calendar.iso8601(issued))","turnedOff":[{"pollutant":"PM10","service":"한국환경공단_에어코리아_미세먼지 경보 발령 현황""#
            ))
        // The advisories, then the poller (docs/REFERENCE.md §20) last.
        #expect(json.standardOutput.hasSuffix(#"}]},"poller":{"host":null,"pid":999999}}"# + "\n"))
    }
}
