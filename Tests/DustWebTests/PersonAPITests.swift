import DustKit
import DustServices
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// `?person=` on the API (docs/REFERENCE.md §18): each person's document is what `dustctl --person`
/// prints for the same household (an adult born 1986-05 and a child born 2018-03, both at 종로구).
@Suite("dustd on the web: ?person=", .timeLimit(.minutes(10)))
struct PersonAPITests {
    static let people = [
        Person(name: "dad", born: BirthMonth(year: 1986, month: 5), station: "종로구"),
        Person(name: "민지", born: BirthMonth(year: 2018, month: 3), station: "종로구"),
    ]

    func household(_ rig: WebRig) throws -> (WebData, configuration: String) {
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path, people: Self.people)
        let configuration = rig.directory.path("household.yaml")
        try """
        station:
          name: 종로구
        people:
          - name: dad
            born: "1986-05"
          - name: 민지
            born: "2018-03"

        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        return (data, configuration)
    }

    @Test(
        "Each person's day and week are byte for byte dustctl --person's; none named is the first person",
        arguments: [
            ("/api/v1/day/2026-11-20?person=%EB%AF%BC%EC%A7%80", ["day", "2026-11-20", "--person", "민지"]),
            ("/api/v1/day/2026-11-20?person=dad", ["day", "2026-11-20", "--person", "dad"]),
            ("/api/v1/day/2026-11-20", ["day", "2026-11-20", "--person", "dad"]),
            ("/api/v1/week?end=2026-11-20&person=%EB%AF%BC%EC%A7%80", ["week", "--end", "2026-11-20", "--person", "민지"]),
            ("/api/v1/week/2026-W47?person=%EB%AF%BC%EC%A7%80", ["week", "--iso", "2026-W47", "--person", "민지"]),
        ])
    func perPerson(_ path: String, _ command: [String]) async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, configuration) = try household(rig)
        let cli = try await rig.dustctl(command + ["--config", configuration])
        #expect(cli.status == 0, "\(cli.standardError)")
        try await rig.application(data).test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response) == cli.standardOutput)
            }
        }
    }

    @Test("The child's and the adult's intake differ for the same air; a person not configured is 404 naming those who are")
    func differentAndUnknown() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let (data, _) = try household(rig)
        try await rig.application(data).test(.router) { client in
            var intake: [Double] = []
            for person in ["dad", "%EB%AF%BC%EC%A7%80"] {
                try await client.execute(uri: "/api/v1/day/2026-11-20?person=\(person)", method: .get) { response in
                    let document = try JSONSerialization.jsonObject(with: Data(text(response).utf8)) as? [String: Any]
                    intake.append(try #require((document?["intake"] as? [String: Any])?["pm10"] as? Double))
                }
            }
            #expect(intake.count == 2 && intake[1] > intake[0])
            for path in [
                "/api/v1/today?person=mom", "/api/v1/day/2026-11-20?person=mom", "/api/v1/week?person=mom",
                "/api/v1/week/2026-W47?person=mom",
            ] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .notFound, "\(path)")
                    #expect(text(response) == "No such person: no person \"mom\" is configured; configured people: dad, 민지.\n")
                }
            }
        }
        // Without people:, `me` is the one person the API knows.
        try await rig.application(try rig.source()).test(.router) { client in
            let plain = try await client.execute(uri: "/api/v1/day/2026-11-20", method: .get) { text($0) }
            try await client.execute(uri: "/api/v1/day/2026-11-20?person=me", method: .get) { response in
                #expect(text(response) == plain)
            }
            try await client.execute(uri: "/api/v1/day/2026-11-20?person=dad", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
