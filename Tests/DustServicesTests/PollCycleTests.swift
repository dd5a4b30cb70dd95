import AirKorea
import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization
import Testing

/// Readings, attempts and newest slots in memory; `failure` makes every write fail.
final class InMemoryPollStore: PollStore, Sendable {
    private let rows = Mutex<[String: HourlyReading]>([:])
    private let attempts = Mutex<[PollAttempt]>([])
    let failure: StorageFailure?

    init(failing failure: StorageFailure? = nil) {
        self.failure = failure
    }

    var recorded: [PollAttempt] { attempts.withLock { $0 } }
    var count: Int { rows.withLock { $0.count } }

    func saveReadings(_ readings: [HourlyReading], fetchedAt: Date) throws(StorageFailure) -> UpsertSummary {
        if let failure { throw failure }
        return rows.withLock { rows in
            var summary = UpsertSummary()
            for reading in readings {
                let key = "\(reading.station)|\(reading.slot.startEpochSeconds)"
                if rows[key] == nil {
                    summary.inserted += 1
                } else if rows[key] != reading {
                    summary.updated += 1
                } else {
                    summary.unchanged += 1
                }
                rows[key] = reading
            }
            return summary
        }
    }

    func storedReadings(stations: [String], from: Slot, to: Slot) throws(StorageFailure) -> [HourlyReading] {
        rows.withLock { rows in
            rows.values.filter { stations.contains($0.station) && $0.slot >= from && $0.slot < to }.sorted { $0.slot < $1.slot }
        }
    }

    func measurementCount(station: String?) throws(StorageFailure) -> Int {
        rows.withLock { rows in rows.values.filter { station == nil || $0.station == station }.count }
    }

    func newestSlot(station: String, endingBy now: Date) throws(StorageFailure) -> Slot? {
        rows.withLock { rows in rows.values.filter { $0.station == station && $0.slot.end <= now }.map(\.slot).max() }
    }

    func recordAttempt(_ attempt: PollAttempt) throws(StorageFailure) {
        attempts.withLock { $0.append(attempt) }
    }
}

/// Answers each request from a script; records what was asked.
final class ScriptedSource: MeasurementSource, Sendable {
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

@Suite("A poll cycle against in-memory fakes")
struct PollCycleTests {
    @Test("A cycle fetches every station's gap, stores it and records each request")
    func success() async {
        let store = InMemoryPollStore()
        let source = ScriptedSource { request in dayPage(request.requestedStation ?? "?") }
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
        #expect(store.recorded.map(\.outcome) == [.ok, .ok])
        #expect(store.recorded.map(\.rowsNew) == [24, 24])
    }

    @Test("A full disk is a storage failure with its own sentence, never a network failure, and it stops the cycle")
    func diskFull() async {
        let full = StorageFailure(StoreError.diskFull(path: "/var/lib/dustd/dust.sqlite"))
        let store = InMemoryPollStore(failing: full)
        let source = ScriptedSource { request in dayPage(request.requestedStation ?? "?") }
        let report = await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
            .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: false)
        #expect(report.failure == .storage(full))
        #expect(report.failure?.kind == .storage)
        #expect(report.failure?.retryAdvice == .retryWithBackoff)
        #expect(report.failure?.description.contains("is full") == true)
        #expect(report.failure?.description.contains("AirKorea") == false)
        #expect(source.requests.count == 1, "the second station was asked although the disk is full")
        #expect(store.recorded.first?.outcome == .retrying)
        #expect(store.recorded.first?.message?.hasPrefix("The disk holding /var/lib/dustd/dust.sqlite is full") == true)
    }

    @Test("A quota answer stops the cycle: the next station is not asked")
    func quotaStops() async {
        let store = InMemoryPollStore()
        let quota = FetchError.response(.service(.dailyQuotaExceeded, reportedCode: "22", serverMessage: "LIMITED"), httpStatus: 200)
        let source = ScriptedSource { _ throws(FetchError) in throw quota }
        let report = await PollCycle(source: source, store: store, clock: FixedClock(morningAfter))
            .run(stations: StationPreference(primary: "종로구", fallbacks: ["중구"]), includeNation: false)
        #expect(report.failure == .fetch(quota))
        #expect(report.failure?.kind == .airKorea)
        #expect(source.requests.count == 1)
        #expect(store.recorded.map(\.outcome) == [.quota])
        #expect(store.recorded.first?.resultCode == "22")
    }

    @Test("A stop in the middle of a request is recorded as stopped, not as a network error")
    func cancelled() async {
        let store = InMemoryPollStore()
        let source = ScriptedSource { _ throws(FetchError) in
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
        #expect(store.recorded.map(\.outcome) == [.stopped])
        #expect(store.recorded.first?.message == nil)
    }
}
