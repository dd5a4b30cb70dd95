import DustConfig
import DustHTTP
import DustKit
import DustReports
import DustServices
import Foundation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The sinks of `alerts.sinks`, built from the settings, sharing one HTTP client. Shown by the sinks'
/// names only, like each sink.
public final class AlertSinks: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let sinks: [any AlertSink]
    /// Problems worth a warning at start: a token that would travel in clear text.
    public let warnings: [String]

    /// Builds every sink; reads ntfy tokens now (from the token file, else the systemd credential
    /// `ntfy-token`), so a bad token file is a configuration error at start, not a failed alert.
    /// - Parameters:
    ///   - httpDeadline: how long an ntfy or webhook exchange may take, the answer's body included.
    ///   - clock: what an HTTP date in a `Retry-After` is measured from (dustd's one clock).
    public init(
        settings: AlertSettings, environment: [String: String], httpDeadline: Duration = .seconds(30),
        clock: any WallClock = SystemClock()
    ) throws(ConfigurationError) {
        // A sink's URL is configured; the client never follows a redirect, which would send the token and
        // the event elsewhere.
        let client = OneShotHTTPClient(
            connectTimeout: .seconds(SinkFailure.connectSeconds), userAgent: "FineDust-dustd/\(FineDustVersion.current)")
        var sinks: [any AlertSink] = []
        var warnings: [String] = []
        for (index, setting) in settings.sinks.enumerated() {
            let name = setting.displayName(position: index + 1)
            switch setting {
            case .ntfy(let url, let tokenFile):
                let token = try Self.ntfyToken(file: tokenFile, environment: environment)
                if token != nil, clearTextHost(of: url) != nil {
                    warnings.append("\(name) sends its access token over plain http; use https")
                }
                sinks.append(
                    NtfySink(
                        name: name, url: url, token: token, client: client, deadline: httpDeadline, clock: clock,
                        language: settings.language))
            case .webhook(let url):
                sinks.append(
                    WebhookSink(name: name, url: url, client: client, deadline: httpDeadline, clock: clock, language: settings.language))
            case .command(let arguments, let timeoutSeconds):
                sinks.append(CommandSink(name: name, arguments: arguments, timeout: timeoutSeconds, language: settings.language))
            }
        }
        self.sinks = sinks
        self.warnings = warnings
    }

    /// Nothing to close: each delivery's connection closes with it. Kept for the callers' symmetry
    /// with the sinks' lifetime.
    public func shutdown() async {}

    public var description: String { "AlertSinks(\(sinks.map(\.name).joined(separator: ", ")))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["sinks": sinks.map(\.name)], displayStyle: .class) }

    /// The credential name for the ntfy access token (`LoadCredential=ntfy-token:…`).
    public static let ntfyCredential = "ntfy-token"

    /// The sinks' secrets, for the log's redactor.
    public var secrets: [SecretText] { sinks.compactMap { ($0 as? NtfySink)?.token } }

    private static func ntfyToken(file: String?, environment: [String: String]) throws(ConfigurationError) -> SecretText? {
        if let file {
            let token = try readSecretFile(file, key: "alerts.sinks[].tokenFile", role: "the ntfy token file")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty, isHeaderToken(token) else {
                throw ConfigurationError(
                    key: "alerts.sinks[].tokenFile", problem: "names \(file), which must hold the token alone, in printable ASCII")
            }
            return SecretText(token)
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
            case let path = FilePaths.joining(directory, ntfyCredential), access(path, F_OK) == 0
        {
            // A credential that is there but cannot be read, or is not UTF-8, is refused as a token file is: read
            // with `try?`, it was dropped in silence, and every alert went out without its token (a 401 each).
            guard let data = FileManager.default.contents(atPath: path),
                let text = String(data: data, encoding: .utf8)
            else {
                throw ConfigurationError(
                    key: "alerts.sinks[].tokenFile",
                    problem: "(the credential \(ntfyCredential)) cannot be read as UTF-8 text; write the token alone into it")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty, isHeaderToken(token) else {
                throw ConfigurationError(
                    key: "alerts.sinks[].tokenFile",
                    problem: "(the credential \(ntfyCredential)) must hold the token alone, in printable ASCII")
            }
            return SecretText(token)
        }
        return nil
    }

    /// Printable ASCII without spaces, as a bearer token is: a control character (a stray byte of a
    /// terminal paste) made the HTTP client refuse the header and quote it, token and all, in the
    /// journal, the database and `dustctl alerts list`.
    static func isHeaderToken(_ token: String) -> Bool { token.utf8.allSatisfy { (0x21...0x7E).contains($0) } }
}

/// A sink that holds a secret (an ntfy topic and token, a webhook URL's path, query or user info,
/// a command's arguments): every description of it, and its reflection, is its `name`, which
/// shows only its kind, `scheme://host[:port]` and place in the list (docs/ALERTS.md). A service
/// group logs its services with `String(describing:)`, which would otherwise print every field.
protocol SecretHoldingSink: AlertSink, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {}

extension SecretHoldingSink {
    var description: String { name }
    var debugDescription: String { name }
    var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .struct) }
}

