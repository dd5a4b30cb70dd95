import DustKit
import DustServices
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import Synchronization
import TestSupport
import Testing

@testable import DustWeb

/// A trusted proxy that does not say the scheme makes every session cookie set through it plain (not `Secure`):
/// dustd says so once (docs/REFERENCE.md §13).
@Suite("dustd behind a trusted proxy that does not say the scheme", .timeLimit(.minutes(10)))
struct ProxySchemeNoticeTests {
    /// Every line logged, as text.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    struct Recording: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            lines.lines.withLock { $0.append("\(event.level): \(event.message)") }
        }
    }

    func server(_ rig: WebRig, trusted: [String], lines: Lines) throws -> some ApplicationProtocol {
        let store = rig.store
        let settings = WebData.ReportSettings(
            stations: StationPreference(primary: "종로구"), calendar: DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!),
            intakeModel: try VentilationIntakeModel(), databasePath: store.path)
        let data = WebData(store: { store }, settings: { settings }, clock: FixedClock(DemoReplay.now), processIsDustd: { _ in false })
        let access = WebAccess(administrator: BearerToken(WebAccessTests.adminToken), trustedProxies: trusted)
        let logger = Logger(label: "test") { _ in Recording(lines: lines) }
        return Application(
            router: WebServer(data: data, registry: PrometheusCollectorRegistry(), access: access, logger: logger).router(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    @Test("Requests from a trusted proxy without X-Forwarded-Proto: one warning naming the fix; with it, or untrusted, none")
    func warnsOnce() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let direct: HTTPFields = [.authorization: "Bearer \(WebAccessTests.adminToken)"]
        let bearer = direct + [HTTPField(name: HTTPField.Name("X-Forwarded-For")!, value: "192.0.2.1")]
        let saying: [HTTPFields] = [("X-Forwarded-Proto", "https"), ("Forwarded", "for=192.0.2.1;proto=https")].map { name, value in
            var headers = bearer
            headers[HTTPField.Name(name)!] = value
            return headers
        }

        // Trusted, and saying the scheme either way: nothing said.
        let quiet = Lines()
        try await server(rig, trusted: ["127.0.0.1"], lines: quiet).test(.live) { client in
            for headers in saying {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: headers) { #expect($0.status == .ok) }
            }
        }
        #expect(!quiet.all.contains { $0.contains("X-Forwarded-Proto") }, "\(quiet.all)")

        // Trusted and silent about the scheme: said once, however many requests. A request of the proxy's machine
        // itself (a monitor's, forwarded for no one) is not one the proxy forwarded: nothing said of it.
        let told = Lines()
        try await server(rig, trusted: ["127.0.0.1"], lines: told).test(.live) { client in
            try await client.execute(uri: "/api/v1/today", method: .get, headers: direct) { #expect($0.status == .ok) }
            #expect(told.all.isEmpty, "\(told.all)")
            for _ in 1...3 {
                try await client.execute(uri: "/api/v1/today", method: .get, headers: bearer) { #expect($0.status == .ok) }
            }
        }
        let warnings = told.all.filter { $0.contains("without X-Forwarded-Proto") }
        #expect(warnings.count == 1, "\(told.all)")
        #expect(warnings.first?.hasPrefix("warning: The trusted proxy 127.0.0.1 forwards requests") == true)
        #expect(warnings.first?.contains("proxy_set_header X-Forwarded-Proto $scheme;") == true)

        // Not a proxy of dustd's (none trusted): a browser on the LAN says no scheme and is told nothing.
        let untrusted = Lines()
        try await server(rig, trusted: ["10.0.0.10"], lines: untrusted).test(.live) { client in
            try await client.execute(uri: "/api/v1/today", method: .get, headers: bearer) { #expect($0.status == .ok) }
        }
        #expect(!untrusted.all.contains { $0.contains("X-Forwarded-Proto") }, "\(untrusted.all)")
    }
}
