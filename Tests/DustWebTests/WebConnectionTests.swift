import DustKit
import DustReports
import DustServices
import DustStore
import DustWeb
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP client on loopback, so a test can be the slow, idle or malformed client no HTTP
/// library would be. Every read gives up after `timeout`, and blocks a thread of its own: a
/// blocked thread of Swift's small cooperative pool would starve the server's handlers.
final class RawConnection: @unchecked Sendable {
    let descriptor: Int32

    /// - Parameter receiveBuffer: the socket's receive buffer in bytes, set before it connects (a
    ///   client that reads slowly fills a small one at once); nil keeps the system's.
    init(port: Int, timeout: TimeInterval = 10, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// False once the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything until the server closes the connection (or the timeout).
    func readToEnd() async -> (text: String, closed: Bool) {
        (try? await aside { self.blockingReadToEnd() }) ?? ("", false)
    }

    /// One whole answer on a connection the server keeps open.
    func readAnswer() async -> String {
        (try? await aside { self.blockingReadAnswer() }) ?? ""
    }

    private func blockingReadToEnd() -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            // 0: closed; ECONNRESET: closed with unread data; EAGAIN: the timeout.
            return (String(decoding: received, as: UTF8.self), count == 0 || errno == ECONNRESET)
        }
    }

    /// Reads until the body announced by Content-Length has come.
    private func blockingReadAnswer() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: received, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n") {
                let length =
                    text[..<split.lowerBound].split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text[..<split.upperBound].utf8.count >= length { return text }
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return text }
            received += buffer[0..<count]
        }
    }
}

/// The header `name` of a raw HTTP answer, if present.
func header(_ name: String, in answer: String) -> String? {
    let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
    return head.split(separator: "\r\n").dropFirst().first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
        .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
}

/// How many of `connections` the server has closed.
func closedCount(_ connections: [RawConnection]) async -> Int {
    var closed = 0
    for connection in connections {
        if await connection.readToEnd().closed { closed += 1 }
    }
    return closed
}

@Suite(
    "The web under idle, slow and hostile clients: capped connections, timeouts, headers on every answer", .serialized,
    .timeLimit(.minutes(10)))
