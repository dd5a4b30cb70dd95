import DustKit
import Foundation

/// Where an alert goes: ntfy, a webhook, a command (DustDaemon has them), a fake in the tests.
public protocol AlertSink: Sendable {
    /// What the operator recognises it by, with no secret in it (`ntfy https://ntfy.sh/dust`).
    var name: String { get }
    /// Hands the event over; throws a one-sentence reason (no secret in it) when the sink did not
    /// take it.
    func deliver(_ event: AlertEvent) async throws(AlertSinkError)
}

public struct AlertSinkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// How long the sink asked to be left alone (an HTTP `429` or `503` with `Retry-After`): the next
    /// attempt waits at least this long, at most `AlertRetryPolicy.longestWait`.
    public var retryAfter: Duration?

    public init(_ description: String, retryAfter: Duration? = nil) {
        self.description = TerminalSafeText.sanitized(description)
        self.retryAfter = retryAfter
    }
}

/// How often and how patiently a failed delivery is retried.
public struct AlertRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The wait before the second attempt; each later wait doubles it.
    public var initialDelay: Duration

    public init(maxAttempts: Int = 5, initialDelay: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = initialDelay
    }

    /// The wait after failed attempt `attempt` (1-based): 30 s, 1 min, 2 min, 4 min by default.
    public func delay(after attempt: Int) -> Duration {
        initialDelay * (1 << min(attempt - 1, 20))
    }

    /// The longest a sink's `Retry-After` is waited for: an alert an hour late is still news, one a day
    /// late is not (a server asking for a day is then tried again after the hour, and so on).
    public static let longestWait: Duration = .seconds(3600)

    /// The wait after `attempt` failed and its sink asked for `asked`: the backoff, or what the sink asked if longer.
    public func delay(after attempt: Int, asked: Duration?) -> Duration {
        max(delay(after: attempt), min(asked ?? .zero, Self.longestWait))
    }
}

/// Delivers events to every sink, each sink on its own, retrying with backoff; records every
/// attempt. It runs beside the poll loop (dustd's alert service), so a slow or dead sink never
/// delays a poll.
public struct AlertDispatcher: Sendable {
    private let sinks: [any AlertSink]
    private let store: any AlertStore
    private let policy: AlertRetryPolicy
    private let clock: any WallClock

    /// - Parameter clock: stamps each attempt and times the waits between them.
    public init(
        sinks: [any AlertSink], store: any AlertStore, policy: AlertRetryPolicy = AlertRetryPolicy(),
        clock: any WallClock = SystemClock()
    ) {
        self.sinks = sinks
        self.store = store
        self.policy = policy
        self.clock = clock
    }

    public var sinkNames: [String] { sinks.map(\.name) }

