import AirKorea
import DustDaemon
import DustKit
import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Answers advisory requests from a script and remembers what was asked.
private final class ScriptedAdvisories: AdvisoryAPI, Sendable {
    let asked = Mutex<[AirKoreaRequest]>([])
    let answer: @Sendable (AirKoreaRequest) -> AdvisoryPage

    init(_ answer: @escaping @Sendable (AirKoreaRequest) -> AdvisoryPage) { self.answer = answer }

    func advisories(_ request: AirKoreaRequest) async throws(FetchError) -> AdvisoryPage {
        asked.withLock { $0.append(request) }
        return answer(request)
    }
}

private func advisory(_ key: String, issued: String, cleared: String? = nil) -> Advisory {
    Advisory(
        pollutant: .pm10, key: key, district: "서울", area: "도심권", level: AdvisoryLevel(word: "주의보"), issuedAt: instant(kst: issued),
        clearedAt: cleared.map { instant(kst: $0) })
}

@Suite("Advisories: every page of a year, and last year's while one issued then is still open", .timeLimit(.minutes(10)))
struct AdvisoryPagingTests {
    @Test("A year AirKorea says holds 2,300 advisories is read in 3 pages of 1,000; a server claiming millions is read 5 pages at most")
    func everyPage() async throws {
        for (total, pages) in [(2_300, 3), (1_000, 1), (999, 1), (5_000_000, AdvisoryFetch.maxPages)] {
            let source = ScriptedAdvisories { request in
                let number = request.pageNumber
                let count = max(0, min(AdvisoryFetch.rows, total - (number - 1) * AdvisoryFetch.rows))
                return AdvisoryPage(
                    advisories: (0..<min(count, 3)).map { advisory("\(number)-\($0)", issued: "2026-03-0\(1 + $0 % 9)T10:00:00") },
                    paging: Paging(numOfRows: AdvisoryFetch.rows, pageNo: number, totalCount: total, itemCount: count))
            }
            let store = SQLiteStore.scratch()
            let report = await AdvisoryFetch(source: source, store: store, clock: FixedClock(instant(kst: "2026-11-26T12:00:00"))).run(
                years: [2026], pollutants: [.pm10], measurementsWork: true)
            #expect(source.asked.withLock { $0.map(\.pageNumber) } == Array(1...pages), "\(total)")
            #expect(report.attempts.count == pages && report.attempts.allSatisfy { $0.outcome == .ok && $0.kind == .advisory })
            let stored = try await store.advisories(from: instant(kst: "2026-01-01T00:00:00"), to: instant(kst: "2027-01-01T00:00:00"))
            #expect(stored.count == min(total, 3) + (pages - 1) * 3, "\(total)")
        }
    }

    @Test("Last year is asked too in January's first week and while an advisory of its list is open; not after, once it is cleared")
    func lastYear() async throws {
        let store = SQLiteStore.scratch()
        let newYear = instant(kst: "2027-01-01T09:00:00")
        // Nothing stored (a first start, or dustd down over midnight): a December advisory still in
        // force is in last year's list alone.
        #expect(await AdvisoryService.years(at: newYear, store: store) == [2026, 2027])
        #expect(await AdvisoryService.years(at: instant(kst: "2027-01-07T23:59:00"), store: store) == [2026, 2027])
        let eighth = instant(kst: "2027-01-08T00:00:00")
        #expect(await AdvisoryService.years(at: eighth, store: store) == [2027])
        #expect(await AdvisoryService.years(at: instant(kst: "2026-12-31T23:00:00"), store: store) == [2026])
        _ = try await store.saveAdvisories([advisory("41", issued: "2026-12-31T21:00:00")], fetchedAt: newYear)
        #expect(await AdvisoryService.years(at: eighth, store: store) == [2026, 2027])
        // Stamped 2026-12-31 24:00 (the next midnight), it is in 2026's list: asked until it clears.
        _ = try await store.saveAdvisories(
            [advisory("41", issued: "2026-12-31T21:00:00", cleared: "2027-01-01T06:00:00"), advisory("42", issued: "2027-01-01T00:00:00")],
            fetchedAt: newYear)
        #expect(await AdvisoryService.years(at: eighth, store: store) == [2026, 2027])
        // This year's open one alone does not bring last year back after the first week.
        _ = try await store.saveAdvisories(
            [advisory("42", issued: "2027-01-01T00:00:00", cleared: "2027-01-02T06:00:00"), advisory("1", issued: "2027-01-01T08:00:00")],
            fetchedAt: newYear)
        #expect(await AdvisoryService.years(at: eighth, store: store) == [2027])
    }
}
