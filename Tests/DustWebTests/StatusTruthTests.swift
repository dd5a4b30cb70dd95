import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// dustd's last record after a long run: idle with a next poll (now in the past), a forecast fetch
/// planned, a refused reload, and a storage failure naming the database's path.
private func lastRecord(now: Date, state: DaemonStatus.State = .idle, mode: DaemonStatus.Mode = .daemon) -> DaemonStatus {
    var status = DaemonStatus(
        state: state, mode: mode, pid: 4242, version: "1.0.0", station: "종로구",
        startedAt: now.addingTimeInterval(-86_400), heartbeatSeconds: 60)
    status.heartbeatAt = now.addingTimeInterval(-3600)
    status.nextPollAt = now.addingTimeInterval(-1800)
    status.forecast = .init(nextFetchAt: now.addingTimeInterval(-600))
    status.reloadRefused = .init(
        at: now.addingTimeInterval(-7200), reason: "Invalid configuration in /etc/dustd/dustd.yaml: poll.minute is 99")
    status.lastError = .init(
        at: now.addingTimeInterval(-3700),
        failure: .storage(StorageFailure(SQLiteFailure.diskFull(path: "/var/lib/dustd/dust.sqlite"))))
    if state == .stopped { status.stoppedAt = now.addingTimeInterval(-3600) }
    return status
}

private let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)

@Suite("Nothing claims a state dustd is no longer in, and the web shows no paths or PID", .timeLimit(.minutes(10)))
struct StatusTruthTests {
    /// Every state but running, with how dustd got there.
    static let endings: [(name: String, daemon: DaemonHealth.Daemon, status: @Sendable (Date) -> DaemonStatus?, alive: Bool)] = [
        ("stopped", .stopped, { lastRecord(now: $0, state: .stopped) }, false),
        ("ran once", .stopped, { lastRecord(now: $0, state: .stopped, mode: .once) }, false),
        ("gone (SIGKILL)", .gone, { lastRecord(now: $0) }, false),
        ("not responding", .notResponding, { lastRecord(now: $0) }, true),
        ("never run", .neverRun, { _ in nil }, false),
    ]

    @Test("JSON: no idle, no next poll or fetch, in every state but running; running keeps them")
    func json() throws {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        for ending in Self.endings {
            let health = DaemonHealth(status: ending.status(now), newestSlot: nil, now: now, processIsDustd: { _ in ending.alive })
            #expect(health.daemon == ending.daemon, "\(ending.name)")
            let document = ReportJSON.status(
                health, database: "/var/lib/dustd/dust.sqlite", station: "종로구", rows: 0,
                calendar: seoul, forecastCallsToday: 0
            ).serialized
            let expectedState = ending.daemon == .stopped ? "\"state\":\"stopped\"" : "\"state\":null"
            #expect(document.contains(expectedState), "\(ending.name): \(document)")
            #expect(document.contains("\"nextPoll\":null"), "\(ending.name): \(document)")
            #expect(document.contains("\"nextFetch\":null"), "\(ending.name): \(document)")
            #expect(!document.contains("idle"), "\(ending.name): \(document)")
        }
        var running = lastRecord(now: now)
        running.heartbeatAt = now.addingTimeInterval(-30)
        running.nextPollAt = now.addingTimeInterval(1800)
        let health = DaemonHealth(status: running, newestSlot: nil, now: now, processIsDustd: { _ in true })
        let document = ReportJSON.status(
            health, database: "/var/lib/dustd/dust.sqlite", station: "종로구", rows: 0,
            calendar: seoul, forecastCallsToday: 0
        ).serialized
        #expect(document.contains("\"state\":\"idle\""))
        #expect(document.contains("\"nextPoll\":\"\(seoul.iso8601(now.addingTimeInterval(1800)))\""))
        #expect(document.contains("\"pid\":4242"))
        #expect(document.contains("\"database\":\"/var/lib/dustd/dust.sqlite\""))
    }

    @Test("The dashboard: no \"kept its previous configuration\", no waiting line, no PID and no path once dustd does not run")
    func dashboard() async throws {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let statistics = try rig.source().statistics()
        let week = try await statistics.rollingWeek(endingOn: statistics.today)
        for ending in Self.endings {
            let health = DaemonHealth(status: ending.status(now), newestSlot: nil, now: now, processIsDustd: { _ in ending.alive })
            for language in [PageLanguage.english, .korean] {
                let page = DashboardPage.render(
                    DashboardModel(
                        page: .today, language: language, station: "종로구", day: nil, week: week,
                        intakeUnit: .micrograms, calendar: seoul, health: health, now: now,
                        audience: WebAudience(knownPaths: ["dust.sqlite"]), showsOperatorDetail: true))
                #expect(!page.contains("kept its previous configuration") && !page.contains("이전 설정으로 동작합니다"), "\(ending.name)")
                #expect(!page.contains("4242"), "\(ending.name)")
                #expect(!page.contains("/var/lib/dustd") && !page.contains("/etc/dustd"), "\(ending.name)")
                #expect(!page.contains("waiting") && !page.contains("기다리는 중"), "\(ending.name)")
            }
        }
    }

