import DustKit
import DustServices
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import Synchronization
import TestSupport
import Testing

@testable import DustWeb

/// Answers kept until what they came from changes (docs/REFERENCE.md §13, "Answers kept"): the data
/// (every write), the settings (a reload), who asks, and the clock's hour (documents) or minute (pages).
@Suite("dustd on the web: answers kept until the data, the settings, the asker or the hour change", .timeLimit(.minutes(10)))
struct AnswerCacheTests {
    static let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST

    /// 종로구's report settings in Korea's time, for a `WebData` of the test's own.
    static func reportSettings(databasePath: String, model: VentilationIntakeModel, people: [Person] = []) -> WebData.ReportSettings {
        WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: model, databasePath: databasePath, people: people)
    }

    func response(
        _ client: some TestClientProtocol, _ path: String, headers: HTTPFields = [:], method: HTTPRequest.Method = .get
    ) async throws -> (status: HTTPResponse.Status, text: String, tag: String?) {
        try await client.execute(uri: path, method: method, headers: headers) { response in
            (response.status, text(response), response.headers[.eTag])
        }
    }

    @Test("The same question twice is the same bytes and tag; a write of an hour shown is seen at the next question")
    func writeSeen() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            for path in ["/api/v1/day/2026-11-20", "/day/2026-11-20"] {
                let first = try await response(client, path)
                let again = try await response(client, path)
                #expect(first.status == .ok && again.status == .ok)
                #expect(first.text == again.text)
                #expect(first.tag != nil && first.tag == again.tag)
            }
            let before = try await response(client, "/api/v1/day/2026-11-20")
            let page = try await response(client, "/day/2026-11-20")
            #expect(!before.text.contains("\"pm10\":187"))
            // AirKorea revises 08:00 to 187 µg/m³ (매우나쁨): the next answers say so.
            let revised = HourlyReading(
                station: "종로구", slot: Self.eight, concentration: DustPair(fineDust: 187, ultraFineDust: 30),
                grade24h: DustPair(fineDust: nil, ultraFineDust: nil), sidoName: "서울")
            #expect(try await rig.store.saveReadings([revised], fetchedAt: DemoReplay.now) == UpsertSummary(updated: 1))
            let after = try await response(client, "/api/v1/day/2026-11-20")
            #expect(after.text.contains("\"pm10\":187"))
            #expect(after.tag != nil && after.tag != before.tag)
            let cli = try await rig.dustctl(["day", "2026-11-20"])
            #expect(after.text == cli.standardOutput)
            let pageAfter = try await response(client, "/day/2026-11-20")
            #expect(pageAfter.text != page.text && pageAfter.tag != page.tag)
        }
    }

    @Test("If-None-Match naming the answer's tag is 304 with no body; another tag, or none, gets the answer")
    func notModified() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.application(try rig.source()).test(.router) { client in
            for path in ["/api/v1/today", "/api/v1/week/2026-W47", "/"] {
                let first = try await response(client, path)
                let tag = try #require(first.tag)
                for asked in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                    let again = try await response(client, path, headers: [.ifNoneMatch: asked])
                    #expect(again.status == .notModified, "\(path) \(asked)")
                    #expect(again.text.isEmpty)
                    #expect(again.tag == tag)
                }
                let other = try await response(client, path, headers: [.ifNoneMatch: "\"0123456789abcdef01234567\""])
                #expect(other.status == .ok && other.text == first.text)
                let head = try await response(client, path, headers: [.ifNoneMatch: tag], method: .head)
                #expect(head.status == .notModified && head.text.isEmpty)
            }
            // What is never kept carries no tag: /healthz and /metrics change with every poll and request.
            #expect(try await response(client, "/healthz").tag == nil)
            #expect(try await response(client, "/metrics").tag == nil)
        }
    }

    @Test("A person's kept answer is never another's: each token gets its own, whatever was asked before")
    func perAsker() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let app = try WebAccessTests().application(rig)
        try await app.test(.router) { client in
            let dad = WebAccessTests.bearer(WebAccessTests.dadToken)
            let minji = WebAccessTests.bearer(WebAccessTests.minjiToken)
            let admin = WebAccessTests.bearer(WebAccessTests.adminToken)
            for path in ["/api/v1/week/2026-W47", "/api/v1/day/2026-11-20", "/day/2026-11-20"] {
                let dads = try await response(client, path, headers: dad)
                let minjis = try await response(client, path, headers: minji)
                let separator = path.contains("?") ? "&" : "?"
                let asAdministrator = try await response(client, path + separator + "person=\(WebAccessTests.minji)", headers: admin)
                #expect(dads.status == .ok && minjis.status == .ok)
                #expect(dads.text != minjis.text, "\(path)")
                if path.hasPrefix("/api") { #expect(minjis.text == asAdministrator.text, "\(path)") }
                #expect(try await response(client, path, headers: dad).text == dads.text)
                // The administrator's kept answer for 민지 is not given to dad asking for her.
                let refused = try await response(client, path + separator + "person=\(WebAccessTests.minji)", headers: dad)
                #expect(refused.status == .notFound)
                // Nor to no one.
                #expect(try await response(client, path).status == .unauthorized)
            }
        }
    }

    @Test("Where a read is a round trip (PostgreSQL), the generation is reused for a moment: a write shows within it, never later")
    func generationReuse() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let store = rig.store
        let settings = Self.reportSettings(databasePath: store.path, model: try VentilationIntakeModel())
        let monotonic = Mutex(ContinuousClock.now)
        func data(reuse: Duration) -> WebData {
            WebData(
                store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), generationReuse: reuse,
                monotonicNow: { monotonic.withLock { $0 } })
        }
        let local = data(reuse: .zero)
        let remote = data(reuse: .seconds(1))
        let before = try await remote.answerGeneration()
        let revised = HourlyReading(
            station: "종로구", slot: Self.eight, concentration: DustPair(fineDust: 187, ultraFineDust: 30),
            grade24h: DustPair(fineDust: nil, ultraFineDust: nil), sidoName: "서울")
        #expect(try await store.saveReadings([revised], fetchedAt: DemoReplay.now) == UpsertSummary(updated: 1))
        // Read now: the write is seen at once without reuse, and by the number a sign-in is checked against.
        #expect(try await local.answerGeneration() == before + 1)
        #expect(try await remote.dataGeneration() == before + 1)
        // Within the moment, the generation read before the write (one query for a burst of requests) ...
        #expect(try await remote.answerGeneration() == before)
        monotonic.withLock { $0 += .milliseconds(999) }
        #expect(try await remote.answerGeneration() == before)
        // ... and after it, the write's.
        monotonic.withLock { $0 += .milliseconds(2) }
        #expect(try await remote.answerGeneration() == before + 1)
    }

    @Test("A reload's settings are answered at the next question")
    func reload() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let store = rig.store
        let model = try VentilationIntakeModel()
        @Sendable func settings(_ people: [Person]) -> WebData.ReportSettings {
            Self.reportSettings(databasePath: store.path, model: model, people: people)
        }
        let current = Mutex((generation: 0, settings: settings(PersonAPITests.people)))
        let data = WebData(
            store: { store }, settings: { current.withLock { $0.settings } }, settingsGeneration: { current.withLock { $0.generation } },
            clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        try await rig.application(data).test(.router) { client in
            let dad = try await response(client, "/api/v1/day/2026-11-20")
            #expect(dad.status == .ok)
            let reloaded = settings(PersonAPITests.people.reversed())
            current.withLock { $0 = (1, reloaded) }
            // The first person is 민지 now, a child: her intake, not dad's.
            let minji = try await response(client, "/api/v1/day/2026-11-20")
            #expect(minji.status == .ok && minji.text != dad.text)
            let asked = try await response(client, "/api/v1/day/2026-11-20?person=\(WebAccessTests.minji)")
            #expect(minji.text == asked.text)
        }
    }

    @Test("A document is computed anew in the next hour, a page in the next minute")
    func clockSteps() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // 2026-11-20 22:20 KST: the latest hour that has begun is 22:00; at 23:20 it is 23:00.
        let clock = ManualClock(DemoReplay.now.addingTimeInterval(-7200))
        try await rig.application(try rig.source(clock: clock)).test(.router) { client in
            let today = try await response(client, "/api/v1/today")
            clock.jump(by: 1800)
            #expect(try await response(client, "/api/v1/today").text == today.text)
            clock.jump(by: 1800)
            let later = try await response(client, "/api/v1/today")
            #expect(later.text != today.text)
            #expect(later.text == (try await rig.dustctl(["today", "--now", "2026-11-20T23:20:00+09:00"])).standardOutput)
        }
        #expect(WebAnswerCache.Freshness.hour.step(DemoReplay.now) == WebAnswerCache.Freshness.hour.step(DemoReplay.now + 59))
        #expect(WebAnswerCache.Freshness.minute.step(Date(timeIntervalSince1970: 1_795_129_259)) == 29_918_820)
        #expect(WebAnswerCache.Freshness.minute.step(Date(timeIntervalSince1970: 1_795_129_260)) == 29_918_821)
        #expect(WebAnswerCache.Freshness.hour.step(Date(timeIntervalSince1970: -1)) == -1)
    }

    func key(_ target: String, generation: Int64 = 7, step: Int64 = 100, principal: WebPrincipal = .everyone) -> WebAnswerCache.Key {
        WebAnswerCache.Key(
            principal: principal, target: target, language: nil, signedInByCookie: false, dataGeneration: generation,
            settingsGeneration: 0, clockStep: step)
    }

    @Test("Kept within its byte budget, least recently used first out; an older generation or hour is dropped at the next keep")
    func bounds() {
        let cache = WebAnswerCache(byteBudget: 4 * (1000 + 256))
        let body = String(repeating: "x", count: 1000)
        for index in 0..<4 { cache.keep(WebResponse.json(body), for: key("/\(index)")) }
        #expect(cache.statistics.entries == 4)
        _ = cache.answer(for: key("/0"))  // /0 used: /1 is now the least recently used
        cache.keep(WebResponse.json(body), for: key("/4"))
        #expect(cache.answer(for: key("/1")) == nil)
        #expect(cache.answer(for: key("/0")) != nil && cache.answer(for: key("/4")) != nil)
        #expect(cache.statistics.bytes <= cache.byteBudget)
        // A person's answer is theirs alone.
        #expect(cache.answer(for: key("/0", principal: .person("dad"))) == nil)
        // Too large for the budget: served, not kept.
        cache.keep(WebResponse.json(String(repeating: "y", count: 10_000)), for: key("/large"))
        #expect(cache.answer(for: key("/large")) == nil)
        // The next generation's first keep forgets every answer of the last; so does the next hour's.
        cache.keep(WebResponse.json("{}"), for: key("/0", generation: 8))
        #expect(cache.statistics.entries == 1)
        cache.keep(WebResponse.json("{}"), for: key("/1", generation: 8, step: 101))
        #expect(cache.statistics.entries == 1)
        #expect(cache.answer(for: key("/1", generation: 8, step: 101))?.reply.text == "{}")
    }
}
