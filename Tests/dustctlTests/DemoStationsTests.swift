import AirKorea
import DustServices
import Foundation
import TestSupport
import Testing

@Suite("Stations without the station-information service", .timeLimit(.minutes(10)))
struct DemoStationsTests {
    @Test("The demo database has the bundled station list, so nearest works offline")
    func nearestOnTheDemo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("demo.sqlite")
        let demo = try await dustctl([
            "demo", "--db", db, "--fixtures", TestFixtures.repositoryRoot.appendingPathComponent("Fixtures").path,
        ])
        #expect(demo.status == 0, "\(demo.standardError)")
        let nearest = try await dustctl("stations", "nearest", "--lat", "37.48", "--lon", "126.80", "--db", db, "--json")
        #expect(nearest.status == 0, "\(nearest.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(nearest.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.first?["name"] as? String == "소사본동")
    }

    @Test("A station whose dmX/dmY is missing, out of range or 0/0 is stored without a location, counted, and never ranked by nearest")
    func implausibleCoordinates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("stations.sqlite")
        let items = [
            ("종로구", "37.572025", "127.005028"), ("위도999", "999", "127.0"), ("남극너머", "-91", "-181"),
            ("널섬", "0", "0"), ("경도만", "", "126.9"), ("남반구", "-37.81", "144.96"), ("좌표없음", "", ""),
        ]
        let xml =
            "<response><header><resultCode>00</resultCode><resultMsg>NORMAL_CODE</resultMsg></header><body><items>"
            + items.map { "<item><stationName>\($0.0)</stationName><addr>서울</addr><dmX>\($0.1)</dmX><dmY>\($0.2)</dmY></item>" }.joined()
            + "</items><numOfRows>100</numOfRows><pageNo>1</pageNo><totalCount>\(items.count)</totalCount></body></response>"
        let file = directory.path("list.xml")
        try xml.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try await dustctl("stations", "import", file, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(
            imported.standardOutput == "7 stations stored; 5 without a location (none given, or coordinates outside "
                + "latitude ±90° and longitude ±180°, or the 0°/0° placeholder).\n")
        // From near 999°N (clamped to the pole by the haversine) and from 0/0, the refused stations would rank first.
        for (lat, lon) in [("90", "127"), ("0", "0"), ("-90", "-180")] {
            let nearest = try await dustctl("stations", "nearest", "--lat=\(lat)", "--lon=\(lon)", "--count", "10", "--db", db, "--json")
            #expect(nearest.status == 0, "\(nearest.standardError)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(nearest.standardOutput.utf8)) as? [[String: Any]])
            #expect(Set(rows.compactMap { $0["name"] as? String }) == ["종로구", "남반구"])
        }
        let listed = try await dustctl("stations", "list", "--db", db, "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == 7)
        #expect(rows.filter { $0["latitude"] is NSNull && $0["longitude"] is NSNull }.count == 5)
    }

    @Test("stations import refuses an answer of readings or a forecast (exit 65, nothing stored); a station named twice is one station")
    func wrongAnswerRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("stations.sqlite")
        for answer in [
            "synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml", "synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml",
            "synthesized/forecast-pm10-2026-11-22.xml", "real/rltm-station-oldapi-roadside-2019-02-12-10rows-boostcamp.xml",
        ] {
            let refused = try await dustctl("stations", "import", fixture(answer), "--db", db)
            #expect(refused.status == 65, "\(answer): \(refused.standardOutput) \(refused.standardError)")
            #expect(refused.standardError.contains("holds hourly readings or a forecast"), "\(refused.standardError)")
            #expect(refused.standardOutput.isEmpty)
        }
        // With a real list beside it, the whole import stops: nothing of either file is stored.
        let mixed = try await dustctl(
            "stations", "import", fixture("synthesized/msrstn-list-seoul-walk-8.xml"),
            fixture("synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml"), "--db", db)
        #expect(mixed.status == 65)
        // Not even the database was made (66: no database at that path).
        #expect(try await dustctl("stations", "list", "--db", db, "--json").status == 66)
        // The same list twice (two saved pages that overlap) stores and counts its 8 stations once.
        let list = fixture("synthesized/msrstn-list-seoul-walk-8.xml")
        let twice = try await dustctl("stations", "import", list, list, "--db", db)
        #expect(twice.status == 0, "\(twice.standardError)")
        #expect(twice.standardOutput == "8 stations stored.\n")
    }

    @Test("A station in two files is one: each field the later file's where it gives one, a position whole from the file that has it")
    func namedTwiceMerged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let db = directory.path("stations.sqlite")
        func list(_ name: String, _ items: String) throws -> String {
            let path = directory.path(name)
            try
                ("<response><header><resultCode>00</resultCode></header><body><items>\(items)</items>"
                + "<totalCount>1</totalCount></body></response>").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let placed = try list(
            "a.xml",
            "<item><stationName>새동네</stationName><addr>서울 어딘가</addr><dmX>37.5</dmX><dmY>127.0</dmY><mangName>도시대기</mangName></item>")
        let later = try list("b.xml", "<item><stationName>새동네</stationName><addr>서울 새 주소</addr><dmX>37.6</dmX></item>")
        let imported = try await dustctl("stations", "import", placed, later, "--db", db)
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == "1 station stored.\n")
        let listed = try await dustctl("stations", "list", "--db", db, "--json")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        // The later file's address; the first file's position (the later gave half of one) and network.
        #expect(rows.first?["address"] as? String == "서울 새 주소")
        #expect(rows.first?["latitude"] as? Double == 37.5 && rows.first?["longitude"] as? Double == 127.0)
        #expect(rows.first?["network"] as? String == "도시대기", "\(rows)")
    }

    @Test(
        "--lat and --lon take plain decimals: 0x25, inf and nan are refused with a usage error (64)",
        arguments: ["0x25", "inf", "nan", "1e400"])
    func decimalDegrees(_ written: String) async throws {
        let refused = try await dustctl("stations", "nearest", "--lat", written, "--lon", "126.9779")
        #expect(refused.status == 64, "\(refused.standardError)")
        #expect(refused.standardError.contains("is not a number of degrees"), "\(refused.standardError)")
    }

    @Test("'Not approved' on the station list names the service to apply for")
    func notApproved() {
        let denied = FetchError.response(
            .service(.accessDenied, reportedCode: "20", serverMessage: "SERVICE ACCESS DENIED ERROR."), httpStatus: 200)
        let message = StationListService.explain(denied)
        #expect(message.contains("한국환경공단_에어코리아_측정소정보"))
        #expect(message.contains("MsrstnInfoInqireSvc"))
        #expect(StationListService.explain(.httpStatus(503)) == FetchError.httpStatus(503).description)
    }
}