/// POSTs an event to one HTTP endpoint; any 2xx is delivered. One deadline bounds the whole exchange,
/// the answer's body included (a sink that answered 200 at once and then sent its body a byte every few
/// seconds held an attempt for eight minutes); only the head is read, so a 2xx is delivered however its body goes on.
private func post(
    _ client: OneShotHTTPClient, url: String, headers: [(String, String)], body: Data, to sink: String, deadline: Duration,
    clock: any WallClock
) async throws(AlertSinkError) {
    let answer: HTTPAnswer
    do {
        // Only the status and the headers are read: a 2xx is delivered however its body goes on (or does not end).
        answer = try await client.exchange(
            .POST, url, headers: headers, body: Array(body), deadline: deadline, limit: { _ in .keepFirst(0) })
    } catch {
        throw AlertSinkError("\(sink) \(SinkFailure.words(error, deadline: deadline))")
    }
    let status = answer.status
    guard (200..<300).contains(status) else {
        let redirect = (300..<400).contains(status) ? ", a redirect, which FineDust does not follow: give the address it points to" : ""
        // A server over its limit (ntfy.sh's visitors' quota: 429) says when to come back.
        let retryAfter = answer.headers.first(name: "Retry-After")
        let wait = status == 429 || status == 503 ? retryAfter.flatMap { RetryAfter.seconds($0, now: clock.now) } : nil
        throw AlertSinkError(
            "\(sink) answered HTTP \(status)\(redirect)\(wait.map { ", asking to wait \($0) s" } ?? "")",
            retryAfter: wait.map { .seconds($0) })
    }
}

/// An HTTP `Retry-After` value (RFC 9110 §10.2.3) in whole seconds from `now`: delay-seconds, or an
/// HTTP date; nil for anything else, and 0 for a date past.
enum RetryAfter {
    static func seconds(_ value: String, now: Date) -> Int? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // Leading zeros first: `0000000008` cut to nine digits was 0 s.
            let digits = text.drop { $0 == "0" }
            return digits.count > 9 ? 86_400 * 7 : min(Int(digits) ?? 0, 86_400 * 7)
        }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = format.date(from: text) else { return nil }
        return max(0, min(Int(date.timeIntervalSince(now).rounded(.up)), 86_400 * 7))
    }
}

/// Why a sink could not be reached, in words a person can act on; never an HTTP client error's
/// description, which can hold the request's headers (an ntfy token was quoted whole), nor a
/// library's type name where the failure has a plainer one ("IOError", "NIOConnectionError").
enum SinkFailure {
    /// How long the client waits for a connection (its own timeout, said as one).
    static let connectSeconds = 10

    static func words(_ failure: HTTPExchangeFailure, deadline: Duration) -> String {
        switch failure {
        case .timedOut: "did not answer within \(Int(deadline.seconds.rounded())) s"
        case .noConnection(let seconds): "could not be reached: no connection within \(seconds) s"
        case .closedBeforeAnswer: "closed the connection before answering"
        case .system(let words): "could not be reached (\(words))"
        case .tooManyOpenFiles: "could not be reached (too many open files: dustd has as many files open as it may)"
        case .notHTTP: "answered, but not in HTTP (another kind of server at that address and port?)"
        case .unreachable: "could not be reached: its host name did not resolve, or nothing answered at its address"
        case .tls: "could not be reached over TLS: a certificate this machine does not trust, or a server that does not speak TLS there"
        case .notAnHTTPURL: "could not be reached: its url is not an http or https URL"
        // Not met by a sink, whose answer is read to its head; said for completeness.
        case .bodyTooLarge: "answered more than could be read"
        }
    }
}

/// An ntfy topic (https://ntfy.sh or a self-hosted server): the message as the body, the title,
/// priority and tags as headers, the access token as a bearer token.
struct NtfySink: SecretHoldingSink {
    let name: String
    let url: String
    let token: SecretText?
    let client: OneShotHTTPClient
    let deadline: Duration
    let clock: any WallClock
    /// `alerts.language`: the title's and the message's.
    let language: AlertLanguage

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        var headers = [
            // Header values are ASCII; ntfy decodes RFC 2047 encoded words, so the Korean title survives.
            ("Title", Self.encodedWord(event.title(in: language))),
            ("Priority", event.kind == .fired ? "high" : "default"),
            ("Tags", event.kind == .fired ? "warning,mask" : event.kind == .cleared ? "white_check_mark" : "test_tube"),
        ]
        if let token { headers.append(("Authorization", "Bearer \(token.revealedForSending)")) }
        try await post(
            client, url: url, headers: headers, body: Data(event.message(in: language).utf8), to: name, deadline: deadline, clock: clock)
    }

    /// `=?UTF-8?B?…?=` for text that is not plain ASCII.
    static func encodedWord(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        return "=?UTF-8?B?\(Data(text.utf8).base64EncodedString())?="
    }
}

