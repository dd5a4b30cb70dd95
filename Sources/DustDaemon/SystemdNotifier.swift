import DustKit
import Foundation
import Synchronization

/// The systemd notify protocol (sd_notify(3)) written here: one datagram per message to
/// `$NOTIFY_SOCKET`, a path or, with a leading `@`, an abstract socket. Without the variable
/// (not started by systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    private let socketPath: String?
    /// Asked of each message's whole text before it leaves: a status that echoes a key is withheld.
    private let echoes: any EchoDetector
    /// Whether `STOPPING=1` was sent, shared by every copy: from then on no `READY=1` or `RELOADING=1` goes
    /// (a reload that ended during the stop said READY=1 after it, and systemd took the stop for over).
    private let stopped = StoppingSent()

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, echoes: any EchoDetector = KeyEchoGuard.none) {
        let path = environment["NOTIFY_SOCKET"]
        socketPath = (path?.isEmpty ?? true) ? nil : path
        self.echoes = echoes
    }

    /// `READY=1`, optionally with a status line; only the status once dustd is stopping.
    public func ready(status: String? = nil) {
        let status = status.map { ["STATUS=\($0)"] } ?? []
        // Checked and sent under the lock `stopping` takes: a reload ending on another thread as the stop
        // begins sends its READY=1 before STOPPING=1 or not at all.
        stopped.value.withLock { stopped in
            if stopped {
                if !status.isEmpty { send(status) }
            } else {
                send(["READY=1"] + status)
            }
        }
    }
    /// `STATUS=…`, shown by `systemctl status`.
    public func status(_ text: String) { send(["STATUS=\(text)"]) }
    /// `WATCHDOG=1`.
    public func watchdog() { send(["WATCHDOG=1"]) }
    /// `STOPPING=1`.
    public func stopping(status: String? = nil) {
        stopped.value.withLock { stopped in
            stopped = true
            send(["STOPPING=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
        }
    }
    /// `RELOADING=1` with `MONOTONIC_USEC` (the time it began on CLOCK_MONOTONIC: sd_notify(3) asks for it, so
    /// that a late `READY=1` of an earlier reload is not taken for this one's end; `Type=notify` accepts it
    /// as well), then `READY=1` when done; nothing once dustd is stopping.
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let assignments = ["RELOADING=1", "MONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)"]
        stopped.value.withLock { stopped in
            if !stopped { send(assignments) }
        }
    }

    /// Sends `KEY=VALUE` lines as one datagram. Failures are ignored, as sd_notify's are: a
    /// missing listener must never stop the daemon.
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        guard let socketPath else { return false }
        // A status line must stay on one line: every line feed and carriage return, scalar by scalar (one
        // followed by a combining mark is a character that is no line feed, and systemd splits on the byte).
        var lines = assignments.map { assignment in
            String(String.UnicodeScalarView(assignment.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
        }
        if echoes.echoes(lines.joined(separator: "\n")) {
            lines = lines.map { $0.hasPrefix("STATUS=") ? "STATUS=" + SecretRedactor.withheldLine : $0 }
        }
        let message = lines.joined(separator: "\n")
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }

        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        let isAbstract = pathBytes.first == UInt8(ascii: "@")
        if isAbstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        // Abstract names are length-delimited; filesystem paths are NUL-terminated.
        let length = socklen_t(pathOffset + pathBytes.count + (isAbstract ? 0 : 1))
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    // MSG_DONTWAIT: a listener that stops reading (a stalled systemd, a test) fills its
                    // queue after ten datagrams; a blocking send would then stall a thread of the
                    // concurrency pool, and with it every service of dustd. A lost notification is harmless.
                    sendto(descriptor, text, strlen(text), Int32(MSG_NOSIGNAL | MSG_DONTWAIT), socketAddress, length)
                }
            }
        }
        return sent >= 0
    }

    /// Half of `$WATCHDOG_USEC` when the watchdog is on for this process, else nil; never under 100 ms
    /// (`WATCHDOG_USEC=1` made an interval of nothing, and the pings a loop spinning a core).
    public static func watchdogInterval(environment: [String: String] = ProcessInfo.processInfo.environment) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], pid != String(getpid()) { return nil }
        return .microseconds(Int64(max(100_000, min(microseconds, UInt64(Int64.max)) / 2)))
    }
}

/// The notifier's memory of `STOPPING=1`, one for all its copies.
private final class StoppingSent: Sendable {
    let value = Mutex<Bool>(false)
}
