import DustConfig
import DustKit
import DustPostgres
import DustServices
import Foundation
import TestSupport
import Testing

/// 2026-11-20 00:00 KST: the day every person of these tests walked.
private let midnight = Date(timeIntervalSince1970: 1_795_100_400)
private let imported = Date(timeIntervalSince1970: 1_795_219_200)
/// A window around the day, wide enough for every record of it (a heart-rate read reaches 10 minutes back).
private let window = (from: midnight.addingTimeInterval(-3600), to: midnight.addingTimeInterval(25 * 3600))

/// One person's day as one import: 24 hours of walking, a heart rate and a position every minute.
private func day(
    _ person: String, number: Int, failing: Bool = false
) -> (ActivitySourceBatch, PhysiologyBatch, PositionBatch) {
    let slots = (0..<24).map { Slot(containing: midnight.addingTimeInterval(Double($0) * 3600)) }
    let walking = ActivitySourceBatch(
        person: person, source: "gpx:day.gpx", distances: Dictionary(uniqueKeysWithValues: slots.map { ($0, Double(100 * number + 1)) }),
        replacing: slots.first!...slots.last!)
    let minutes = (0..<1440).map { midnight.addingTimeInterval(Double($0) * 60) }
    let heart = HeartRateSeries(minutes.map { HeartRateSample(at: $0, beatsPerMinute: Double(60 + number)) })
    // A sleep of 30 hours breaks its table's check (at most 24): the import fails after its walking and
    // heart rates are written, before its positions.
    let sleep = failing ? [SleepInterval(start: minutes[1380], end: minutes[1380].addingTimeInterval(30 * 3600))] : []
    let body = PhysiologyBatch(
        person: person, source: "health:Apple Watch", heartRate: heart, sleep: sleep, replacing: minutes.first!...minutes.last!)
    let track = TrackMinutes(minutes.map { TrackPoint(at: $0, latitude: 37.5 + Double(number) / 100, longitude: 127) })
    return (walking, body, PositionBatch(person: person, source: "gpx:day.gpx", minutes: track, replacing: track.span))
}

/// What a reader sees of one person, table by table, read in the reverse of the order an import writes
/// them (positions, heart rate, walking), so a table read later can only see as much or more.
private struct Seen: Equatable, CustomStringConvertible {
    var positions: Int
    var heartRates: Int
    var walkingSlots: Int

    static let none = Seen(positions: 0, heartRates: 0, walkingSlots: 0)
    static let all = Seen(positions: 1440, heartRates: 1440, walkingSlots: 24)

    var description: String { "\(positions)/\(heartRates)/\(walkingSlots)" }

    static func read(_ person: String, from store: any FineDustStore) async throws -> Seen {
        let positions = try await store.positions(person: person, from: window.from, to: window.to).count
        let heartRates = try await store.physiology(person: person, from: window.from, to: window.to).heartRate.count
        let walking = try await store.walking(person: person, from: Slot(containing: window.from), to: Slot(containing: window.to)).count
        return Seen(positions: positions, heartRates: heartRates, walkingSlots: walking)
    }

    /// None of the import, all of it, or an import committed between two of the reads (a table read
    /// later seeing all where one read earlier saw none); never part of any table.
    var isWhole: Bool {
        let tables = [(positions, 1440), (heartRates, 1440), (walkingSlots, 24)]
        guard tables.allSatisfy({ $0.0 == 0 || $0.0 == $0.1 }) else { return false }
        let full = tables.map { $0.0 > 0 }
        return zip(full, full.dropFirst()).allSatisfy { !$0 || $1 }
    }
}

/// Raised by the writers once they are done; the reader looks at it between its rounds.
private actor Finished {
    private(set) var value = false
    func set() { value = true }
}

/// Many imports at once on one PostgreSQL database (docs/REFERENCE.md §20): each one is all or nothing,
/// and a reader never sees half of one.
@Suite(
    "Concurrent imports on PostgreSQL: each all or nothing, none half seen",
    .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.unavailableReason)), .timeLimit(.minutes(10)))
struct ConcurrentImportTests {
    static let people = (1...8).map { "person\($0)" }