    /// Delivers one event to every sink concurrently; returns each sink's last attempt. A
    /// cancellation (dustd stopping) ends the waits: a delivery that was waiting for its next
    /// attempt stays recorded as `retrying`, and the next start resumes it (`resume`).
    ///
    /// - Parameter endedBy: asked before each retry: why the event is no longer news, or nil. A newer
    ///   event of the same rule (a clearing after a rise still being retried: a sink never receives
    ///   the rise after the clearing), or the end of the day whose dose it was, ends the retries.
    /// - Parameter heldUntil: asked before each retry: when quiet hours that hold the event back end, or nil
    ///   (`alerts.quietHours`: a rise is not sent in them, and a retry a sink asked to wait for, or a stop,
    ///   once sent one at 03:00). The retry waits until then, and asks `endedBy` again.
    @discardableResult
    public func deliver(
        _ event: AlertEvent, endedBy: @escaping @Sendable () -> String? = { nil }, heldUntil: @escaping @Sendable () -> Date? = { nil }
    ) async -> [AlertDelivery] {
        // Each sink's delivery begins with a record: a crash (not a stop, which records its own) during the
        // first attempts leaves it `retrying`, and the next start takes it up (`AlertResumption`); a sink
        // without a record is then only one configured since the event, which is not sent old news.
        for sink in sinks {
            try? await store.recordAlertDelivery(
                AlertDelivery(
                    eventID: event.id, sink: sink.name, attempt: 0, at: clock.now, outcome: .retrying, detail: AlertDelivery.begun))
        }
        return await withTaskGroup(of: AlertDelivery.self) { group in
            for sink in sinks {
                group.addTask { await deliver(event, to: sink, endedBy: endedBy, heldUntil: heldUntil) }
            }
            var results: [AlertDelivery] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.sink < $1.sink }
        }
    }

    /// Takes up a delivery that was waiting for its next attempt when dustd stopped (or was
    /// killed): attempts `attempt + 1` and on, with the same backoff, unless `endedBy` says the event is
    /// no longer news (then recorded failed, with its reason). Nil when no configured sink has that name any more.
    public func resume(
        _ event: AlertEvent, sink name: String, afterAttempt attempt: Int,
        endedBy: @escaping @Sendable () -> String? = { nil }, heldUntil: @escaping @Sendable () -> Date? = { nil }
    ) async -> AlertDelivery? {
        guard let sink = sinks.first(where: { $0.name == name }) else { return nil }
        // A resumed attempt is a retry: held back through quiet hours, and an event no longer news is ended
        // before it, as between retries. Stopped meanwhile, the record stays `retrying` for the next start.
        guard await waitOutQuietHours(heldUntil, endedBy: endedBy) else {
            return AlertDelivery(
                eventID: event.id, sink: name, attempt: attempt, at: clock.now, outcome: .retrying,
                detail: "dustd stopped before this attempt")
        }
        if let reason = endedBy() {
            let ended = AlertDelivery(eventID: event.id, sink: name, attempt: attempt, at: clock.now, outcome: .failed, detail: reason)
            try? await store.recordAlertDelivery(ended)
            return ended
        }
        // Each resumed attempt is recorded before it is made: an answer that stopped dustd during it (a
        // crash, an out-of-memory kill) then counts, and the next start goes on from the attempt after,
        // until the last; otherwise every start would make the same attempt again, for good.
        let next = attempt + 1
        guard next <= policy.maxAttempts else {
            let spent = AlertDelivery(
                eventID: event.id, sink: name, attempt: attempt, at: clock.now, outcome: .failed,
                detail: "dustd stopped during its last attempt (\(attempt) of \(policy.maxAttempts))")
            try? await store.recordAlertDelivery(spent)
            return spent
        }
        try? await store.recordAlertDelivery(
            AlertDelivery(eventID: event.id, sink: name, attempt: next, at: clock.now, outcome: .retrying, detail: AlertDelivery.resumed))
        return await deliver(event, to: sink, firstAttempt: next, endedBy: endedBy, heldUntil: heldUntil)
    }

    /// Waits while `heldUntil` says quiet hours hold the event back, or until `endedBy` says it is no longer news
    /// (a clearing came, its day ended: the caller then ends it); false when stopped meanwhile. Both are asked
    /// again at least every 5 minutes: a reload may have moved the quiet hours, and NTP may have stepped a
    /// Raspberry Pi's clock (a wait is measured on the continuous clock).
    private func waitOutQuietHours(_ heldUntil: @Sendable () -> Date?, endedBy: @Sendable () -> String?) async -> Bool {
        while let until = heldUntil(), until > clock.now, endedBy() == nil {
            do { try await clock.sleep(until: until, atMost: 300) } catch { return false }
        }
        return true
    }

    private func deliver(
        _ event: AlertEvent, to sink: any AlertSink, firstAttempt: Int = 1, endedBy: @Sendable () -> String?,
        heldUntil: @Sendable () -> Date? = { nil }
    ) async -> AlertDelivery {
        var attempt = firstAttempt
        while true {
            let outcome: AlertDelivery
            var asked: Duration?
            if Task.isCancelled {
                return AlertDelivery(
                    eventID: event.id, sink: sink.name, attempt: attempt - 1, at: clock.now,
                    outcome: .retrying, detail: "dustd stopped before this attempt")
            }
            do throws(AlertSinkError) {
                try await sink.deliver(event)
                outcome = AlertDelivery(
                    eventID: event.id, sink: sink.name, attempt: attempt, at: clock.now, outcome: .delivered, detail: nil)
            } catch {
                if Task.isCancelled {
                    // Cut short by dustd's stop, not refused by the sink ("could not be reached:
                    // CancellationError"): not counted, and left `retrying` for the next start to take up
                    // (`AlertResumption`); it was marked failed for good, and an upgrade lost the alert.
                    outcome = AlertDelivery(
                        eventID: event.id, sink: sink.name, attempt: attempt - 1, at: clock.now,
                        outcome: .retrying, detail: "dustd stopped during this attempt")
                } else {
                    asked = error.retryAfter
                    outcome = AlertDelivery(
                        eventID: event.id, sink: sink.name, attempt: attempt, at: clock.now,
                        outcome: attempt >= policy.maxAttempts ? .failed : .retrying, detail: error.description)
                }
            }
            // A record that cannot be written must not stop the delivery itself.
            try? await store.recordAlertDelivery(outcome)
            guard outcome.outcome == .retrying else { return outcome }
            do {
                try await clock.sleep(for: policy.delay(after: attempt, asked: asked))
            } catch {
                // dustd is stopping: the record stays `retrying`, for the next start to resume.
                return outcome
            }
            guard await waitOutQuietHours(heldUntil, endedBy: endedBy) else { return outcome }
            if let reason = endedBy() {
                var superseded = outcome
                superseded.outcome = .failed
                superseded.detail = (outcome.detail ?? "") + "; " + reason
                try? await store.recordAlertDelivery(superseded)
                return superseded
            }
            attempt += 1
        }
    }
}