/// A webhook: one JSON document per event (docs/ALERTS.md).
struct WebhookSink: SecretHoldingSink {
    let name: String
    let url: String
    let client: OneShotHTTPClient
    let deadline: Duration
    let clock: any WallClock
    let language: AlertLanguage

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        try await post(
            client, url: url, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Data(AlertPayload.json(event, language: language).utf8), to: name, deadline: deadline, clock: clock)
    }
}

/// A program run with the event in its environment (swift-subprocess): no shell, no PATH lookup,
/// a clean environment (none of dustd's), no inherited descriptors, stdin and output on
/// /dev/null, in a session of its own. After the timeout, or when dustd stops, its whole process
/// group gets SIGTERM, then SIGKILL 2 s later. Exit status 0 is delivered; a helper it leaves
/// running in the background does not hold the delivery up.
struct CommandSink: SecretHoldingSink {
    let name: String
    let arguments: [String]
    let timeout: Double
    let language: AlertLanguage

    private struct TimedOut: Error {}

    func deliver(_ event: AlertEvent) async throws(AlertSinkError) {
        var options = PlatformOptions()
        options.createSession = true
        options.teardownSequence = [.send(signal: .terminate, toProcessGroup: true, allowedDurationToNextStep: .seconds(2))]
        var environment: [Environment.Key: String] = [:]
        for (key, value) in AlertPayload.environment(event, language: language) { environment[Environment.Key(stringLiteral: key)] = value }
        let status: TerminationStatus
        do {
            status = try await withThrowingTaskGroup(of: TerminationStatus.self) { group in
                group.addTask { [arguments, environment, options] in
                    try await run(
                        .path(FilePath(arguments[0])), arguments: Arguments(Array(arguments.dropFirst())),
                        environment: .custom(environment), platformOptions: options,
                        input: .none, output: .discarded, error: .discarded
                    ).terminationStatus
                }
                group.addTask { [timeout] in
                    try await Task.sleep(for: .seconds(timeout))
                    throw TimedOut()
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch is TimedOut {
            throw AlertSinkError("\(name) did not finish within \(Int(timeout)) s and was stopped")
        } catch is CancellationError {
            throw AlertSinkError("\(name) was stopped: dustd is stopping")
        } catch {
            throw AlertSinkError("\(name) could not be started: \(error)")
        }
        // Cancelled while the command ran, the teardown's SIGTERM may end it before the run
        // reports the cancellation: that is dustd stopping it, not the command failing.
        if Task.isCancelled, case .signaled = status { throw AlertSinkError("\(name) was stopped: dustd is stopping") }
        switch status {
        case .exited(0): return
        case .exited(let code): throw AlertSinkError("\(name) exited with status \(code)")
        case .signaled(let signal): throw AlertSinkError("\(name) was killed by signal \(signal)")
        }
    }
}

/// The event as a webhook's JSON and a command's environment.
public enum AlertPayload {
    /// The webhook body: `ReportJSON.alertEvent` (docs/ALERTS.md).
    public static func json(_ event: AlertEvent, language: AlertLanguage) -> String {
        ReportJSON.alertEvent(event, language: language).serialized
    }

    /// `FINEDUST_EVENT`, `FINEDUST_RULE`, `FINEDUST_METRIC`, `FINEDUST_VALUE`, `FINEDUST_GRADE`,
    /// `FINEDUST_STATION`, `FINEDUST_TIME`, `FINEDUST_TITLE`, `FINEDUST_MESSAGE`, a PATH, and `FINEDUST_PEOPLE`
    /// (`dad,민지`) when the event names people (docs/REFERENCE.md §18).
    public static func environment(_ event: AlertEvent, language: AlertLanguage) -> [String: String] {
        var environment = [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "FINEDUST_EVENT": event.kind.rawValue,
            "FINEDUST_RULE": event.rule,
            "FINEDUST_STATION": event.station,
            "FINEDUST_TIME": KoreaStandardTime.iso8601(event.at),
            "FINEDUST_TITLE": event.title(in: language),
            "FINEDUST_MESSAGE": event.message(in: language),
        ]
        if let metric = event.metric { environment["FINEDUST_METRIC"] = metric.rawValue }
        if var value = event.value {
            // A dose is written as the webhook's JSON writes it: 28.35, not 28.349999999999998.
            if event.metric?.isPersonal == true, value.isFinite { value = JSON.measuredValue(value) }
            environment["FINEDUST_VALUE"] = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        }
        if let grade = ReportJSON.alertGrade(event) { environment["FINEDUST_GRADE"] = grade.koreanName }
        if !event.people.isEmpty { environment["FINEDUST_PEOPLE"] = event.people.joined(separator: ",") }
        return environment
    }
}
