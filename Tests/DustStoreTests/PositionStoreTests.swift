import DustKit
import DustServices
import Foundation
import GRDB
import TestSupport
import Testing

@testable import DustStore

private let eight = Date(timeIntervalSince1970: 1_795_129_200)  // 2026-11-20 08:00 KST
private let imported = Date(timeIntervalSince1970: 1_795_219_200)

/// The instant `minutes` after 08:00 KST.
private func at(_ minutes: Double) -> Date { eight.addingTimeInterval(minutes * 60) }

/// A batch of `person`'s `source` with one point per entry of `minutes` (latitude 37.5 + minute / 1000).
private func batch(_ person: String, _ source: String, _ minutes: [Double], replacing: Bool = true) -> PositionBatch {
    let track = TrackMinutes(minutes.map { TrackPoint(at: at($0), latitude: 37.5 + $0 / 1000, longitude: 127.0) })
    return PositionBatch(person: person, source: source, minutes: track, replacing: replacing ? track.span : nil)
}

@Suite("Positions kept per person, source and minute (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct PositionStoreTests {
    @Test(
        "Saved with the import, read in time order over [from, to), one person's only; summaries per person and source",
        arguments: Backend.allCases)
    func saveAndRead(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await store.saveImport(
                walking: [], body: [],
                positions: [batch("dad", "gpx:b.gpx", [1, 2, 3]), batch("dad", "gpx:a.gpx", [2, 4]), batch("민지", "gpx:b.gpx", [0])],
                importedAt: imported)
            let read = try await store.positions(person: "dad", from: at(2), to: at(4))
            #expect(
                read.map { "\($0.point.at.timeIntervalSince(eight) / 60) \($0.source)" } == [
                    "2.0 gpx:a.gpx", "2.0 gpx:b.gpx", "3.0 gpx:b.gpx",
                ])
            #expect(
                read[0]
                    == StoredTrackPoint(person: "dad", source: "gpx:a.gpx", point: TrackPoint(at: at(2), latitude: 37.502, longitude: 127)))
            #expect(try await store.positions(person: "민지", from: at(0), to: at(10)).map(\.point.position.latitude) == [37.5])
            #expect(try await store.positions(person: "me", from: at(0), to: at(10)).isEmpty)
            #expect(
                try await store.positionSummaries() == [
                    PositionSummary(person: "dad", source: "gpx:a.gpx", first: at(2), last: at(4), minutes: 2),
                    PositionSummary(person: "dad", source: "gpx:b.gpx", first: at(1), last: at(3), minutes: 3),
                    PositionSummary(person: "민지", source: "gpx:b.gpx", first: at(0), last: at(0), minutes: 1),
                ])
        }
    }

    @Test("A re-import replaces the source's positions over its span only; other sources and people stay", arguments: Backend.allCases)
    func replaceOverSpan(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await store.saveImport(
                walking: [], body: [], positions: [batch("dad", "gpx:b.gpx", [1, 2, 3, 7, 9]), batch("dad", "gpx:a.gpx", [3])],
                importedAt: imported)
            // The new file spans 2…8: minutes 3 and 7 disappear, 5 and 8 arrive, 1 and 9 stay.
            try await store.saveImport(walking: [], body: [], positions: [batch("dad", "gpx:b.gpx", [2, 5, 8])], importedAt: imported)
            let read = try await store.positions(person: "dad", from: at(0), to: at(60)).filter { $0.source == "gpx:b.gpx" }
            #expect(read.map(\.point.at) == [1, 2, 5, 8, 9].map { at($0) })
            #expect(try await store.positions(person: "dad", from: at(0), to: at(60)).filter { $0.source == "gpx:a.gpx" }.count == 1)
            // Without a span, only the minutes in the batch are overwritten.
            var moved = batch("dad", "gpx:b.gpx", [9], replacing: false)
            moved.minutes = TrackMinutes([TrackPoint(at: at(9), latitude: 35.1, longitude: 129.04)])
            try await store.saveImport(walking: [], body: [], positions: [moved], importedAt: imported)
            let nine = try await store.positions(person: "dad", from: at(9), to: at(10))
            #expect(nine.map { [$0.point.position.latitude, $0.point.position.longitude] } == [[35.1, 129.04]])
            #expect(try await store.positions(person: "dad", from: at(0), to: at(60)).count == 6)
        }
    }

    @Test("Walking, body and positions of one import are one transaction: a failing walking row stores no position")
    func oneTransaction() async throws {
        let directory = try TemporaryDirectory("finedust-positions")
        defer { directory.remove() }
        let store = try SQLiteStore(path: directory.path("dust.sqlite"))
        let slot = Slot(containing: eight)
        let negative = ActivitySourceBatch(person: "dad", source: "gpx:b.gpx", distances: [slot: -1], replacing: nil)
        await #expect(throws: StorageFailure.self) {
            try await store.saveImport(walking: [negative], body: [], positions: [batch("dad", "gpx:b.gpx", [1])], importedAt: imported)
        }
        #expect(try await store.positionSummaries().isEmpty)
    }

    @Test("forget removes one source's or every source's positions of one person and counts them", arguments: Backend.allCases)
    func forget(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            try await store.saveImport(
                walking: [], body: [],
                positions: [batch("dad", "gpx:a.gpx", [1, 2]), batch("dad", "gpx:b.gpx", [1, 2, 3]), batch("민지", "gpx:a.gpx", [1])],
                importedAt: imported)
            #expect(try await store.forgetPositions(person: "dad", source: "gpx:b.gpx") == 3)
            #expect(try await store.forgetPositions(person: "dad", source: "gpx:b.gpx") == 0)
            #expect(try await store.forgetPositions(person: "dad", source: nil) == 2)
            #expect(try await store.positionSummaries().map { "\($0.person) \($0.source) \($0.minutes)" } == ["민지 gpx:a.gpx 1"])
        }
    }

    @Test(
        "movePerson hands me's positions to the first person with the rest of me's rows, and not when they have some",
        arguments: Backend.allCases)
    func movePerson(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let slot = Slot(containing: eight)
            try await store.saveImport(
                walking: [ActivitySourceBatch(source: "gpx:a.gpx", distances: [slot: 500], replacing: slot...slot)], body: [],
                positions: [batch(Person.defaultName, "gpx:a.gpx", [1, 2])], importedAt: imported)
            #expect(try await store.movePerson(from: Person.defaultName, to: "dad") == 3)  // 1 hour of walking and 2 positions
            #expect(try await store.positions(person: "dad", from: at(0), to: at(60)).count == 2)
            #expect(try await store.positions(person: Person.defaultName, from: at(0), to: at(60)).isEmpty)
            // dad has positions now: nothing of me's moves to him again.
            try await store.saveImport(
                walking: [], body: [], positions: [batch(Person.defaultName, "gpx:c.gpx", [5])], importedAt: imported)
            #expect(try await store.movePerson(from: Person.defaultName, to: "dad") == 0)
            try await backend.withStore { onlyPositions throws in
                try await onlyPositions.saveImport(walking: [], body: [], positions: [batch("dad", "gpx:a.gpx", [1])], importedAt: imported)
                try await onlyPositions.saveActivity(
                    [ActivitySourceBatch(source: "csv", distances: [slot: 100], replacing: nil)], importedAt: imported)
                #expect(try await onlyPositions.movePerson(from: Person.defaultName, to: "dad") == 0)
            }
        }
    }
}
