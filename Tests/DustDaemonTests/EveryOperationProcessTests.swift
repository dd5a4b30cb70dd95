import DustKit
import DustServices
import DustStore
import FakeAirKorea
import Foundation
import TestSupport
import Testing

@Suite(
    "dustd against a loopback AirKorea that serves the measurements, the gases and the advisories", .serialized, .timeLimit(.minutes(10)))
struct EveryOperationProcessTests {
    @Test(
        "A real dustd stores each hour's gases and index with PM, asks the three advisory operations after its poll and stores them; dustctl shows them; nothing fails"
    )
    func everyOperation() async throws {
        let dustd = try await RunningDustd(reply: { FakeReply.advisories(for: $0) })
        defer { dustd.directory.remove() }
        let advisoryOperations: Set = ["getUlfptcaAlarmInfo", "getOzAdvsryOccrrncInfo"]
        #expect(
            try await dustd.wait {
                let requests = dustd.server.requests
                return requests.filter { advisoryOperations.contains($0.operation) }.count >= 3
                    && requests.contains { $0.operation == "getMsrstnAcctoRltmMesureDnsty" }
            })
        let requests = dustd.server.requests
        let advisoryRequests = requests.filter { advisoryOperations.contains($0.operation) }
        #expect(
            Set(advisoryRequests.map { "\($0.operation) \($0.query["itemCode"] ?? "-")" })
                == ["getUlfptcaAlarmInfo PM10", "getUlfptcaAlarmInfo PM25", "getOzAdvsryOccrrncInfo -"])
        #expect(advisoryRequests.allSatisfy { $0.query["year"] == String(Calendar(identifier: .gregorian).component(.year, from: Date())) })

        // The advisories, as `dustctl advisories --json` lists them (the fixtures' year is 2026).
        var listing: [String: Any] = [:]
        #expect(
            try await dustd.wait {
                let result = try await Executables.run(
                    "dustctl", ["advisories", "--json", "--year", "2026", "--db", dustd.database, "--station", "종로구"],
                    environment: ["PATH": "/usr/bin:/bin", "DUSTD_CONFIG": dustd.configPath])
                listing = (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))) as? [String: Any] ?? [:]
                return result.status == 0 && !((listing["advisories"] as? [Any]) ?? []).isEmpty
            }, "\(listing)")
        let advisories = try #require(listing["advisories"] as? [[String: Any]])
        #expect(
            advisories.contains {
                $0["pollutant"] as? String == "PM10" && $0["levelWord"] as? String == "경보" && $0["key"] as? String == "87"
            })
        #expect(Set(advisories.compactMap { $0["pollutant"] as? String }) == ["PM10", "PM25", "O3"])

        // The gases arrived with the hours: the fixture's 24:00 item for 종로구, as stored.
        let store = try SQLiteStore(path: dustd.database)
        let now = Slot(containing: Date())
        let stored = try await store.readings(stations: ["종로구"], from: now.advanced(by: -72), to: now.advanced(by: 1))
        let newest = try #require(stored.max { $0.slot < $1.slot })
        #expect(newest.gases.ppm[.o3] == 0.0184 && newest.gases.ppm[.no2] == 0.0262)
        #expect(newest.gases.ppm[.co] == 0.52 && newest.gases.ppm[.so2] == 0.0031)
        #expect(newest.gases.cai == 62 && newest.gases.caiGrade == .moderate)

        // The measurement polls never failed, and no advisory service was turned off.
        let (_, status) = try await dustd.status()
        #expect(status["lastError"] is NSNull || status["lastError"] == nil, "\(status)")
        await #expect(!(try dustd.statusText()).contains("Advisories"))
        #expect(!dustd.logs.contains("turned off"), "\(dustd.logs)")
        #expect(try await dustd.stop() == 0)
    }
}
