import AirKorea
import DustConfig
import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import TestSupport
import Testing

@testable import DustDaemon

@Suite("dustd keeps the weighed hours of the people it follows after each poll (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct PlaceKeepingServiceTests {
    /// jiho's home, by 광화문.
    static let home = GeoPoint(latitude: 37.5759, longitude: 126.9769)

    static let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)

    /// The demo's household and data (its national archive, station list and jiho's walk) in a fresh
    /// store, and dustd's settings for it: `station.mode: nation` follows them, `single` does not.
    /// `household: false` keeps the settings of an installation without `people:`: its one person, `me`.
    static func rig(mode: StationMode, household: Bool = true) async throws -> (store: SQLiteStore, service: PlaceKeepingService) {
        let store = SQLiteStore.scratch()
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        _ = try await DemoReplay(fixtures: fixtures, store: store, calendar: calendar).run()
        let environment = ["DUSTD_STATION_NAME": DemoReplay.station, "DUSTD_STATION_MODE": mode.rawValue]
        var settings = try SettingsLoader(environment: environment, workingDirectory: "/nonexistent").load(
            configurationFile: nil, now: settingsLoadedAt)
        if household {
            settings.people = DemoReplay.people
            settings.people[0].home = home
        } else {
            #expect(settings.people.map(\.name) == [Person.defaultName])
        }
        let service = PlaceKeepingService(
            live: LiveConfiguration(settings: settings, key: ServiceKey(testKey)!),
            database: DaemonDatabase(store, logger: LogCapture().logger()), triggers: AsyncStream { nil },
            logger: LogCapture().logger())
        return (store, service)
    }

    @Test("nation mode: the first pass keeps every hour of the year 종로구 reported for jiho (who has a home), the next only what is new")
    func keepsWhatIsMissing() async throws {
        let (store, service) = try await Self.rig(mode: .nation)
        let calendar = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        let first = calendar.slots(of: DemoReplay.lastDay.adding(days: 1 - SlotPlace.daysKept))[0]
        let year = (first, calendar.slots(of: DemoReplay.lastDay).last!.advanced(by: 1))
        let reported = await Set(try store.readings(stations: [DemoReplay.station], from: year.0, to: year.1).map(\.slot))
        // jiho has a home (and a walk), seoa neither: only jiho is followed, every hour 종로구 reported.
        let kept = await service.keep(at: DemoReplay.now)
        #expect(kept == reported.count, "\(kept) kept, \(reported.count) reported")
        let inputs = SlotPlace.inputs(radiusKilometres: 10, home: Self.home)
        await #expect(Set(try store.slotPlaces(person: "jiho", inputs: inputs, from: year.0, to: year.1).map(\.slot)) == reported)
        await #expect(
            try store.slotPlaces(person: "seoa", inputs: SlotPlace.inputs(radiusKilometres: 10, home: nil), from: year.0, to: year.1)
                .isEmpty)
        #expect(await service.keep(at: DemoReplay.now) == 0)
        // A revised hour is weighed again, and only it.
        let fifteen = calendar.slots(of: DemoReplay.lastDay)[15]
        _ = try await store.saveReadings(
            [HourlyReading(station: "중구", slot: fifteen, concentration: DustPair(fineDust: 99, ultraFineDust: 50))],
            fetchedAt: DemoReplay.now)
        #expect(await service.keep(at: DemoReplay.now) == 1)
    }

    @Test("single mode follows no one: nothing is weighed or kept")
    func singleModeKeepsNothing() async throws {
        let (store, service) = try await Self.rig(mode: .single)
        #expect(await service.keep(at: DemoReplay.now) == 0)
        let day = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!).slots(of: DemoReplay.lastDay)
        let inputs = SlotPlace.inputs(radiusKilometres: 10, home: Self.home)
        #expect(try await store.slotPlaces(person: "jiho", inputs: inputs, from: day[0], to: day[day.count - 1].advanced(by: 1)).isEmpty)
    }

    @Test("Without people: the one person, me, is followed: the hours of me's walk are kept, and no one else's")
    func keepsMeWithoutPeople() async throws {
        let (store, service) = try await Self.rig(mode: .nation, household: false)
        let walk = TestFixtures.url(DemoReplay.walkFile).path
        _ = try await ActivityService(store: store, calendar: Self.calendar, clock: FixedClock(DemoReplay.now)).importFile(atPath: walk)
        #expect(await service.keep(at: DemoReplay.now) > 0)
        let (places, reported) = try await DemoReplay.keptPlacesOfLastDay(Person.defaultName, in: store)
        #expect(places.map(\.slot) == reported)
        let fifteen = try #require(places.first { $0.slot == Self.calendar.slots(of: DemoReplay.lastDay)[15] })
        #expect(SlotPlace(bytes: fifteen.bytes, slot: fifteen.slot)?.track.positions.count == 40)
        // jiho's walk is in the store too, but jiho is not configured: nobody follows him.
        #expect(try await DemoReplay.keptPlacesOfLastDay("jiho", in: store).places.isEmpty)
        #expect(await service.keep(at: DemoReplay.now) == 0)
    }

    @Test("dustd --sync-stations keeps the year of weighed hours at once, rather than at the next poll")
    func stationSyncKeeps() async throws {
        let directory = try TemporaryDirectory("finedust-sync-keeps")
        defer { directory.remove() }
        let path = directory.path("d.sqlite")
        let fixtures = try #require(DemoReplay.locateFixtures(explicit: TestFixtures.url("").path))
        _ = try await DemoReplay(fixtures: fixtures, store: try SQLiteStore(path: path, mode: .readWrite), calendar: Self.calendar).run()
        #expect(try await DemoReplay.keptPlacesOfLastDay("jiho", in: SQLiteStore(path: path, mode: .readOnly)).places.isEmpty)

        let list = try TestFixtures.data("synthesized/msrstn-list-seoul-walk-8.xml")
        let outcome = try await syncStations(answering: list, into: path)
        #expect(outcome.status == .ok && outcome.diagnostics.isEmpty, "\(outcome.diagnostics)")
        #expect(outcome.output == ["8 stations stored."])

        let (places, reported) = try await DemoReplay.keptPlacesOfLastDay("jiho", in: SQLiteStore(path: path, mode: .readOnly))
        #expect(!reported.isEmpty)
        #expect(places.map(\.slot) == reported)
    }

    /// `dustd --sync-stations` with the demo household's settings into `path`, AirKorea answering `body`.
    private func syncStations(answering body: Data, into path: String) async throws -> OneShotOutcome {
        let server = FakeAirKoreaServer { _ in .respond(status: 200, body: body) }
        let settings = try SettingsLoader(
            environment: ["DUSTD_STORAGE_PATH": path, "DUSTD_API_BASE_URL": try await server.start()], workingDirectory: "/nonexistent"
        ).load(configurationFile: TestFixtures.url(DemoReplay.householdConfigurationFile).path, now: settingsLoadedAt)
        let outcome = await StationSync(
            settings: settings, environment: ["DUSTD_API_SERVICE_KEY": testKey], clock: FixedClock(DemoReplay.now)
        ).run()
        await server.stop()
        return outcome
    }

    @Test("dustd --sync-stations refuses an answer of readings as a configuration problem (78): nothing stored, api.baseURL named")
    func stationSyncRefusesReadings() async throws {
        let directory = try TemporaryDirectory("finedust-sync-readings")
        defer { directory.remove() }
        let path = directory.path("d.sqlite")
        let readings = try TestFixtures.data("synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml")
        let outcome = try await syncStations(answering: readings, into: path)
        #expect(outcome.status == .configuration, "\(outcome.diagnostics)")
        #expect(outcome.diagnostics.joined().contains("not a station list"), "\(outcome.diagnostics)")
        #expect(outcome.diagnostics.joined().contains("check api.baseURL"), "\(outcome.diagnostics)")
        #expect(outcome.output.isEmpty)
        if FileManager.default.fileExists(atPath: path) {
            #expect(try await SQLiteStore(path: path, mode: .readOnly).stations().isEmpty)
        }
    }
}

