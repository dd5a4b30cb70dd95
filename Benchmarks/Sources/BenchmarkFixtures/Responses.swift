import Foundation

/// The two large responses of issue 5: a 673-station 전국 hour and a 2,200-hour 3MONTH station page.
public let responses: [(name: String, body: Data, items: Int)] = {
    let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/synthesized")
    return [
        ("nation-673", try! Data(contentsOf: directory.appendingPathComponent("sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml")), 673),
        ("3month-2200", try! Data(contentsOf: directory.appendingPathComponent("station-jongno-ver1.5-3MONTH-2026-11-20.xml")), 2200),
    ]
}()
