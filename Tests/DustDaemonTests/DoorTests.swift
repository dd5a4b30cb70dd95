import AirKorea
import DustDaemon
import DustKit
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

/// A key shaped like data.go.kr's (96 characters of base64).
private let key = "Fj1mybGUS4U3hdKn+iTemnwtnJGc66cYlMtQ/IMtjK4ZlR0Hc3asdiRkT8NeoD6PU99fy8210BfS4N7s+DnOoZB85Hmz/pZX7A=="
private let letters = key.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
private func piece(_ start: Int) -> String { String(letters.dropFirst(start).prefix(11)) }

@Suite("dustd's doors check the whole text: a log line, a STATUS= message (issue 36)", .serialized, .timeLimit(.minutes(10)))
struct DoorTests {
    @Test("A log line holding two pieces of the key side by side is withheld whole; one without is written as it was")
    func logLine() throws {
        let redactor = SecretRedactor()
        redactor.add(try #require(ServiceKey(key)))
        #expect(!redactor.echoes(piece(0)) && !redactor.echoes(piece(11)))
        let captured = Mutex<[String]>([])
        let logger = Logger(label: "door") { label in
            JournalLogHandler(
                label: label, level: .debug, environment: ["JOURNAL_STREAM": "8:1"], secrets: redactor,
                sink: { line in captured.withLock { $0.append(line) } })
        }
        // Two texts, each harmless alone, composed into one line (a district and its 권역, say).
        logger.info("Advisory stored for \(piece(0)) · \(piece(11))", metadata: ["level": "주의보"])
        logger.info("Advisory stored", metadata: ["area": "도심권", "district": "서울"])
        #expect(captured.withLock { $0 } == ["<6>\(SecretRedactor.withheldLine)\n", "<6>Advisory stored area=도심권 district=서울\n"])
    }

    @Test("A STATUS= message holding two pieces of the key is sent withheld; READY=1 and the others still go")
    func statusMessage() throws {
        let directory = try TemporaryDirectory("door")
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        let redactor = SecretRedactor()
        redactor.add(try #require(ServiceKey(key)))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path], echoes: redactor)
        notifier.ready(status: "Last poll failed: code \(piece(0)) (\(piece(11)))")
        notifier.status("Last poll ok, 24 new")
        let messages = socket.receive(2)
        #expect(messages == ["READY=1\nSTATUS=\(SecretRedactor.withheldLine)", "STATUS=Last poll ok, 24 new"])
    }

    @Test("After STOPPING=1 no READY=1 or RELOADING=1 leaves, in any copy of the notifier; a status still does")
    func nothingReadyAfterStopping() throws {
        let directory = try TemporaryDirectory("door")
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path], echoes: SecretRedactor())
        let copy = notifier
        notifier.reloading()
        notifier.ready()
        notifier.stopping(status: "Stopping")
        copy.reloading()
        copy.ready(status: "Last poll ok")
        copy.ready()
        let messages = socket.receive(4)
        #expect(messages.count == 4, "\(messages)")
        let reloading = messages.first?.split(separator: "\n").map(String.init) ?? []
        #expect(reloading.count == 2 && reloading[0] == "RELOADING=1" && reloading[1].hasPrefix("MONOTONIC_USEC="), "\(reloading)")
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let sent = UInt64(reloading.last?.dropFirst("MONOTONIC_USEC=".count) ?? "") ?? 0
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        #expect(sent <= microseconds && microseconds - sent < 10_000_000, "\(sent) against \(microseconds)")
        #expect(Array(messages.dropFirst()) == ["READY=1", "STOPPING=1\nSTATUS=Stopping", "STATUS=Last poll ok"])
    }

    @Test("A STATUS= message stays one line whatever follows its line feeds: a combining mark or a carriage return")
    func statusOneLine() throws {
        let directory = try TemporaryDirectory("door")
        defer { directory.remove() }
        let socket = try NotifySocket(path: directory.path("notify.sock"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path], echoes: SecretRedactor())
        notifier.status("a\n\u{301}READY=1\r\nb\rc")
        let messages = socket.receive(1)
        #expect(messages.map { Array($0.utf8) } == [Array("STATUS=a \u{301}READY=1  b c".utf8)])
    }
}
