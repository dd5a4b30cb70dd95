import Foundation
import Testing
import Yams

@testable import dustctl

@Suite("dustctl homeassistant: one secret and one unique_id per person, dustd's address alone", .timeLimit(.minutes(10)))
struct HomeAssistantSlugTests {
    @Test(
        "Names that would share a slug each get their own",
        arguments: [
            (["jiho", "seoa"], ["jiho", "seoa"]),
            (["jiho", "민지", "person2"], ["jiho", "person2_2", "person2"]),
            (["jiho", "kid-1", "kid_1"], ["jiho", "person2", "person3"]),
            (["jiho", "person3", "민지"], ["jiho", "person3", "person3_2"]),
            (["jiho", "민지", "서아"], ["jiho", "person2", "person3"]),
            (["a", "b-c", "민지", "person3", "person3_2"], ["a", "b_c", "person3_3", "person3", "person3_2"]),
        ])
    func slugs(people: [String], expected: [String]) throws {
        #expect(HomeAssistantPackage.slugs(for: people) == expected)
        let package = try #require(try Yams.load(yaml: HomeAssistantPackage.text(url: "http://h:8478", people: people)) as? [String: Any])
        let rests = try #require(package["rest"] as? [[String: Any]])
        let secrets = rests.compactMap { ($0["headers"] as? [String: Any])?["Authorization"] as? String }
        #expect(secrets.count == people.count)
        let sensors = rests.flatMap { ($0["sensor"] as? [[String: Any]]) ?? [] }
        #expect(Set(sensors.compactMap { $0["unique_id"] as? String }).count == sensors.count, "unique ids: \(sensors)")
        #expect(
            HomeAssistantPackage.text(url: "http://h:8478", people: people).components(separatedBy: "!secret ").count == people.count + 1)
        let named = HomeAssistantPackage.text(url: "http://h:8478", people: people).components(separatedBy: "!secret ").dropFirst()
            .map { $0.prefix { !$0.isWhitespace } }
        #expect(Set(named).count == people.count, "\(named)")
    }

    @Test("--url with a query, a fragment or a user is refused (64): the package appends to it")
    func addressAlone() async throws {
        for url in ["http://h/?person=jiho", "http://h:1/x#y", "http://user:pw@h:8478", "http://h:8478/?"] {
            let result = try await dustctl("homeassistant", "--url", url)
            #expect(result.status == 64, "\(url): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
        for url in ["http://192.168.0.10:8478", "https://home.example/dust/", "http://[fd00::1]:8478"] {
            let result = try await dustctl("homeassistant", "--url", url)
            #expect(result.status == 0, "\(url): \(result.standardError)")
        }
    }
}
