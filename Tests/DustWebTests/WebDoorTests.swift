import DustKit
import DustWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import TestSupport
import Testing

/// A key shaped like data.go.kr's (96 characters of base64).
private let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
private let letters = key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
private func piece(_ start: Int) -> String { String(letters.dropFirst(start).prefix(11)) }

@Suite("The web's door checks the whole text of each page and document (issue 36)", .timeLimit(.minutes(10)))
struct WebDoorTests {
    @Test(
        "A stored 권역 holding the key (as a database an older FineDust filled can): /api/v1/advisories is withheld (503); without the key, 200"
    )
    func documentWithheld() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // Stored past the parser and its vocabularies, split by markup the page would not show.
        let issued = instant(kst: "2026-11-20T09:00:00")
        _ = try await rig.store.saveAdvisories(
            [
                Advisory(
                    pollutant: .pm10, key: "901", district: "서울", area: piece(0) + "<b></b>" + piece(11), level: .watch, issuedAt: issued)
            ], fetchedAt: issued)
        let redactor = KeyEchoGuard(keyForms: [key])
        let guarded = Application(
            router: WebServer(data: try rig.source(), registry: PrometheusCollectorRegistry(), token: nil, echoes: redactor).router())
        try await guarded.test(.router) { client in
            let answer = try await client.execute(uri: "/api/v1/advisories", method: .get)
            #expect(answer.status == .serviceUnavailable)
            #expect(!redactor.echoes(text(answer)))
            #expect(text(answer).contains("withheld"))
            // What holds no piece of the key is served as ever.
            let week = try await client.execute(uri: "/api/v1/week/2026-W47", method: .get)
            #expect(week.status == .ok)
        }
        try await rig.application(try rig.source()).test(.router) { client in
            let answer = try await client.execute(uri: "/api/v1/advisories", method: .get)
            #expect(answer.status == .ok)
        }
    }
}