    func store() async throws -> PostgresStore {
        let server = try await PostgresServer.running()
        return try await PostgresStore.open(
            server.location(database: try await server.createDatabase()), password: server.password,
            leaseTimeout: PostgresStore.testLeaseTimeout)
    }

    /// Runs `imports` at once while a reader reads every person over and over until they are done;
    /// returns what each import threw (nil: stored) and every reading.
    fileprivate func importWhileReading(
        _ store: PostgresStore, _ imports: [(person: String, records: (ActivitySourceBatch, PhysiologyBatch, PositionBatch))]
    ) async throws -> (failures: [String: StorageFailure?], readings: [Seen]) {
        let finished = Finished()
        let reader = Task {
            var readings: [Seen] = []
            repeat {
                for person in Self.people { readings.append(try await Seen.read(person, from: store)) }
            } while !(await finished.value)
            return readings
        }
        let failures = await withTaskGroup(of: (String, StorageFailure?).self) { group in
            for (person, records) in imports {
                group.addTask {
                    do throws(StorageFailure) {
                        try await store.saveImport(walking: [records.0], body: [records.1], positions: [records.2], importedAt: imported)
                        return (person, nil)
                    } catch {
                        return (person, error)
                    }
                }
            }
            var failures: [String: StorageFailure?] = [:]
            for await (person, failure) in group { failures[person] = failure }
            return failures
        }
        await finished.set()
        return (failures, try await reader.value)
    }

    @Test("8 imports for 8 people at once all land; a reader sees each person's day none or whole, never part")
    func eightAtOnce() async throws {
        let store = try await store()
        try await store.serving { store throws in
            let imports = Self.people.enumerated().map { ($1, day($1, number: $0 + 1)) }
            let (failures, readings) = try await importWhileReading(store, imports)
            #expect(failures.count == 8 && failures.values.allSatisfy { $0 == nil }, "\(failures)")
            #expect(readings.count >= 8)
            let broken = readings.filter { !$0.isWhole }
            #expect(broken.isEmpty, "\(broken)")
            for (number, person) in Self.people.enumerated() {
                #expect(try await Seen.read(person, from: store) == .all, "\(person)")
                let walking = try await store.walking(person: person, from: Slot(containing: midnight), to: Slot(containing: window.to))
                #expect(Set(walking.values.map(\.metres)) == [Double(100 * (number + 1) + 1)], "\(person)")
            }
            #expect(try await store.physiologySummaries().map(\.heartRateSamples) == Array(repeating: 1440, count: 8))
        }
    }

    @Test(
        "One import of the 8 fails at a bad sleep row after its walking and heart rates were written: it leaves nothing, the other 7 land")
    func oneFails() async throws {
        let store = try await store()
        try await store.serving { store throws in
            let imports = Self.people.enumerated().map { ($1, day($1, number: $0 + 1, failing: $1 == "person5")) }
            let (failures, readings) = try await importWhileReading(store, imports)
            #expect(failures.count == 8)
            #expect(failures.filter { $0.value != nil }.map(\.key) == ["person5"])
            let broken = readings.filter { !$0.isWhole }
            #expect(broken.isEmpty, "\(broken)")
            for person in Self.people {
                #expect(try await Seen.read(person, from: store) == (person == "person5" ? .none : .all), "\(person)")
            }
            #expect(try await store.activitySources().map(\.person) == Self.people.filter { $0 != "person5" })
            #expect(try await store.positionSummaries().map(\.person) == Self.people.filter { $0 != "person5" })
        }
    }