struct WebConnectionTests {
    func application(_ rig: WebRig, limits: WebConnectionLimits, token: BearerToken? = nil) throws -> some ApplicationProtocol {
        WebServer(data: try rig.source(), registry: PrometheusCollectorRegistry(), token: token, limits: limits)
            .application(host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
    }

    @Test("40 idle or half-sent connections against a cap of 4: a real request is answered at once, and only 4 stay open")
    func slowloris() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig, limits: WebConnectionLimits(maxConnections: 4, idleTimeout: .seconds(60), maxWaiting: 0)).test(.live) {
            client in
            let port = try #require(client.port)
            var attackers: [RawConnection] = []
            for index in 0..<40 {
                let connection = try RawConnection(port: port, timeout: 2)
                // Half of them start a request and never finish its headers.
                if index.isMultiple(of: 2) { connection.send("GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ") }
                attackers.append(connection)
            }
            // The server takes connections in on several event loops, so a client that came last
            // may be registered before some of the flood and be the idlest when they are: wait
            // until every attacker was taken in (closed, or still open after its 2 s read), so the
            // real client arrives after the flood, as it would.
            #expect(await closedCount(attackers) >= 36)
            let started = Date()
            let real = try RawConnection(port: port, timeout: 20)
            real.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let (answer, _) = await real.readToEnd()
            // Far below the 60 s idle timeout: room was made, not waited for.
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
            #expect(header("X-Content-Type-Options", in: answer) == "nosniff")
            // Of the 41 connections the server saw, at most 4 are open: each attacker reads EOF
            // (closed) or times out after 2 s (still open).
            let stillOpen = attackers.count - (await closedCount(attackers))
            #expect(stillOpen <= 4, "\(stillOpen) idle connections stayed open")
        }
    }

    @Test(
        "Without tokens, a request addressed by a name that is not this machine's (DNS rebinding) gets 421 and no data; by IP, localhost or the machine's name it is answered; with a token the name is not asked"
    )
    func hostNamesWithoutTokens() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let limits = WebConnectionLimits(maxConnections: 8, idleTimeout: .seconds(60), maxWaiting: 8)
        @Sendable func ask(_ port: Int, _ path: String, host: String, extra: String = "") async throws -> String {
            let connection = try RawConnection(port: port, timeout: 30)
            connection.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(extra)Connection: close\r\n\r\n")
            return await connection.readToEnd().text
        }
        let machine = try #require(WebHostNames.systemHostName())
        try await application(rig, limits: limits).test(.live) { client in
            let port = try #require(client.port)
            for host in [
                "attacker.example:\(port)", "attacker.example", "127.0.0.1.attacker.example", "localhost.attacker.example",
                "\(machine).attacker.example", "x", "not-\(machine).local:\(port)", "not-\(machine).lan",
            ] {
                let answer = try await ask(port, "/api/v1/today?person=me", host: host)
                #expect(answer.hasPrefix("HTTP/1.1 421"), "\(host): \(answer.prefix(120))")
                #expect(answer.contains("http.hostNames") && !answer.contains("attacker") && !answer.contains("pm25"), "\(host)")
                #expect(try await ask(port, "/", host: host).hasPrefix("HTTP/1.1 421"), "\(host)")
                // /healthz holds no one's data: a monitor may use any name.
                #expect(!(try await ask(port, "/healthz", host: host)).hasPrefix("HTTP/1.1 421"), "\(host)")
            }
            for host in [
                "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST.", "[::1]:\(port)", "192.168.0.10", "dust.localhost", machine,
                "\(machine).local:\(port)", "\(machine).lan",
            ] {
                let answer = try await ask(port, "/api/v1/today", host: host)
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(host): \(answer.prefix(120))")
            }
            // Addressed to two names at once (a second Host, which no browser sends): not this machine's.
            for extra in ["Host: attacker.example\r\n", "Host: localhost\r\n"] {
                let answer = try await ask(port, "/api/v1/today", host: "localhost", extra: extra)
                #expect(answer.hasPrefix("HTTP/1.1 421"), "\(extra): \(answer.prefix(120))")
            }
        }
        // Named in http.hostNames (a reverse proxy's name): answered.
        let named = WebServer(
            data: try rig.source(), registry: PrometheusCollectorRegistry(),
            access: WebAccess(administrator: nil, hostNames: WebHostNames(configured: ["Dust.Example.org."])), limits: limits)
        try await named.application(host: "127.0.0.1", port: 0, logger: Logger(label: "test")).test(.live) { client in
            let port = try #require(client.port)
            #expect(try await ask(port, "/api/v1/today", host: "dust.example.org").hasPrefix("HTTP/1.1 200"))
            #expect(try await ask(port, "/api/v1/today", host: "example.org").hasPrefix("HTTP/1.1 421"))
        }
        // With a token the name is not asked: a rebound page holds no token (401), the token's holder is answered.
        let token = try #require(BearerToken("0123456789abcdef0123"))
        try await application(rig, limits: limits, token: token).test(.live) { client in
            let port = try #require(client.port)
            #expect(try await ask(port, "/api/v1/today", host: "attacker.example").hasPrefix("HTTP/1.1 401"))
            #expect(
                try await ask(port, "/api/v1/today", host: "attacker.example", extra: "Authorization: Bearer 0123456789abcdef0123\r\n")
                    .hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test(
        "Sign-in forms whose bodies trickle a byte a second on every connection of the cap: a real request is still answered, and each is closed"
    )
    func tricklingBodies() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let token = try #require(BearerToken("0123456789abcdef0123"))
        let limits = WebConnectionLimits(maxConnections: 4, idleTimeout: .seconds(60), maxWaiting: 8)
        try await application(rig, limits: limits, token: token).test(.live) { client in
            let port = try #require(client.port)
            let attackers = try (0..<4).map { _ in try RawConnection(port: port, timeout: 60) }
            for attacker in attackers {
                attacker.send(
                    "POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Sec-Fetch-Site: same-origin\r\nContent-Length: 4000\r\n\r\nf")
            }
            // A byte a second for up to 40 s each, until the server closes the connection.
            let trickling = Task {
                var open = attackers.count
                for _ in 0..<40 where open > 0 {
                    try? await Task.sleep(for: .seconds(1))
                    open = attackers.filter { $0.send("o") }.count
                }
                return open
            }
            let real = try RawConnection(port: port, timeout: 30)
            real.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let (answer, _) = await real.readToEnd()
            // Before, every one of the four was busy for as long as its body trickled: no answer within 30 s.
            #expect(!answer.isEmpty && answer.hasPrefix("HTTP/1.1 "), "\(answer.prefix(80))")
            #expect(await trickling.value == 0, "a trickling body kept its connection for 40 s")
        }
    }

    @Test(
        "A stranger pipelining 200 pages in one write and reading none: closed after a few unanswered, not 200 pages held in memory"
    )
    func pipelinedAndUnread() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let limits = WebConnectionLimits(maxConnections: 8, idleTimeout: .seconds(60), answerTimeout: .seconds(3))
        try await application(rig, limits: limits).test(.live) { client in
            let port = try #require(client.port)
            let flood = try RawConnection(port: port, timeout: 30, receiveBuffer: 4096)
            // Sent from a thread of its own: the server stops reading once it closes the connection.
            _ = try? await aside { flood.send(String(repeating: "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n", count: 200)) }
            let (text, closed) = await flood.readToEnd()
            let answered = text.components(separatedBy: "HTTP/1.1 200").count - 1
            // Before, every one of the 200 pages was made and kept until the client read it (64 such
            // connections took dustd past 400 MiB); now the connection ends once 8 wait unread.
            #expect(closed && answered < 200, "\(answered) pages answered, closed: \(closed)")

            // The web answers others throughout.
            let real = try RawConnection(port: port, timeout: 20)
            real.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            let realAnswer = await real.readToEnd().text
            #expect(realAnswer.hasPrefix("HTTP/1.1 "), "\(realAnswer.prefix(300))")
        }
    }

    @Test("200 clients at once against a cap of 8: every one is answered, late rather than refused")
    func burst() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await application(rig, limits: WebConnectionLimits(maxConnections: 8, idleTimeout: .seconds(60), maxWaiting: 400)).test(.live) {
            client in
            let port = try #require(client.port)
            var clients: [RawConnection] = []
            for _ in 0..<200 {
                let connection = try RawConnection(port: port, timeout: 30)
                connection.send("GET /api/v1/status HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                clients.append(connection)
            }
            var answered = 0
            var others: [String] = []
            for connection in clients {
                let (text, closed) = await connection.readToEnd()
                if text.hasPrefix("HTTP/1.1 200") { answered += 1 } else { others.append("closed \(closed): \(text.prefix(80))") }
            }
            // 4d9b2c1's gate closed every newcomer while the cap was busy: most of these. Later, one to
            // three now and then stayed unread until the idle timeout: the gate let a waiting connection
            // in with a read asked before NIO had registered it, which NIO then took for one pending
            // (docs/RELIABILITY.md, W8). Every one is answered now, on a loaded machine too.
            #expect(answered == 200, "\(Set(others))")
        }
    }

    @Test("An idle connection is closed after the idle timeout; so is one trickling its headers, and one holding back its body")
    func timeouts() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        // Idle timeouts of 3 s: short for a test, long enough for a loaded machine to answer in.
        try await application(rig, limits: WebConnectionLimits(maxConnections: 64, idleTimeout: .seconds(3))).test(.live) { client in
            let port = try #require(client.port)
            // Nothing sent: closed after about 3 seconds.
            let idle = try RawConnection(port: port, timeout: 20)
            let opened = Date()
            #expect(await idle.readToEnd().closed)
            let lasted = Date().timeIntervalSince(opened)
            #expect(lasted >= 2.9 && lasted < 20, "\(lasted) s")

            // A header line every 200 ms: the headers never end, so the timeout still counts from the start.
            let trickle = try RawConnection(port: port, timeout: 0.2)
            let trickleStarted = Date()
            trickle.send("GET /api/v1/today HTTP/1.1\r\nHost: localhost\r\n")
            var closedAfter: TimeInterval?
            while Date().timeIntervalSince(trickleStarted) < 20 {
                let sent = trickle.send("X-Slow: 1\r\n")
                let closedNow = await trickle.readToEnd().closed
                if !sent || closedNow {
                    closedAfter = Date().timeIntervalSince(trickleStarted)
                    break
                }
            }
            let trickled = try #require(closedAfter, "a trickling client held the connection for 20 s")
            #expect(trickled >= 2.9, "\(trickled) s")

            // A body announced and never sent: answered 413 with the headers, and closed after the
            // answer (Connection: close), whatever the client still sends.
            let body = try RawConnection(port: port, timeout: 20)
            body.send("GET /api/v1/today HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\nabc")
            let (answer, closed) = await body.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            #expect(header("Connection", in: answer) == "close")
            #expect(closed)

            // A kept-alive connection serves a second request, then times out when idle.
            let keepAlive = try RawConnection(port: port, timeout: 20)
            keepAlive.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect((await keepAlive.readAnswer()).hasPrefix("HTTP/1.1 503"))
            keepAlive.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect((await keepAlive.readAnswer()).hasPrefix("HTTP/1.1 503"))
            #expect(await keepAlive.readToEnd().closed)
        }
    }

    @Test(
        "Every answer carries the CSP, nosniff, frame and cache headers: 200, 401, 404, 405, 413, 414, 503 and Hummingbird's own 400")
    func headersOnEveryAnswer() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let token = try #require(BearerToken("s3cret"))
        let authorised = "Authorization: Bearer s3cret\r\n"
        let requests: [(request: String, status: Int)] = [
            ("GET /api/v1/today HTTP/1.1\r\n\(authorised)", 200),
            ("GET / HTTP/1.1\r\n\(authorised)", 200),
            ("HEAD /metrics HTTP/1.1\r\n\(authorised)", 200),
            ("GET /api/v1/week?end=yesterday HTTP/1.1\r\n\(authorised)", 404),
            ("GET /api/v1/today HTTP/1.1\r\n", 401),
            ("GET /nothing-here HTTP/1.1\r\n\(authorised)", 404),
            ("GET /nothing-here HTTP/1.1\r\n", 401),
            ("GET /day/2026-13-45 HTTP/1.1\r\n\(authorised)", 404),
            ("POST /api/v1/today HTTP/1.1\r\n\(authorised)Content-Length: 0\r\n", 405),
            ("GET /api/v1/today HTTP/1.1\r\n\(authorised)Content-Length: 2\r\n\r\nhi", 413),
            ("GET /day/\(String(repeating: "x", count: 3000)) HTTP/1.1\r\n\(authorised)", 414),
            ("GET /healthz HTTP/1.1\r\n", 503),
            ("BLAH\u{1}\u{2} / HTTP/9\r\n", 400),
        ]
        try await application(rig, limits: .standard, token: token).test(.live) { client in
            let port = try #require(client.port)
            for (request, status) in requests {
                let connection = try RawConnection(port: port)
                let whole = request.hasSuffix("hi") ? request : request + "Host: localhost\r\nConnection: close\r\n\r\n"
                connection.send(whole)
                let (answer, _) = await connection.readToEnd()
                let line = String(request.prefix(40))
                #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(line): \(answer.prefix(200))")
                #expect(header("X-Content-Type-Options", in: answer) == "nosniff", "\(line)")
                #expect(header("X-Frame-Options", in: answer) == "DENY", "\(line)")
                #expect(header("Content-Security-Policy", in: answer)?.contains("frame-ancestors 'none'") == true, "\(line)")
                #expect(header("Cache-Control", in: answer) == "no-store", "\(line)")
                #expect(header("Referrer-Policy", in: answer) == "no-referrer", "\(line)")
            }
        }
    }

    @Test("The unit's LimitNOFILE leaves room for the connection cap and dustd's own descriptors")
    func descriptorLimit() throws {
        let unit = try String(contentsOf: TestFixtures.repositoryRoot.appendingPathComponent("systemd/dustd.service"), encoding: .utf8)
        let limit = try #require(unit.split(separator: "\n").first { $0.hasPrefix("LimitNOFILE=") }.flatMap { Int($0.dropFirst(12)) })
        // About 60 for the database, event loops and clients (counted with ls /proc/PID/fd), doubled,
        // beside the connections answered and those waiting for room.
        let web = WebConnectionLimits.standard
        #expect(limit >= web.maxConnections + web.maxWaiting + 120, "LimitNOFILE=\(limit)")
    }
}

