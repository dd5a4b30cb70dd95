import DustKit
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// A record as dustd writes it, its heartbeat `age` seconds before now.
private func record(host: String?, age: TimeInterval, now: Date = Date()) -> DaemonStatus {
    var status = DaemonStatus(
        state: .idle, mode: .daemon, pid: 4242, version: "test", station: "종로구", startedAt: now.addingTimeInterval(-3600),
        heartbeatSeconds: 600, host: host)
    status.heartbeatAt = now.addingTimeInterval(-age)
    return status
}

@Suite("The status names the poller: its host beside its PID (docs/REFERENCE.md §20)", .timeLimit(.minutes(10)))
struct PollerStatusTests {
    @Test("Before dustd has made its database: never run (exit 3), text and JSON, in both languages; nothing is created")
    func noDatabaseYet() async throws {
        let directory = try TemporaryDirectory("finedust-status-new")
        defer { directory.remove() }
        let db = directory.path("state/dust.sqlite")
        let text = try await dustctl("status", "--db", db, "--station", "종로구")
        #expect(text.status == 3, "\(text.standardError)")
        #expect(text.standardError.isEmpty)
        #expect(text.standardOutput.contains("There is no database at \(db) yet; dustd creates it when it first starts."))
        let korean = try await dustctl("status", "--db", db, "--station", "종로구", environment: ["LC_ALL": "ko_KR.UTF-8"])
        #expect(korean.status == 3 && korean.standardOutput.contains("\(db)에 아직 데이터베이스가 없습니다."), "\(korean.standardOutput)")
        let json = try await dustctl("status", "--db", db, "--station", "종로구", "--json")
        #expect(json.status == 3, "\(json.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(document["daemon"] as? String == "neverRun")
        #expect(document["rows"] as? Int == 0)
        #expect(!FileManager.default.fileExists(atPath: db) && !FileManager.default.fileExists(atPath: directory.path("state")))
    }

    @Test("A record of an older dustd, without host, still decodes (host nil); a new one keeps its host")
    func oldRecordDecodes() throws {
        let old = record(host: nil, age: 0, now: Date(timeIntervalSince1970: 1_795_000_000))
        let text = old.encoded()
        #expect(!text.contains("host"))
        #expect(DaemonStatus.decoded(text) == old)
        // As an older dustd wrote it, by hand: no `host` key at all.
        let written =
            #"{"heartbeatAt":1795000000,"heartbeatSeconds":600,"mode":"daemon","pid":4242,"#
            + #""startedAt":1794996400,"state":"idle","station":"종로구","version":"0.9"}"#
        let decoded = try #require(DaemonStatus.decoded(written))
        #expect(decoded.host == nil && decoded.pid == 4242 && decoded.version == "0.9")
        let new = record(host: "dust-b.example", age: 0, now: Date(timeIntervalSince1970: 1_795_000_000))
        #expect(new.encoded().contains(#""host":"dust-b.example""#))
        #expect(DaemonStatus.decoded(new.encoded())?.host == "dust-b.example")
        #expect(!DaemonStatus.localHost.isEmpty)
    }

    @Test("A poller on another host is judged by its heartbeat's age alone; one on this host by its PID, as always")
    func judgedByHeartbeatElsewhere() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        // No process 4242 here: on another host that says nothing.
        let fresh = DaemonHealth(
            status: record(host: "dust-b", age: 60, now: now), newestSlot: nil, now: now, processIsDustd: { _ in false }, thisHost: "dust-a"
        )
        #expect(fresh.elsewhere && fresh.daemon == .running && fresh.currentState == .idle)
        #expect(fresh.daemonSummary == "running (PID 4242 on dust-b, judged by its heartbeat alone), idle")
        // Two heartbeat intervals (1200 s) without one: not running, whatever a local PID 4242 is.
        let late = DaemonHealth(
            status: record(host: "dust-b", age: 1200, now: now), newestSlot: nil, now: now, processIsDustd: { _ in true },
            thisHost: "dust-a")
        #expect(late.daemon == .gone && late.exitStatus == 3 && late.nextPoll == nil)
        #expect(
            late.daemonSummary
                == "not running: its heartbeat is late (PID 4242 on dust-b, last heard from at 2026-11-18T19:46:40+09:00; judged by the heartbeat alone, "
                + "another machine's process cannot be checked); check `journalctl -u dustd` on dust-b")
        // This host's record, or one without host: the PID decides, as before.
        for host in ["dust-a", nil] {
            let here = DaemonHealth(
                status: record(host: host, age: 60, now: now), newestSlot: nil, now: now, processIsDustd: { _ in false }, thisHost: "dust-a"
            )
            #expect(!here.elsewhere && here.daemon == .gone)
            #expect(here.daemonSummary.hasPrefix("not running: it ended without stopping (PID 4242)"))
        }
    }

    @Test("dustctl status: a `Poller` line when the poller is another host; this host's record prints what it always did")
    func pollerLine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("dust.sqlite")
        let store = try SQLiteStore(path: db)
        // One heartbeat time for both records: the two runs print it, and may be seconds apart.
        let now = Date()
        try await store.saveStatus(record(host: nil, age: 0, now: now))
        let before = try await dustctl("status", "--db", db, "--station", "종로구")
        try await store.saveStatus(record(host: DaemonStatus.localHost, age: 0, now: now))
        let here = try await dustctl("status", "--db", db, "--station", "종로구")
        #expect(here.standardOutput == before.standardOutput)
        #expect(here.status == before.status)
        #expect(!here.standardOutput.contains("Poller"))

        try await store.saveStatus(record(host: "dust-b.example", age: 30))
        let elsewhere = try await dustctl("status", "--db", db, "--station", "종로구")
        let lines = elsewhere.standardOutput.split(separator: "\n").map(String.init)
        let daemon = try #require(lines.firstIndex { $0.hasPrefix("dustd ") })
        #expect(lines[daemon] == "dustd         running (PID 4242 on dust-b.example, judged by its heartbeat alone), idle")
        #expect(lines[daemon + 1] == "Poller        host dust-b.example, PID 4242")
        // Running, but the data is stale (nothing stored): 4, not 3 as for a dead local PID.
        #expect(elsewhere.status == 4)
        let json = try await dustctl("status", "--db", db, "--station", "종로구", "--json")
        #expect(json.standardOutput.hasSuffix(#","poller":{"host":"dust-b.example","pid":4242}}"# + "\n"))
        #expect(json.standardOutput.contains(#""daemon":"running""#))
    }
}