@Suite("dustd's web access and retention from the settings (docs/REFERENCE.md §13, §11)", .timeLimit(.minutes(10)))
struct AccessAndRetentionTests {
    @Test("Each person's token file opens that person; two files holding one token are refused, naming both")
    func tokens() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func file(_ name: String, _ token: String) throws -> String {
            let path = directory.path(name)
            #expect(
                FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]))
            return path
        }
        let admin = try file("admin", "admin-0123456789abcdefghijklmnopqrstuvwxyz")
        let dad = try file("dad", "dad-0123456789abcdefghijklmnopqrstuvwxyz")
        let http = HTTPSettings(listen: "127.0.0.1:8478", tokenFile: admin, personTokenFiles: [PersonTokenFile(person: "dad", path: dad)])
        let access = try WebFrontEnd.access(from: http)
        #expect(access.principal(token: "dad-0123456789abcdefghijklmnopqrstuvwxyz") == .person("dad"))
        #expect(access.principal(token: "admin-0123456789abcdefghijklmnopqrstuvwxyz") == .everyone)
        let copy = try file("copy", "admin-0123456789abcdefghijklmnopqrstuvwxyz")
        var twice = http
        twice.personTokenFiles.append(PersonTokenFile(person: "민지", path: copy))
        #expect(throws: ConfigurationError.self) { try WebFrontEnd.access(from: twice) }
        do {
            _ = try WebFrontEnd.access(from: twice)
        } catch {
            #expect(error.description.contains("민지") && error.description.contains("http.tokenFile"))
        }
        // A PIN is not a token: at least 16 characters, the file and how to make one named.
        let pin = try file("pin", "1234")
        var short = http
        short.personTokenFiles.append(PersonTokenFile(person: "민지", path: pin))
        do {
            _ = try WebFrontEnd.access(from: short)
            Issue.record("a 4-character token was accepted")
        } catch {
            #expect(
                error.description.contains("people[].tokenFile (민지)") && error.description.contains("4 characters")
                    && error.description.contains("at least 16") && error.description.contains("openssl rand -hex 24 > \(pin)"),
                "\(error.description)")
        }
        #expect(throws: Never.self) {
            try WebFrontEnd.access(from: HTTPSettings(listen: "127.0.0.1:8478", tokenFile: try file("sixteen", "0123456789abcdef")))
        }
    }

    @Test(
        "The retention pass removes jiho's positions older than retention.positionsDays once a stored hour vouches for the clock; a second pass removes nothing"
    )
    func retention() async throws {
        let (store, service) = try await PlaceKeepingServiceTests.rig(mode: .nation)
        let all = try await store.personRecords("jiho").positions
        #expect(!all.isEmpty)
        // The demo's walk is on its last days: 403 days later, the default 400 days of retention remove
        // all of it, but only once a poll has stored an hour of that later day. Before, the clock alone
        // says so, which a Raspberry Pi's clock set ahead would too: nothing goes.
        let later = DemoReplay.now.addingTimeInterval(400 * 86_400 + 3 * 86_400)
        #expect(await service.prune(at: later)?.total == 0)
        #expect(try await store.personRecords("jiho").positions.count == all.count)
        _ = try await store.saveReadings(
            [
                HourlyReading(
                    station: "종로구", slot: Slot(containing: later).advanced(by: -1), concentration: DustPair(fineDust: 40, ultraFineDust: 20)
                )
            ],
            fetchedAt: later)
        let removal = try #require(await service.prune(at: later))
        #expect(removal[.positions] == all.count)
        #expect(try await store.personRecords("jiho").positions.isEmpty)
        #expect(await service.prune(at: later)?.total == 0)
        // Within retention (now) nothing goes.
        let (fresh, keeping) = try await PlaceKeepingServiceTests.rig(mode: .nation)
        #expect(await keeping.prune(at: DemoReplay.now)?.total == 0)
        #expect(try await fresh.personRecords("jiho").positions.count == all.count)
    }
}