    @Test("Paths are hidden in web text: absolute, home, known relative ones; URLs and units stay")
    func hidingPaths() {
        let audience = WebAudience(knownPaths: ["dust data/dust.sqlite", ""])
        #expect(
            audience.hidingPaths(in: "The disk holding /var/lib/dustd/dust.sqlite is full.")
                == "The disk holding (path hidden) is full.")
        #expect(
            audience.hidingPaths(in: "cannot open \"dust data/dust.sqlite\" (~/x/y, /etc/dustd/dustd.yaml): no")
                == "cannot open \"(path hidden)\" ((path hidden), (path hidden)): no")
        #expect(
            audience.hidingPaths(in: "key=/run/credentials/dustd.service/airkorea-service-key")
                == "key=(path hidden)")
        let kept = "https://apis.data.go.kr/B552584/ArpltnInforInqireSvc answered 41 µg/m³ at 3/12 calls; A / B; <b>x</b>"
        #expect(audience.hidingPaths(in: kept) == kept)
    }
}

@Suite("/api/v1/status on the web", .timeLimit(.minutes(10)))
struct WebStatusDocumentTests {
    @Test(
        "No database path, no PID but the poller's, no path in a message; otherwise dustctl's document, and a killed dustd claims no state")
    func noPaths() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        var record = lastRecord(now: rig.now.date)
        record.lastError = .init(
            at: rig.now.date.addingTimeInterval(-60),
            failure: .storage(StorageFailure(SQLiteFailure.diskFull(path: rig.store.path))))
        try await rig.store.saveStatus(record)
        let printed = try await rig.dustctl(["status"])
        #expect(printed.standardOutput.contains(rig.store.path), "dustctl shows the operator the path")
        try await rig.application(try rig.source(clock: rig.now.clock)).test(.router) { client in
            try await client.execute(uri: "/api/v1/status", method: .get) { response in
                let body = text(response)
                #expect(!body.contains(rig.store.path) && !body.contains("/etc/dustd") && !body.contains(rig.directory.path("")))
                // The PID only where the API names the poller (docs/REFERENCE.md §20), never as dustd's own `pid`.
                #expect(body.components(separatedBy: "4242").count == 2)
                #expect(body.hasSuffix(#","poller":{"host":null,"pid":4242}}"# + "\n"))
                var served = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
                var shown = try #require(try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any])
                #expect(served["database"] == nil && served["pid"] == nil)
                #expect(served["daemon"] as? String == "gone" && served["state"] is NSNull && served["nextPoll"] is NSNull)
                #expect(((served["lastError"] as? [String: Any])?["message"] as? String)?.contains("(path hidden)") == true)
                #expect(
                    ((served["reloadRefused"] as? [String: Any])?["reason"] as? String)
                        == "Invalid configuration in (path hidden): poll.minute is 99")
                // The rest is dustctl's document.
                for key in ["database", "pid", "lastError", "reloadRefused", "dataAgeSeconds"] {
                    served.removeValue(forKey: key)
                    shown.removeValue(forKey: key)
                }
                #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: shown))
            }
        }
    }

    @Test("`poller`, last: the host and PID of the dustd that polls (docs/REFERENCE.md §20), one on another host judged by its heartbeat")
    func namesThePoller() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        var record = DaemonStatus(
            state: .idle, mode: .daemon, pid: 4242, version: "1.0.0", station: "종로구",
            startedAt: DemoReplay.now.addingTimeInterval(-3600), heartbeatSeconds: 600, host: "dust-b.example")
        record.heartbeatAt = DemoReplay.now.addingTimeInterval(-120)
        try await rig.store.saveStatus(record)
        try await rig.application(try rig.source()).test(.router) { client in
            try await client.execute(uri: "/api/v1/status", method: .get) { response in
                let body = text(response)
                #expect(
                    body.hasSuffix(
                        #","advisories":{"lastFetch":null,"turnedOff":[]},"poller":{"host":"dust-b.example","pid":4242}}"# + "\n"))
                // No process 4242 on this machine, yet running: another host's dustd is judged by its heartbeat.
                #expect(body.contains(#""daemon":"running","state":"idle""#))
            }
        }
    }
}
