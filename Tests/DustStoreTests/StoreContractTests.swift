import DustConfig
import DustKit
import DustPostgres
import DustSQL
import DustServices
import DustStore
import Foundation
import TestSupport
import Testing

/// The engines the shared statements run on: SQLite in memory (what the service tests use), SQLite in
/// a file (what dustd and dustctl use by default) with its transactions on GRDB's queues (dustd) or on
/// the caller's thread (dustctl), and PostgreSQL (organisations, docs/REFERENCE.md §20).
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case sqliteOnCallersThread = "sqlite, caller's thread"
    case postgres

    /// Every backend this machine can run: PostgreSQL where Debian's server is installed
    /// (PostgresStoreTests says so, disabled, where it is not).
    static var allCases: [Backend] {
        [.memory, .sqlite, .sqliteOnCallersThread] + (PostgresServer.isAvailable ? [.postgres] : [])
    }

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh, empty store, then removes it (and, on PostgreSQL, stops its pool),
    /// whether `body` threw or not.
    func withStore(_ body: (any FineDustStore) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(SQLiteStore.scratch())
        case .sqlite:
            let directory = try TemporaryDirectory("finedust-contract")
            defer { directory.remove() }
            try await body(try SQLiteStore(path: directory.path("dust.sqlite")))
        case .sqliteOnCallersThread:
            let directory = try TemporaryDirectory("finedust-contract")
            defer { directory.remove() }
            try await body(try SQLiteStore(path: directory.path("dust.sqlite"), threading: .callersThread))
        case .postgres:
            // A database of its own on the process's one server; the server goes with the process.
            let server = try await PostgresServer.running()
            let store = try await PostgresStore.open(
                server.location(database: try await server.createDatabase()), password: server.password,
                leaseTimeout: PostgresStore.testLeaseTimeout)
            try await store.serving { try await body($0) }
        }
    }
}

private let eight = Slot(startEpochSeconds: 1_795_129_200)  // 2026-11-20 08:00 KST
private let fetched = Date(timeIntervalSince1970: 1_795_219_200)

private func reading(
    _ station: String = "종로구", slot: Slot = eight, pm10: Double?, pm25: Double?,
    reported: DustPair<ReportedFields> = DustPair(repeating: .all)
) -> HourlyReading {
    HourlyReading(
        station: station, slot: slot, concentration: DustPair(fineDust: pm10, ultraFineDust: pm25),
        grade24h: DustPair(
            fineDust: pm10.map { DustGrade(concentration: $0, of: .pm10, on: LocalDate(year: 2026, month: 11, day: 20)) },
            ultraFineDust: nil),
        sidoName: "서울", reported: reported)
}

