import AirKorea
import DustKit
import Foundation
import Logging
import Synchronization

/// swift-log output for a daemon: one line per event on stderr. Under journald (`$JOURNAL_STREAM`
/// set) each line starts with its syslog priority, `<6>`, and carries no timestamp (journald adds
/// one); otherwise it starts with an ISO 8601 time. Every secret given is replaced by `***`.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let underJournald: Bool
    private let secrets: SecretRedactor
    private let sink: @Sendable (String) -> Void

    public init(
        label: String, level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment,
        secrets: SecretRedactor = SecretRedactor(), sink: (@Sendable (String) -> Void)? = nil
    ) {
        self.label = label
        self.logLevel = level
        self.underJournald = environment["JOURNAL_STREAM"] != nil
        self.secrets = secrets
        // A line that cannot be written (its disk full, its pipe or terminal gone) is dropped: there is
        // nowhere to say so, and the daemon's work goes on (FileHandle.write traps on the error).
        self.sink = sink ?? { line in _ = writeAll(line.utf8, to: STDERR_FILENO) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        var line = event.message.description
        if !fields.isEmpty {
            line += " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        line = secrets.redacting(line)
        // One event, one line, and no escape sequence reaches a terminal reading the journal,
        // whatever a message quotes.
        line = TerminalSafeText.sanitized(line)
        if underJournald {
            sink("<\(Self.priority(event.level))>\(line)\n")
        } else {
            sink("\(Self.timestamp()) \(event.level) \(label): \(line)\n")
        }
    }

    /// syslog priorities as journald reads them from a `<N>` prefix.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// `2026-11-22T17:02:15Z`, built by hand: ISO8601DateFormatter loads ICU's calendars (about
    /// 3 MiB of resident memory) for what is a fixed UTC layout.
    public static func timestamp(_ seconds: time_t = time(nil)) -> String {
        var now = seconds
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

/// The service keys the daemon has loaded, so log output can never contain one, even by mistake;
/// and the check each door out of dustd asks of its whole text (`EchoDetector`).
public final class SecretRedactor: EchoDetector {
    private let keys = Mutex<[ServiceKey]>([])
    private let others = Mutex<[SecretText]>([])

    public init() {}

    /// Adds a key (a reload may bring a new one; old ones stay redacted).
    public func add(_ key: ServiceKey) {
        keys.withLock { if !$0.contains(key) { $0.append(key) } }
    }

    /// Adds another secret (an alert sink's token).
    public func add(_ secret: SecretText) {
        others.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// Whether `secret` is one of those added.
    public func holds(_ secret: SecretText) -> Bool { others.withLock { $0.contains(secret) } }

    /// `text` with every key and secret replaced by `***`; a text that still echoes a key as a
    /// reader would see it (decoded, folded, its pieces side by side: `KeyEchoGuard`) is withheld
    /// whole, as `withheldLine`.
    public func redacting(_ text: String) -> String {
        let withoutKeys = keys.withLock { keys in keys.reduce(text) { $1.redacting($0) } }
        let withoutSecrets = others.withLock { secrets in secrets.reduce(withoutKeys) { $1.redacting($0) } }
        return echoes(withoutSecrets) ? Self.withheldLine : withoutSecrets
    }

    /// True when a reader would find one of the keys in `text` (`KeyEchoGuard.echoes`).
    public func echoes(_ text: String) -> Bool {
        // The keys are copied out: no log line or answer waits behind another's check.
        keys.withLock { $0 }.contains { $0.echoGuard.echoes(text) }
    }

    /// What stands in for a log line (or a status line) that echoed a key.
    public static let withheldLine = "(withheld: this line held text that echoes the service key; AirKorea's answer was not shown)"
}
