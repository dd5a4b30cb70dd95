import Foundation
import TestSupport
import Testing

@Suite("libxml2's own error lines never reach the terminal", .timeLimit(.minutes(10)))
struct LibXMLStderrTests {
    @Test(
        "A file declaring EUC-KR that holds UTF-8: dustctl import and activity import say so in their own sentence, and stderr holds only dustctl's lines"
    )
    func encodingLie() async throws {
        let directory = try TemporaryDirectory("finedust-encoding")
        defer { directory.remove() }
        let health = directory.path("export.xml")
        try Data(
            """
            <?xml version="1.0" encoding="EUC-KR"?>
            <HealthData locale="ko_KR"><Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="애플 워치" unit="km" value="1.2" startDate="2026-11-20 08:00:00 +0900" endDate="2026-11-20 08:30:00 +0900"/></HealthData>
            """.utf8
        ).write(to: URL(fileURLWithPath: health))
        let response = directory.path("response.xml")
        try Data(
            """
            <?xml version="1.0" encoding="EUC-KR"?>
            <response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName><dataTime>2026-11-20 10:00</dataTime><pm10Value>30</pm10Value></item></items><totalCount>1</totalCount></body></response>
            """.utf8
        ).write(to: URL(fileURLWithPath: response))
        let database = directory.path("dust.sqlite")
        for arguments in [["activity", "import", health, "--quiet"], ["import", response]] {
            let result = try await dustctl(arguments + ["--db", database])
            #expect(result.status == 65, "\(arguments): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("dustctl: ") }, "\(arguments): \(result.standardError)")
        }
    }
}
