import AirKorea
import AirKoreaHTTP
import DustConfig
import DustDaemon
import DustHTTP
import DustKit
import DustServices
import FakeAirKorea
import Foundation
import Testing

/// dustd's three HTTP clients (AirKorea, a home's monitors, the alert sinks) against answers no HTTP
/// server sends. AsyncHTTPClient, which they used before, stopped the process on a status below 100
/// with a body or an end: anyone able to answer at a monitor's address could stop dustd, and a sink so
/// answering stopped it at every start (docs/ARCHITECTURE.md, "The HTTP client").
@Suite("Answers no HTTP server sends: every client of dustd refuses them, none stops dustd", .timeLimit(.minutes(5)))
struct StrangeAnswerTests {
    /// What an answer becomes, not how fast it comes: a full run's thousand tests at once on two cores kept a
    /// loopback exchange past ten seconds.
    static let patience: Duration = .seconds(300)

    static let notHTTP = [
        "HTTP/1.1 000 X\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 000 X\r\n\r\n",
        "HTTP/1.1 001 X\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 050 X\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 099 X\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 600 X\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 999 X\r\n\r\n",
        "HTTP/1.1 2000 X\r\nContent-Length: 3\r\n\r\nabc",
        "HTTP/1.1 20 X\r\nContent-Length: 3\r\n\r\nabc",
        "SSH-2.0-OpenSSH_9.2\r\n\r\n",
    ]

    @Test("A status outside 100–599, or no HTTP at all, is 'not in HTTP' to AirKorea's transport, a monitor and a sink", arguments: notHTTP)
    func refused(_ answer: String) async throws {
        let server = RawAnswerServer(answer)
        let base = try await server.start()
        defer { Task { await server.stop() } }

        let transport = AsyncHTTPTransport()
        await #expect {
            _ = try await transport.get(base + "/B552584/x?serviceKey=k", timeout: Self.patience, maxBodyBytes: 1024)
        } throws: { error in
            guard case .notHTTP(let reason) = error as? TransportError else { return false }
            return !reason.contains("serviceKey")
        }

        let monitor = AsyncIndoorSensorHTTP()
        await #expect(throws: SensorProblem.notHTTP) {
            _ = try await monitor.get(base + "/measures/current", bearer: nil, timeout: Self.patience, maxBodyBytes: 1024)
        }

        var settings = AlertSettings()
        settings.sinks = [.webhook(url: base + "/hook")]
        let sinks = try AlertSinks(settings: settings, environment: [:], httpDeadline: Self.patience)
        let event = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Date())
        await #expect {
            try await sinks.sinks[0].deliver(event)
        } throws: { error in
            "\(error)".hasSuffix("answered, but not in HTTP (another kind of server at that address and port?)")
        }
    }

    @Test("An informational answer before the answer is passed over; one alone, then a close, is no answer")
    func informational() async throws {
        let client = OneShotHTTPClient(connectTimeout: .seconds(5), userAgent: "test")
        let early = RawAnswerServer("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let earlyBase = try await early.start()
        let answer = try await client.exchange(.GET, earlyBase + "/", deadline: Self.patience, limit: { _ in .refuseOver(10) })
        #expect(answer.status == 200)
        #expect(answer.body == Array("ok".utf8))
        await early.stop()

        let alone = RawAnswerServer("HTTP/1.1 100 Continue\r\n\r\n")
        let aloneBase = try await alone.start()
        await #expect(throws: HTTPExchangeFailure.closedBeforeAnswer) {
            _ = try await client.exchange(.GET, aloneBase + "/", deadline: Self.patience, limit: { _ in .refuseOver(10) })
        }
        await alone.stop()
    }

    @Test("A body is read as the status asks: refused over its bound (declared or read), or its first bytes kept")
    func bodyLimits() async throws {
        let client = OneShotHTTPClient(connectTimeout: .seconds(5), userAgent: "test")
        let declared = RawAnswerServer("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world")
        let declaredBase = try await declared.start()
        await #expect(throws: HTTPExchangeFailure.bodyTooLarge(limit: 10)) {
            _ = try await client.exchange(.GET, declaredBase + "/", deadline: Self.patience, limit: { _ in .refuseOver(10) })
        }
        let kept = try await client.exchange(.GET, declaredBase + "/", deadline: Self.patience, limit: { _ in .keepFirst(5) })
        #expect(kept.body == Array("hello".utf8))
        await declared.stop()

        let undeclared = RawAnswerServer("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello world")
        let undeclaredBase = try await undeclared.start()
        await #expect(throws: HTTPExchangeFailure.bodyTooLarge(limit: 10)) {
            _ = try await client.exchange(.GET, undeclaredBase + "/", deadline: Self.patience, limit: { _ in .refuseOver(10) })
        }
        let whole = try await client.exchange(.GET, undeclaredBase + "/", deadline: Self.patience, limit: { _ in .refuseOver(11) })
        #expect(whole.status == 200 && whole.body == Array("hello world".utf8))
        await undeclared.stop()
    }

    @Test("An https URL whose server speaks no TLS fails the handshake, said as TLS, never as an answer")
    func noTLSThere() async throws {
        let plain = RawAnswerServer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", atOnce: true)
        let base = try await plain.start()
        let client = OneShotHTTPClient(connectTimeout: .seconds(5), userAgent: "test")
        await #expect(throws: HTTPExchangeFailure.tls) {
            _ = try await client.exchange(
                .GET, base.replacingOccurrences(of: "http://", with: "https://") + "/", deadline: Self.patience,
                limit: { _ in .refuseOver(10) })
        }
        await plain.stop()
    }
}