/// The deliveries to take up at start, for the newest event of each rule (and the people it names) still configured
/// (`rules`, as `AlertRule.description` writes them) if it is at most `maxAge` old (an alert about the air three hours ago is no longer news), to each sink still configured:
/// one whose last record says `retrying` (dustd stopped, or was killed, while it waited for its
/// next attempt), or every sink of an event that has no record at all (dustd stopped before the first
/// attempts).
public enum AlertResumption {
    public struct Pending: Sendable, Hashable {
        public var event: AlertEvent
        public var sink: String
        public var lastAttempt: Int
    }

    public static func pending(
        in recent: [(event: AlertEvent, deliveries: [AlertDelivery])], rules: Set<String>, sinks: [String],
        now: Date, maxAge: TimeInterval = 3 * 3600
    ) -> [Pending] {
        // A rule's events about different people do not replace each other.
        var newestOfRule: [String: AlertEvent] = [:]
        for (event, _) in recent where event.kind != .test {
            if let known = newestOfRule[event.recordedRule], known.id > event.id { continue }
            newestOfRule[event.recordedRule] = event
        }
        var result: [Pending] = []
        for (event, deliveries) in recent
        where newestOfRule[event.recordedRule]?.id == event.id && event.kind != .test && rules.contains(event.rule) {
            guard now.timeIntervalSince(event.at) <= maxAge else { continue }
            for sink in sinks {
                let last = deliveries.filter { $0.sink == sink }.max { ($0.attempt, $0.at) < ($1.attempt, $1.at) }
                switch last?.outcome {
                case nil:
                    // No record of this sink beside others' records: every delivery begins with one (`deliver`),
                    // so it was added, or moved in the list (its name says its place), since the event; a sink is
                    // not sent old news, nor one that took it (as "sink 1", now "sink 2") sent it again. An event
                    // with no record at all is an older FineDust's, stopped before its first attempts.
                    if deliveries.isEmpty { result.append(Pending(event: event, sink: sink, lastAttempt: 0)) }
                case .retrying?: result.append(Pending(event: event, sink: sink, lastAttempt: last?.attempt ?? 0))
                case .delivered?, .failed?: continue
                }
            }
        }
        return result.sorted { ($0.event.id, $0.sink) < ($1.event.id, $1.sink) }
    }
}
