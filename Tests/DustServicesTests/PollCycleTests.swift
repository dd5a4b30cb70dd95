import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Answers each request from a script; records what was asked.
final class ScriptedAPI: MeasurementAPI, Sendable {
    private let script: @Sendable (AirKoreaRequest) async throws(FetchError) -> FetchedPage
    private let asked = Mutex<[AirKoreaRequest]>([])

    init(_ script: @escaping @Sendable (AirKoreaRequest) async throws(FetchError) -> FetchedPage) {
        self.script = script
    }

    var requests: [AirKoreaRequest] { asked.withLock { $0 } }

    func measurements(_ request: AirKoreaRequest) async throws(FetchError) -> FetchedPage {
        asked.withLock { $0.append(request) }
        return try await script(request)
    }
}

/// 24 hours of 2026-11-20 for a station, as one page.
func dayPage(_ station: String, itemCount: Int = 24) -> FetchedPage {
    let first = KoreaStandardTime.slot(forDataTime: "2026-11-20 01:00")!
    let readings = (0..<itemCount).map { hour in
        HourlyReading(
            station: station, slot: first.advanced(by: hour), concentration: DustPair(fineDust: Double(30 + hour), ultraFineDust: 15))
    }
    return FetchedPage(
        page: MeasurementPage(
            readings: readings, paging: Paging(numOfRows: 100, pageNo: 1, totalCount: itemCount, itemCount: itemCount),
            skipped: 0), httpStatus: 200)
}

let morningAfter = KoreaStandardTime.slot(forDataTime: "2026-11-21 01:00")!.start.addingTimeInterval(20 * 60)

@Suite("A poll cycle against in-memory fakes", .timeLimit(.minutes(10)))
struct PollCycleTests {
    @Test("A cycle fetches every station's gap, stores it and records each request")
    func success() async throws {
        let store = SQLiteStore.scratch()
        let source = ScriptedAPI { request in dayPage(request.requestedStation ?? "?") }
        let report = await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
            .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: false)
        #expect(report.succeeded)
        #expect(report.rowsNew == 48)
        #expect(report.requests == 2)
        // An empty store asks for MONTH, 1,000 rows a page.
        #expect(
            source.requests == [
                .stationRealtime(station: "종로구", term: .month, page: 1, rows: 1000),
                .stationRealtime(station: "중구", term: .month, page: 1, rows: 1000),
            ])
        #expect((try await store.attemptsOldestFirst()).map(\.outcome) == [.ok, .ok])
        #expect((try await store.attemptsOldestFirst()).map(\.rowsNew) == [24, 24])
    }

    @Test("A full disk is a storage failure with its own sentence, never a network failure, and it stops the cycle")
    func diskFull() async throws {
        let full = StorageFailure(
            kind: .diskFull,
            description:
                "The disk holding /var/lib/dustd/dust.sqlite is full; nothing was written and stored data is intact. Free some space and try again."
        )
        let store = InterceptingStore(savingReadingsFails: full)
        let source = ScriptedAPI { request in dayPage(request.requestedStation ?? "?") }
        let report = await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
            .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: false)
        #expect(report.failure == .storage(full))
        #expect(report.failure?.kind == .storage)
        #expect(report.failure?.retryAdvice == .retryWithBackoff)
        #expect(report.failure?.description.contains("is full") == true)
        #expect(report.failure?.description.contains("AirKorea") == false)
        #expect(source.requests.count == 1, "the second station was asked although the disk is full")
        #expect((try await store.attemptsOldestFirst()).first?.outcome == .retrying)
        #expect(
            (try await store.attemptsOldestFirst()).first?.message?.hasPrefix("The disk holding /var/lib/dustd/dust.sqlite is full") == true
        )
    }

    @Test("A quota answer stops the cycle: the next station is not asked")
    func quotaStops() async throws {
        let store = SQLiteStore.scratch()
        let quota = FetchError.response(.service(.dailyQuotaExceeded, reportedCode: "22", serverMessage: "LIMITED"), httpStatus: 200)
        let source = ScriptedAPI { _ throws(FetchError) in throw quota }
        let report = await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
            .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: false)
        #expect(report.failure == .fetch(quota))
        #expect(report.failure?.kind == .airKorea)
        #expect(source.requests.count == 1)
        #expect((try await store.attemptsOldestFirst()).map(\.outcome) == [.quota])
        #expect((try await store.attemptsOldestFirst()).first?.resultCode == "22")
    }

    @Test("A stop in the middle of a request is recorded as stopped, not as a network error")
    func cancelled() async throws {
        let store = SQLiteStore.scratch()
        let source = ScriptedAPI { _ throws(FetchError) in
            do { try await Task.sleep(for: .seconds(30)) } catch { throw .transport(.connection("CancellationError()")) }
            throw .transport(.timeout(seconds: 30))
        }
        let task = Task {
            await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
                .run(stations: StationPreference(primary: "종로구"), includeNation: true)
        }
        while source.requests.isEmpty { try? await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let report = await task.value
        #expect(report.stopped)
        #expect(report.failure == nil)
        #expect(!report.succeeded)
        #expect(source.requests.count == 1, "the nation request was made after the stop")
        #expect((try await store.attemptsOldestFirst()).map(\.outcome) == [.stopped])
        #expect((try await store.attemptsOldestFirst()).first?.message == nil)
    }

    @Test("A cycle stopped before its first request is a stop, not a poll that worked: nothing asked, nothing recorded")
    func cancelledBeforeAsking() async throws {
        let store = SQLiteStore.scratch()
        let source = ScriptedAPI { request in dayPage(request.requestedStation ?? "?") }
        let task = Task {
            // Cancelled while the cycle waits for the database (another program's write lock, a slow card).
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            return await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
                .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: true)
        }
        task.cancel()
        let report = await task.value
        #expect(report.stopped)
        #expect(!report.succeeded)
        #expect(report.requests == 0 && source.requests.isEmpty)
        #expect(try await store.attemptsOldestFirst().isEmpty)
    }
}