/// The same checks against every engine, so SQLite in memory (what the service tests rely on), SQLite
/// in a file and PostgreSQL cannot drift apart.
@Suite("Store contract: SQLite in memory, SQLite in a file and PostgreSQL agree", .timeLimit(.minutes(10)))
struct StoreContractTests {
    @Test("An unknown concentration is stored and read back as unknown, never 0", arguments: Backend.allCases)
    func unknownIsNotZero(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            _ = try await store.saveReadings([reading(pm10: 41, pm25: nil)], fetchedAt: fetched)
            let stored = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
            #expect(stored.map(\.concentration) == [DustPair(fineDust: 41, ultraFineDust: nil)])
            #expect(try await store.readingCount(station: "종로구") == 1)
            #expect(try await store.readingCount(station: nil) == 1)
            #expect(try await store.readingCount(station: "중구") == 0)
        }
    }

    @Test(
        "The same reading again is unchanged; a changed value is a revision; a field not reported keeps its value",
        arguments: Backend.allCases)
    func revisions(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            #expect(try await store.saveReadings([reading(pm10: 41, pm25: 20)], fetchedAt: fetched) == UpsertSummary(inserted: 1))
            #expect(try await store.saveReadings([reading(pm10: 41, pm25: 20)], fetchedAt: fetched) == UpsertSummary(unchanged: 1))
            #expect(try await store.saveReadings([reading(pm10: 44, pm25: 20)], fetchedAt: fetched) == UpsertSummary(updated: 1))
            // A response without PM2.5's value element: its 20 stays, PM10's 50 is a revision.
            let partial = reading(pm10: 50, pm25: nil, reported: DustPair(fineDust: .all, ultraFineDust: []))
            #expect(try await store.saveReadings([partial], fetchedAt: fetched) == UpsertSummary(updated: 1))
            let stored = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
            #expect(stored.map(\.concentration) == [DustPair(fineDust: 50, ultraFineDust: 20)])
            #expect(stored.first?.grade24h.fineDust == .moderate)
        }
    }

    @Test(
        "Every write raises the data generation in its transaction, a read never does, and a failed write leaves it",
        arguments: Backend.allCases)
    func dataGeneration(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let start = try await store.dataGeneration()
            _ = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
            #expect(try await store.dataGeneration() == start)
            _ = try await store.saveReadings([reading(pm10: 41, pm25: 20)], fetchedAt: fetched)
            #expect(try await store.dataGeneration() == start + 1)
            // Storing the same hour again changes no row, yet it is a write: raised once more.
            _ = try await store.saveReadings([reading(pm10: 41, pm25: 20)], fetchedAt: fetched)
            #expect(try await store.dataGeneration() == start + 2)
            try await store.recordAttempt(
                PollAttempt(startedAt: fetched, station: "종로구", kind: .measurement, operation: "station 종로구 DAILY", outcome: .ok))
            #expect(try await store.dataGeneration() == start + 3)
            // A write that fails (a column the table does not have) is rolled back whole, the raise with it.
            guard let sql = store as? any SQLDatabase else { return }
            await #expect(throws: StorageFailure.self) {
                try await sql.write { session in try session.execute("INSERT INTO activity_source (nothing) VALUES (1)") }
            }
            #expect(try await store.dataGeneration() == start + 3)
        }
    }

    @Test("A new database's data generation starts at a random value: one put in place of another is never taken for it")
    func dataGenerationStart() async throws {
        var starts: Set<Int64> = []
        for _ in 0..<3 { starts.insert(try await SQLiteStore.scratch().dataGeneration()) }
        #expect(starts.count == 3)
    }

    // MARK: Gases (docs/REFERENCE.md §17)

    @Test(
        "A changed gas value is a revision and replaces the stored one; a flag is kept with its unknown value",
        arguments: Backend.allCases)
    func gasRevision(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            var first = reading(pm10: 41, pm25: 20)
            first.gases = GasReading(ppm: GasValues(o3: 0.031, no2: 0.026, co: 0.5, so2: 0.003), cai: 62, caiGrade: .moderate)
            #expect(try await store.saveReadings([first], fetchedAt: fetched) == UpsertSummary(inserted: 1))
            #expect(try await store.saveReadings([first], fetchedAt: fetched) == UpsertSummary(unchanged: 1))
            var revised = first
            revised.gases.ppm.o3 = 0.092
            revised.gases.caiGrade = .bad
            #expect(try await store.saveReadings([revised], fetchedAt: fetched) == UpsertSummary(updated: 1))
            var flagged = revised
            flagged.gases.ppm.no2 = nil
            flagged.gases.flag.no2 = "점검중"
            #expect(try await store.saveReadings([flagged], fetchedAt: fetched) == UpsertSummary(updated: 1))
            let stored = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
            #expect(stored.map(\.gases.ppm) == [GasValues(o3: 0.092, no2: nil, co: 0.5, so2: 0.003)])
            #expect(stored.map(\.gases.flag) == [GasValues(o3: nil, no2: "점검중", co: nil, so2: nil)])
            #expect(stored.first?.gases.cai == 62)
            #expect(stored.first?.gases.caiGrade == .bad)
            #expect(stored.first?.concentration == DustPair(fineDust: 41, ultraFineDust: 20))
        }
    }

    @Test(
        "An answer without a gas element never erases the stored value, and a PM-only change is one revision as before",
        arguments: Backend.allCases)
    func missingGasKeepsValue(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            var first = reading(pm10: 41, pm25: 20)
            first.gases = GasReading(ppm: GasValues(o3: 0.031, no2: 0.026, co: 0.5, so2: 0.003), cai: 62, caiGrade: .moderate)
            _ = try await store.saveReadings([first], fetchedAt: fetched)
            // An old-service answer for the same hour: PM again, no gas element at all.
            var withoutGases = reading(pm10: 41, pm25: 20)
            withoutGases.gases = .unreported
            #expect(try await store.saveReadings([withoutGases], fetchedAt: fetched) == UpsertSummary(unchanged: 1))
            withoutGases.concentration.fineDust = 45
            #expect(try await store.saveReadings([withoutGases], fetchedAt: fetched) == UpsertSummary(updated: 1))
            // Only O3 and the index reported: CO, NO2 and SO2 stay.
            var onlyOzone = withoutGases
            onlyOzone.gases = GasReading(
                ppm: GasValues(o3: 0.04, no2: nil, co: nil, so2: nil), cai: nil, caiGrade: nil, reported: [.value(of: .o3), .cai])
            #expect(try await store.saveReadings([onlyOzone], fetchedAt: fetched) == UpsertSummary(updated: 1))
            let stored = try await store.readings(stations: ["종로구"], from: eight, to: eight.advanced(by: 1))
            #expect(stored.map(\.gases.ppm) == [GasValues(o3: 0.04, no2: 0.026, co: 0.5, so2: 0.003)])
            #expect(stored.first?.gases.cai == nil)
            #expect(stored.first?.gases.caiGrade == .moderate)
            #expect(stored.first?.concentration.fineDust == 45)
        }
    }

    @Test(
        "The weighting's lean read: PM10 and PM2.5 alone, by slot then station name, each station by its index in the list asked for",
        arguments: Backend.allCases)
    func dustValues(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            _ = try await store.saveReadings(
                [
                    reading("중구", pm10: 40, pm25: nil), reading("종로구", pm10: 30, pm25: 15), reading("종로구", slot: nine, pm10: 31, pm25: 16),
                    reading("용산구", slot: nine, pm10: nil, pm25: 26), reading("마포구", pm10: 99, pm25: 99),
                    reading("종로구", slot: nine.advanced(by: 1), pm10: 32, pm25: 17),
                ], fetchedAt: fetched)
            let read = try await store.dustValues(stations: ["용산구", "종로구", "중구", "없는곳"], from: eight, to: nine.advanced(by: 1))
            #expect(
                read == [
                    StationDust(slot: eight, station: 1, concentration: DustPair(fineDust: 30, ultraFineDust: 15)),
                    StationDust(slot: eight, station: 2, concentration: DustPair(fineDust: 40, ultraFineDust: nil)),
                    StationDust(slot: nine, station: 0, concentration: DustPair(fineDust: nil, ultraFineDust: 26)),
                    StationDust(slot: nine, station: 1, concentration: DustPair(fineDust: 31, ultraFineDust: 16)),
                ])
            #expect(try await store.dustValues(stations: [], from: eight, to: nine).isEmpty)
        }
    }

    @Test(
        "The weighting's lean read of positions: one a minute, the first source's by name, in time order, within [from, to)",
        arguments: Backend.allCases)
    func trackPoints(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let start = Date(timeIntervalSince1970: 1_795_129_200)
            func minutes(_ offsets: [Int], latitude: Double) -> TrackMinutes {
                TrackMinutes(offsets.map { TrackPoint(at: start.addingTimeInterval(Double($0) * 60), latitude: latitude, longitude: 127) })
            }
            try await store.saveImport(
                walking: [], body: [],
                positions: [
                    PositionBatch(person: "dad", source: "gpx:b.gpx", minutes: minutes([0, 1, 2, 5], latitude: 37.5), replacing: nil),
                    PositionBatch(person: "dad", source: "gpx:a.gpx", minutes: minutes([1, 3], latitude: 37.6), replacing: nil),
                    PositionBatch(person: "민지", source: "gpx:a.gpx", minutes: minutes([2], latitude: 37.7), replacing: nil),
                ], importedAt: fetched)
            let read = try await store.trackPoints(person: "dad", from: start.addingTimeInterval(60), to: start.addingTimeInterval(300))
            #expect(
                read == [
                    TrackPoint(at: start.addingTimeInterval(60), latitude: 37.6, longitude: 127),
                    TrackPoint(at: start.addingTimeInterval(120), latitude: 37.5, longitude: 127),
                    TrackPoint(at: start.addingTimeInterval(180), latitude: 37.6, longitude: 127),
                ])
            #expect(try await store.trackPoints(person: "me", from: start, to: start.addingTimeInterval(600)).isEmpty)
        }
    }

    @Test(
        "Indoor samples: packed by hour and read back as series, a minute again replaces, states round-trip, whole past hours pruned",
        arguments: Backend.allCases)
    func indoorSeries(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let start = Date(timeIntervalSince1970: 1_795_129_200)
            func at(_ minutes: Int) -> Date { start.addingTimeInterval(Double(minutes) * 60) }
            try await store.saveIndoor(
                samples: [
                    IndoorSample(sensor: "living-room", at: at(0), value: DustPair(fineDust: 20, ultraFineDust: 9)),
                    IndoorSample(sensor: "living-room", at: at(1), value: DustPair(fineDust: nil, ultraFineDust: 8.5)),
                    IndoorSample(sensor: "study", at: at(1), value: DustPair(fineDust: nil, ultraFineDust: 6), holdSeconds: 3600),
                    IndoorSample(sensor: "living-room", at: at(5), value: DustPair(fineDust: 14, ultraFineDust: nil)),
                ],
                states: [IndoorSensorState(sensor: "study", kind: "homeassistant", checkedAt: at(1), lastSampleAt: at(1))])
            // The same minute again (a later answer of it) replaces the first.
            try await store.saveIndoor(
                samples: [
                    IndoorSample(sensor: "living-room", at: at(1).addingTimeInterval(30), value: DustPair(fineDust: 16, ultraFineDust: 8))
                ],
                states: [])
            let read = try await store.indoorSeries(sensors: ["study", "living-room", "bedroom"], from: at(0), to: at(5))
            #expect(read.map(\.sensor) == ["living-room", "study"])
            #expect(read[0].samples.map(\.value) == [DustPair(fineDust: 20, ultraFineDust: 9), DustPair(fineDust: 16, ultraFineDust: 8)])
            #expect(read[1].samples.map(\.holdSeconds) == [3600] && read[1].minutes == [Int64(at(1).timeIntervalSince1970)])
            // SQLite's own read of the hours (in place, never copied) gives what the shared statement gives.
            if let shared = store as? any SQLDatabase {
                let statement = try await sharedIndoorSeries(shared, sensors: ["study", "living-room", "bedroom"], from: at(0), to: at(5))
                #expect(statement.map(\.samples) == read.map(\.samples))
            }
            #expect(try await store.newestIndoorSample(sensor: "living-room", before: at(10)) == at(5))
            #expect(try await store.newestIndoorSample(sensor: "living-room", before: at(5)) == at(1))
            #expect(
                try await store.indoorSensorStates() == [
                    IndoorSensorState(sensor: "study", kind: "homeassistant", checkedAt: at(1), lastSampleAt: at(1))
                ])
            // Retention removes whole hours that ended by the cutoff: 08:00–09:00 stands until 09:00. Kept
            // a day, counted back from the next day: only once an hour of AirKorea's vouches for that day.
            func kept(until minute: Int) -> Retention { Retention(keeping: 86_400, at: at(minute + 1440)) }
            #expect(try await store.pruneIndoorSamples(kept(until: 61)) == 0)
            _ = try await store.saveReadings(
                [reading(slot: Slot(startEpochSeconds: eight.startEpochSeconds + 86_400), pm10: 40, pm25: 20)], fetchedAt: fetched)
            #expect(try await store.pruneIndoorSamples(kept(until: 59)) == 0)
            // Kept two days, on a clock a year ahead: counted back from the stored hour's end (09:00 the next
            // day), not from the clock, which would take every hour.
            #expect(try await store.pruneIndoorSamples(Retention(keeping: 2 * 86_400, at: at(366 * 1440))) == 0)
            #expect(try await store.pruneIndoorSamples(kept(until: 61)) == 4)
            #expect(try await store.indoorSeries(sensors: ["study", "living-room"], from: at(0), to: at(120)).isEmpty)
        }
    }

    @Test(
        "An indoor import replaces the sensor's samples between its first and last minute, and keeps the rest of its end hours",
        arguments: Backend.allCases)
    func indoorImportEdges(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let start = Date(timeIntervalSince1970: 1_795_129_200)  // 08:00 KST
            func at(_ minutes: Int) -> Date { start.addingTimeInterval(Double(minutes) * 60) }
            // Stored: every minute of 08:00–10:00 at 1 µg/m³, and another sensor's.
            try await store.saveIndoor(
                samples: (0..<120).map { IndoorSample(sensor: "old-monitor", at: at($0), value: DustPair(fineDust: nil, ultraFineDust: 1)) }
                    + [IndoorSample(sensor: "other", at: at(30), value: DustPair(fineDust: 5, ultraFineDust: 5))], states: [])
            // The file: 08:30, 08:45 and 09:15 at 2 µg/m³.
            var file = IndoorSeries(sensor: "old-monitor")
            for minute in [30, 45, 75] { file.append(at: at(minute), value: DustPair(fineDust: nil, ultraFineDust: 2)) }
            try await store.importIndoorSeries(file)
            let read = try await store.indoorSeries(sensors: ["old-monitor", "other"], from: at(0), to: at(120))
            let minutes = read[0].minutes.map { Int(($0 - Int64(start.timeIntervalSince1970)) / 60) }
            #expect(minutes == Array(0..<30) + [30, 45, 75] + Array(76..<120))
            #expect(read[0].samples.filter { $0.value.ultraFineDust == 2 }.count == 3)
            #expect(read[1].sensor == "other" && read[1].count == 1)
        }
    }

    @Test(
        "The count of stored rows is kept with every write: new rows raise it, revised and unchanged ones do not, as the table says",
        arguments: Backend.allCases)
    func keptRowCount(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let sql = try #require(store as? any SQLDatabase)
            // What `readingCount` reads (v20) and what counting every row says, in one snapshot.
            let counts = { () async throws -> [Int] in
                try await sql.read { session in
                    [
                        try session.row("SELECT measurement_rows AS n FROM data_generation")?.int("n") ?? -1,
                        try session.row("SELECT count(*) AS n FROM measurement")?.int("n") ?? -1,
                    ]
                }
            }
            #expect(try await counts() == [0, 0])
            let nine = eight.advanced(by: 1)
            _ = try await store.saveReadings([reading(pm10: 41, pm25: 20), reading(slot: nine, pm10: 30, pm25: 9)], fetchedAt: fetched)
            #expect(try await counts() == [2, 2])
            // One unchanged, one revised, two new (another station): two more.
            let batch = [
                reading(pm10: 41, pm25: 20), reading(slot: nine, pm10: 31, pm25: 9), reading("중구", pm10: 50, pm25: 25),
                reading("중구", slot: nine, pm10: 52, pm25: 26),
            ]
            #expect(try await store.saveReadings(batch, fetchedAt: fetched) == UpsertSummary(inserted: 2, updated: 1, unchanged: 1))
            #expect(try await counts() == [4, 4])
            #expect(try await store.readingCount(station: nil) == 4)
            #expect(try await store.readingCount(station: "중구") == 2)
        }
    }

    @Test("The newest slot that ended by now; a slot in the future never counts", arguments: Backend.allCases)
    func newestSlot(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            _ = try await store.saveReadings([reading(pm10: 41, pm25: 20), reading(slot: nine, pm10: 30, pm25: 9)], fetchedAt: fetched)
            #expect(try await store.newestSlot(station: "종로구", endingBy: nine.start) == eight)
            #expect(try await store.newestSlot(station: "종로구", endingBy: nine.end) == nine)
            #expect(try await store.newestSlot(station: "종로구", endingBy: eight.start) == nil)
            #expect(try await store.newestSlot(station: "중구", endingBy: nine.end) == nil)
            // Both at once, as the health reads them: the newest whatever the clock says, and the newest by it.
            #expect(try await store.newestSlots(station: "종로구", endingBy: nine.start) == NewestSlots(stored: nine, endedByNow: eight))
            #expect(try await store.newestSlots(station: "종로구", endingBy: nine.end) == NewestSlots(stored: nine, endedByNow: nine))
            #expect(try await store.newestSlots(station: "종로구", endingBy: eight.start) == NewestSlots(stored: nine, endedByNow: nil))
            #expect(try await store.newestSlots(station: "중구", endingBy: nine.end) == NewestSlots(stored: nil, endedByNow: nil))
        }
    }

    @Test(
        "Importing the same activity again changes nothing; a slot's walking is its largest source, a tie the first name",
        arguments: Backend.allCases)
    func activity(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            let watch = ActivitySourceBatch(source: "health:Apple Watch", distances: [eight: 1200, nine: 300], replacing: eight...nine)
            let phone = ActivitySourceBatch(source: "health:iPhone", distances: [eight: 1000, nine: 300], replacing: eight...nine)
            for _ in 0..<2 { try await store.saveActivity([watch, phone], importedAt: fetched) }
            #expect(
                try await store.walking(from: eight, to: nine.advanced(by: 1)) == [
                    eight: SlotWalking(metres: 1200, source: "health:Apple Watch"),
                    nine: SlotWalking(metres: 300, source: "health:Apple Watch"),
                ])
            #expect(
                try await store.activitySources() == [
                    ActivitySourceSummary(source: "health:Apple Watch", firstSlot: eight, lastSlot: nine, slots: 2, metres: 1500),
                    ActivitySourceSummary(source: "health:iPhone", firstSlot: eight, lastSlot: nine, slots: 2, metres: 1300),
                ])
            // A shorter export of the Watch replaces its rows over the span it covers, nothing else.
            try await store.saveActivity(
                [ActivitySourceBatch(source: "health:Apple Watch", distances: [nine: 350], replacing: nine...nine)], importedAt: fetched)
            #expect(
                try await store.walking(from: eight, to: nine.advanced(by: 1))[nine]
                    == SlotWalking(metres: 350, source: "health:Apple Watch"))
            #expect(try await store.forgetActivity(source: "health:Apple Watch") == 2)
            #expect(try await store.forgetActivity(source: "health:Apple Watch") == 0)
            #expect(
                try await store.walking(from: eight, to: nine.advanced(by: 1))[eight] == SlotWalking(metres: 1000, source: "health:iPhone"))
        }
    }

    @Test(
        "A source's total adds its slots in time order, whatever order they were imported in: the same sum to the last bit",
        arguments: Backend.allCases)
    func activityTotalInSlotOrder(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            let ten = eight.advanced(by: 2)
            // Added in slot order, 0.1 + 0.7 + 0.2 is 1.0; in the order imported, 0.7 + 0.2 + 0.1 is 0.9999999999999999.
            try await store.saveActivity(
                [ActivitySourceBatch(source: "csv", distances: [nine: 0.7, ten: 0.2], replacing: nil)], importedAt: fetched)
            try await store.saveActivity([ActivitySourceBatch(source: "csv", distances: [eight: 0.1], replacing: nil)], importedAt: fetched)
            #expect(try await store.activitySources().map(\.metres) == [1.0])
        }
    }

    @Test(
        "A forecast stored again is not new; a re-published issue is; the newest issue grading a region wins", arguments: Backend.allCases)
    func forecasts(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let date = LocalDate(year: 2026, month: 11, day: 21)
            let five = Date(timeIntervalSince1970: 1_795_118_400)  // 2026-11-20 05:00 KST
            let eleven = five.addingTimeInterval(6 * 3600)
            let early = DustForecast(
                pollutant: .pm25, issuedAt: five, forecastDate: date,
                grades: ForecastGrades(byRegion: [.seoul: .known(.bad), .busan: .unknown("예보없음")]), overall: "나쁨", cause: "국외")
            let later = DustForecast(
                pollutant: .pm25, issuedAt: eleven, forecastDate: date, grades: ForecastGrades(byRegion: [.seoul: .known(.veryBad)]))
            #expect(try await store.saveForecasts([early, later], fetchedAt: fetched) == 2)
            #expect(try await store.saveForecasts([early, later], fetchedAt: fetched) == 0)
            var republished = early
            republished.cause = "국외 유입"
            #expect(try await store.saveForecasts([republished], fetchedAt: fetched) == 1)
            #expect(try await store.newestForecastIssue(pollutant: .pm25) == eleven)
            #expect(try await store.newestForecastIssue(pollutant: .pm10) == nil)
            #expect(try await store.forecast(pollutant: .pm25, date: date, region: .seoul)?.grade == .known(.veryBad))
            let busan = try await store.forecast(pollutant: .pm25, date: date, region: .busan)
            #expect(busan?.grade == .unknown("예보없음"))
            #expect(busan?.issuedAt == five && busan?.cause == "국외 유입")
            #expect(try await store.forecast(pollutant: .pm25, date: date, region: .jeju) == nil)
        }
    }

    @Test("Requests are counted by kind since a start, whatever their operation text says", arguments: Backend.allCases)
    func forecastQuota(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let midnight = Date(timeIntervalSince1970: 1_795_100_400)  // 2026-11-20 00:00 KST
            let attempts = [
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(-60), station: nil, kind: .forecast,
                    operation: "forecast PM10 2026-11-19 page 1",
                    outcome: .ok),
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(60), station: nil, kind: .forecast, operation: "forecast PM10 2026-11-20 page 1",
                    outcome: .ok),
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(120), station: nil, kind: .forecast,
                    operation: "forecast PM25 2026-11-20 page 1",
                    outcome: .quota),
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(180), station: "종로구", kind: .measurement, operation: "station 종로구 DAILY page 1",
                    outcome: .ok),
            ]
            for attempt in attempts { try await store.recordAttempt(attempt) }
            #expect(try await store.attemptCount(kind: .forecast, since: midnight) == 2)
            #expect(try await store.attemptCount(kind: .forecast, since: midnight.addingTimeInterval(-3600)) == 3)
            #expect(try await store.attemptCount(kind: .measurement, since: midnight) == 1)
            // The count follows the kind, not the words: a reworded label neither hides nor adds a call.
            try await store.recordAttempt(
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(240), station: nil, kind: .forecast, operation: "PM10 outlook", outcome: .ok)
            )
            try await store.recordAttempt(
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(300), station: "forecast", kind: .measurement, operation: "forecast of nothing",
                    outcome: .ok))
            #expect(try await store.attemptCount(kind: .forecast, since: midnight) == 3)
            // Calls stamped two days ahead (a clock that was ahead, since corrected) are not today's.
            try await store.recordAttempt(
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(2 * 86_400 + 60), station: nil, kind: .forecast, operation: "forecast PM10",
                    outcome: .ok))
            #expect(try await store.attemptCount(kind: .forecast, since: midnight, before: midnight.addingTimeInterval(86_400)) == 3)
            #expect(try await store.attemptCount(kind: .forecast, since: midnight) == 4)
        }
    }

    @Test(
        "Requests are kept 90 days counted back from the newest stored hour when the clock is ahead of it; none go while no hour is stored",
        arguments: Backend.allCases)
    func attemptRetention(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let midnight = Date(timeIntervalSince1970: 1_795_100_400)  // 2026-11-20 00:00 KST
            func attempt(_ days: Double) -> PollAttempt {
                PollAttempt(
                    startedAt: midnight.addingTimeInterval(days * 86_400), station: "종로구", kind: .measurement,
                    operation: "station 종로구 DAILY page 1", outcome: .ok)
            }
            let sql = try #require(store as? any SQLDatabase)
            func stamps() async throws -> [Double] {
                try await sql.recentAttempts(limit: 100).map { ($0.startedAt.timeIntervalSince(midnight) / 86_400).rounded() }.sorted()
            }
            for days in [-120.0, -95, -10, 0] { try await store.recordAttempt(attempt(days)) }
            // Nothing vouches for the clock yet: the 120- and 95-day-old requests stay.
            #expect(try await stamps() == [-120, -95, -10, 0])
            _ = try await store.saveReadings(
                [reading(slot: Slot(startEpochSeconds: 1_795_100_400), pm10: 41, pm25: 20)], fetchedAt: fetched)
            // A clock two years ahead: counted back from the stored hour (00:00–01:00), the old two go and
            // the last 90 days stay, where counting from the clock would have left only the new request.
            try await store.recordAttempt(attempt(730))
            #expect(try await stamps() == [-10, 0, 730])
        }
    }

    @Test("Stations keep what a later list leaves out; a station's place joins its province and address", arguments: Backend.allCases)
    func stations(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            _ = try await store.saveReadings([reading("행신동", pm10: 41, pm25: 20)], fetchedAt: fetched)
            try await store.saveStations(
                [Station(name: "행신동", address: "경기도 고양시 덕양구 행신동 1", latitude: 37.6, longitude: 126.8)], at: fetched)
            try await store.saveStations([Station(name: "행신동", network: "도시대기")], at: fetched)
            #expect(
                try await store.stations() == [
                    Station(name: "행신동", address: "경기도 고양시 덕양구 행신동 1", network: "도시대기", latitude: 37.6, longitude: 126.8)
                ])
            #expect(try await store.stationLocation(name: "행신동") == StationLocation(sido: "서울", address: "경기도 고양시 덕양구 행신동 1"))
            #expect(try await store.stationLocation(name: "없는곳") == nil)
        }
    }

    @Test("Alert events get increasing ids and come back newest first with their deliveries; states by rule", arguments: Backend.allCases)
    func alerts(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let at = Date(timeIntervalSince1970: 1_795_150_000)
            let fired = AlertEvent(kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: at)
            let first = try #require(try await store.saveAlertTransition(rule: "pm25.grade >= 3", state: .active, event: fired, at: at))
            let test = try await store.saveAlertEvent(AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: at))
            #expect(first.id > 0 && test.id > first.id)
            #expect(try await store.saveAlertTransition(rule: "pm10.grade >= 3", state: .held, event: nil, at: at) == nil)
            let delivery = AlertDelivery(
                eventID: first.id, sink: "ntfy https://ntfy.sh/…", attempt: 1, at: at, outcome: .delivered, detail: nil)
            try await store.recordAlertDelivery(delivery)
            #expect(try await store.alertStates() == ["pm25.grade >= 3": .active, "pm10.grade >= 3": .held])
            let recent = try await store.recentAlertEvents(limit: 5)
            #expect(recent.map(\.event) == [test, first])
            #expect(recent.map(\.deliveries) == [[], [delivery]])
            #expect(try await store.recentAlertEvents(limit: 1).map(\.event) == [test])
        }
    }

    @Test(
        "An event naming people reads back with them, its rule alone; a person's state has its own key beside me's (docs/REFERENCE.md §18)",
        arguments: Backend.allCases)
    func alertsPerPerson(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let at = Date(timeIntervalSince1970: 1_795_150_000)
            let fired = AlertEvent(
                kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: at, people: ["dad", "민지"])
            let saved = try #require(
                try await store.saveAlertTransition(rule: "pm25.grade >= 3 for 민지", state: .active, event: fired, at: at))
            _ = try await store.saveAlertTransition(rule: "pm25.grade >= 3", state: .held, event: nil, at: at)
            #expect(try await store.alertStates() == ["pm25.grade >= 3 for 민지": .active, "pm25.grade >= 3": .held])
            let read = try #require(try await store.recentAlertEvents(limit: 1).first?.event)
            #expect(read == saved && read.rule == "pm25.grade >= 3" && read.people == ["dad", "민지"])
        }
    }

    @Test(
        "The demo's mark: an empty database is claimed and marked; a released one is the household's, and no claim takes it again",
        arguments: Backend.allCases)
    func demoMark(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            #expect(try await store.releaseFromDemo() == false)
            #expect(try await store.claimForDemo(at: fetched))
            _ = try await store.saveReadings([reading(pm10: 41, pm25: 20)], fetchedAt: fetched)
            // The demo's own database stays the demo's while it holds readings.
            #expect(try await store.demoMayWrite())
            #expect(try await store.claimForDemo(at: fetched))
            let generation = try await store.dataGeneration()
            #expect(try await store.releaseFromDemo())
            #expect(try await store.dataGeneration() > generation)
            #expect(try await store.demoMayWrite() == false)
            #expect(try await store.claimForDemo(at: fetched) == false)
            // Nothing to release: nothing written.
            let released = try await store.dataGeneration()
            #expect(try await store.releaseFromDemo() == false)
            #expect(try await store.dataGeneration() == released)
        }
    }

    @Test("The daemon's status is read back as written; none before dustd ever ran", arguments: Backend.allCases)
    func status(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            #expect(try await store.loadStatus() == nil)
            var status = DaemonStatus(
                state: .idle, mode: .daemon, pid: 4242, version: "1.0", station: "종로구",
                startedAt: Date(timeIntervalSince1970: 1_795_150_000.25), heartbeatSeconds: 60)
            status.nextPollAt = Date(timeIntervalSince1970: 1_795_151_200)
            try await store.saveStatus(status)
            #expect(try await store.loadStatus() == status)
        }
    }

    @Test(
        "Kept places: read back by person, inputs and range, replaced by a later keep; a keep after a write raised the generation keeps nothing",
        arguments: Backend.allCases)
    func keptPlaces(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let nine = eight.advanced(by: 1)
            let generation = try await store.placeGeneration()
            let places = [
                KeptSlotPlace(slot: eight, bytes: [1, 2, 3]), KeptSlotPlace(slot: nine, bytes: Array(repeating: 0xFF, count: 2000)),
            ]
            #expect(try await store.keepSlotPlaces(places, person: "민지", inputs: "v1 a", generation: generation))
            #expect(
                try await store.keepSlotPlaces(
                    [KeptSlotPlace(slot: eight, bytes: [9])], person: "dad", inputs: "v1 a", generation: generation))
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 a", from: eight, to: nine.advanced(by: 1)) == places)
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 a", from: nine, to: nine.advanced(by: 1)) == [places[1]])
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 b", from: eight, to: nine.advanced(by: 1)).isEmpty)
            // A place kept again with other inputs replaces the slot's.
            #expect(
                try await store.keepSlotPlaces(
                    [KeptSlotPlace(slot: eight, bytes: [4])], person: "민지", inputs: "v1 b", generation: generation)
            )
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 a", from: eight, to: nine.advanced(by: 1)) == [places[1]])
            #expect(
                try await store.slotPlaces(person: "민지", inputs: "v1 b", from: eight, to: nine) == [
                    KeptSlotPlace(slot: eight, bytes: [4])
                ])
            // A reading lands: the generation rises, and a keep weighed before it keeps nothing.
            _ = try await store.saveReadings([reading(slot: nine, pm10: 41, pm25: 20)], fetchedAt: fetched)
            let raised = try await store.placeGeneration()
            #expect(raised > generation)
            #expect(try await !store.keepSlotPlaces(places, person: "민지", inputs: "v1 a", generation: generation))
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 a", from: eight, to: nine.advanced(by: 1)).isEmpty)
            #expect(try await store.keepSlotPlaces(places, person: "민지", inputs: "v1 a", generation: raised))
            #expect(try await store.slotPlaces(person: "민지", inputs: "v1 a", from: eight, to: nine.advanced(by: 1)) == places)
        }
    }

    @Test(
        "Each write forgets the places it changes: readings their slots', positions their person's hours, a moved station all, a move both people's",
        arguments: Backend.allCases)
    func placesForgotten(_ backend: Backend) async throws {
        try await backend.withStore { store throws in
            let hours = (0..<4).map { eight.advanced(by: $0) }
            func keepAll() async throws {
                let generation = try await store.placeGeneration()
                for person in ["dad", "민지", "me"] {
                    #expect(
                        try await store.keepSlotPlaces(
                            hours.map { KeptSlotPlace(slot: $0, bytes: [1]) }, person: person, inputs: "v1", generation: generation))
                }
            }
            func kept(_ person: String) async throws -> [Slot] {
                try await store.slotPlaces(person: person, inputs: "v1", from: hours[0], to: hours[3].advanced(by: 1)).map(\.slot)
            }
            try await store.saveStations([Station(name: "종로구", latitude: 37.572025, longitude: 127.005028)], at: fetched)
            _ = try await store.saveReadings([reading(slot: hours[1], pm10: 41, pm25: 20)], fetchedAt: fetched)
            try await keepAll()

            // The same reading again changes nothing; a revised one forgets its slot, for everyone.
            _ = try await store.saveReadings([reading(slot: hours[1], pm10: 41, pm25: 20)], fetchedAt: fetched)
            #expect(try await kept("dad") == hours)
            _ = try await store.saveReadings([reading(slot: hours[1], pm10: 44, pm25: 20)], fetchedAt: fetched)
            #expect(try await kept("dad") == [hours[0], hours[2], hours[3]])
            #expect(try await kept("민지") == [hours[0], hours[2], hours[3]])
            try await keepAll()

            // dad's positions of 09:10 and 09:59 forget his 09:00 and the hour the last one's minute reaches (10:00), no one else's.
            let minutes = TrackMinutes(
                [hours[1].start.addingTimeInterval(600), hours[1].start.addingTimeInterval(3540)].map {
                    TrackPoint(at: $0, latitude: 37.5, longitude: 127)
                })
            try await store.saveImport(
                walking: [], body: [], positions: [PositionBatch(person: "dad", source: "gpx:a.gpx", minutes: minutes, replacing: nil)],
                importedAt: fetched)
            #expect(try await kept("dad") == [hours[0], hours[3]])
            #expect(try await kept("민지") == hours)
            try await keepAll()

            // Forgetting dad's positions forgets all his places.
            #expect(try await store.forgetPositions(person: "dad", source: "gpx:a.gpx") == 2)
            #expect(try await kept("dad").isEmpty)
            #expect(try await kept("민지") == hours)
            try await keepAll()

            // The station list again, unchanged: nothing forgotten; 종로구 moved: everything.
            try await store.saveStations([Station(name: "종로구", latitude: 37.572025, longitude: 127.005028)], at: fetched)
            #expect(try await kept("민지") == hours)
            try await store.saveStations([Station(name: "중구", address: "서울 중구")], at: fetched)
            #expect(try await kept("민지") == hours)
            try await store.saveStations([Station(name: "종로구", latitude: 37.58, longitude: 127.005028)], at: fetched)
            for person in ["dad", "민지", "me"] { #expect(try await kept(person).isEmpty, "\(person)") }
            try await keepAll()

            // Nothing to hand over (`me` has no rows): 민지's places stay.
            #expect(try await store.movePerson(from: "me", to: "민지") == 0)
            #expect(try await kept("민지") == hours)
            // `me`'s rows handed to 민지 (who has none but places): both forget theirs.
            try await store.saveImport(
                walking: [], body: [], positions: [PositionBatch(person: "me", source: "gpx:b.gpx", minutes: minutes, replacing: nil)],
                importedAt: fetched)
            try await keepAll()
            #expect(try await store.movePerson(from: "me", to: "민지") == 2)
            #expect(try await kept("me").isEmpty)
            #expect(try await kept("민지").isEmpty)
            #expect(try await kept("dad") == hours)
        }
    }
}

/// DustSQL's shared statement for the indoor series, whatever read of its own the engine has.
private func sharedIndoorSeries(
    _ database: some SQLDatabase, sensors: [String], from: Date, to: Date
) async throws(StorageFailure) -> [IndoorSeries] {
    try await database.indoorSeries(sensors: sensors, from: from, to: to)
}
