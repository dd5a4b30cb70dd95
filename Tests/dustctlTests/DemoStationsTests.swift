import AirKorea
import DustServices
import Foundation
import Testing
import TestSupport

@Suite("Stations without the station-information service")
struct DemoStationsTests {
    @Test("The demo database has the bundled station list, so nearest works offline")
    func nearestOnTheDemo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let demo = try dustctl(["demo", "--db", db, "--fixtures", TestFixtures.repositoryRoot.appendingPathComponent("Fixtures").path])
        #expect(demo.status == 0, "\(demo.standardError)")
        let nearest = try dustctl("stations", "nearest", "--lat", "37.48", "--lon", "126.80", "--db", db, "--json")
        #expect(nearest.status == 0, "\(nearest.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(nearest.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.first?["name"] as? String == "소사본동")
    }

    @Test("'Not approved' on the station list names the service to apply for")
    func notApproved() {
        let denied = FetchError.response(.service(.accessDenied, reportedCode: "20", serverMessage: "SERVICE ACCESS DENIED ERROR."), httpStatus: 200)
        let message = StationListService.explain(denied)
        #expect(message.contains("한국환경공단_에어코리아_측정소정보"))
        #expect(message.contains("MsrstnInfoInqireSvc"))
        #expect(StationListService.explain(.httpStatus(503)) == FetchError.httpStatus(503).description)
    }
}