@Suite("The names a web without tokens answers to", .timeLimit(.minutes(10)))
struct WebHostNamesTests {
    @Test("IP literals, localhost, the machine's name, under a home suffix too, configured names; nothing else")
    func rules() {
        let names = WebHostNames(configured: ["dust.example.org"], machine: "Pi.example.net")
        for host in [
            nil, "", "127.0.0.1", "10.0.0.7:8478", "[::1]:8478", "[fe80::1]", "localhost", "a.localhost:80", "pi", "pi.local",
            "PI.LAN:8478",
            "pi.home.arpa", "pi.example.net", "pi.example.net.", "dust.example.org:443",
        ] {
            #expect(names.allows(host: host), "\(host ?? "nil")")
        }
        for host in [
            "attacker.example", "pi.attacker.example", "pi.local.attacker.example", "127.0.0.1.nip.io", "[::1", "[not-an-address]",
            "localhost:80x", "example.org", "dust.example.org.evil", "pi.com", "1.2.3", "x",
            // Another device's name under a home suffix: anyone on the Wi-Fi can answer mDNS for one, or have the
            // router name their phone, and point it at 127.0.0.1 once their page is open here (DNS rebinding).
            "laptop.local", "phone.lan:8478", "pi-2.local", "x.pi.local", "pi.example.net.local", "dust.home.arpa", "nas.internal",
        ] {
            #expect(!names.allows(host: host), "\(host)")
        }
        // A machine whose name is unknown answers no name under a home suffix; an IPv6 zone.
        let unknownMachine = WebHostNames(configured: [], machine: nil)
        for host in ["127.0.0.1:8478", "localhost", "[fe80::1%25eth0]:8478"] {
            #expect(unknownMachine.allows(host: host), "\(host)")
        }
        for host in [
            "local", ".lan", "lan.", "[::1]garbage", "[::1]:", "pi.local.attacker.example", "raspberrypi-2.local", "pi.local:8478",
            "router-name.lan",
        ] {
            #expect(!unknownMachine.allows(host: host), "\(host)")
        }
    }
}