    @Test("8 dustctl activity import --person processes at once against one database: each day lands whole, a reader never sees half")
    func dustctlProcesses() async throws {
        let server = try await PostgresServer.running()
        let database = try await server.createDatabase()
        let store = try await PostgresStore.open(
            server.location(database: database), password: server.password, leaseTimeout: PostgresStore.testLeaseTimeout)
        try await store.serving { store throws in
            let directory = try TemporaryDirectory("concurrent-imports")
            defer { directory.remove() }
            let passwordFile = directory.path("postgres-password")
            _ = FileManager.default.createFile(
                atPath: passwordFile, contents: Data((server.password + "\n").utf8), attributes: [.posixPermissions: 0o600])
            let configuration = directory.path("dustd.yaml")
            let people = Self.people.map { "  - name: \($0)\n    born: \"1990-01\"" }.joined(separator: "\n")
            try """
            station:
              name: 종로구
            storage:
              url: postgresql://\(server.user)@/\(database)?host=\(server.socketDirectory)&sslmode=disable
              passwordFile: \(passwordFile)
            people:
            \(people)

            """.write(toFile: configuration, atomically: true, encoding: .utf8)
            var environment = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("DUSTD_") && $0.key != "CREDENTIALS_DIRECTORY"
            }
            environment["DUSTD_CONFIG"] = configuration
            environment["NO_COLOR"] = "1"
            var processes: [(person: String, process: Process, standardError: String)] = []
            for (number, person) in Self.people.enumerated() {
                let export = directory.path("\(person)-export.xml")
                try Self.healthExport(number: number + 1).write(toFile: export, atomically: true, encoding: .utf8)
                let process = Process()
                process.executableURL = Executables.url("dustctl")
                process.arguments = ["activity", "import", "--quiet", "--person", person, export]
                process.environment = environment
                process.currentDirectoryURL = directory.url
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                let standardError = directory.path("\(person).stderr")
                _ = FileManager.default.createFile(atPath: standardError, contents: nil)
                process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: standardError))
                processes.append((person, process, standardError))
            }
            for entry in processes { try entry.process.runReaped() }
            var readings: [(person: String, heartRates: Int, walkingSlots: Int)] = []
            repeat {
                for person in Self.people {
                    let heartRates = try await store.physiology(person: person, from: window.from, to: window.to).heartRate.count
                    let walking = try await store.walking(
                        person: person, from: Slot(containing: window.from), to: Slot(containing: window.to))
                    readings.append((person, heartRates, walking.count))
                }
            } while processes.contains { $0.process.isRunning }
            for entry in processes {
                await entry.process.exited()
                let errors = (try? String(contentsOfFile: entry.standardError, encoding: .utf8)) ?? ""
                #expect(entry.process.terminationStatus == 0, "\(entry.person): \(errors)")
            }
            // Heart rate is read before walking: once it is seen whole, the walking of the same transaction is too.
            let partial = readings.filter {
                ![0, 1440].contains($0.heartRates) || ![0, 24].contains($0.walkingSlots) || ($0.heartRates > 0 && $0.walkingSlots == 0)
            }
            #expect(partial.isEmpty, "\(partial)")
            for (number, person) in Self.people.enumerated() {
                let walking = try await store.walking(person: person, from: Slot(containing: midnight), to: Slot(containing: window.to))
                #expect(walking.count == 24 && Set(walking.values.map(\.metres)) == [Double(100 * (number + 1))], "\(person)")
                let heart = try await store.physiology(person: person, from: window.from, to: window.to).heartRate
                #expect(heart.count == 1440 && Set(heart.map(\.beatsPerMinute)) == [Double(60 + number + 1)], "\(person)")
            }
        }
    }

    /// An Apple Health export.xml of 2026-11-20 from the Watch: `100 × number` metres walked in each hour
    /// and a heart rate of `60 + number` every minute.
    static func healthExport(number: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        var records: [String] = []
        for hour in 0..<24 {
            let start = midnight.addingTimeInterval(Double(hour) * 3600)
            records.append(
                #" <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Apple Watch" unit="m" "#
                    + #"startDate="\#(formatter.string(from: start))" "#
                    + #"endDate="\#(formatter.string(from: start.addingTimeInterval(3600)))" value="\#(100 * number)"/>"#)
        }
        for minute in 0..<1440 {
            let at = formatter.string(from: midnight.addingTimeInterval(Double(minute) * 60))
            records.append(
                #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" "#
                    + #"startDate="\#(at)" endDate="\#(at)" value="\#(60 + number)"/>"#)
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="ko_KR">
             <ExportDate value="2026-11-21 00:10:00 +0900"/>
            \(records.joined(separator: "\n"))
            </HealthData>

            """
    }
}
