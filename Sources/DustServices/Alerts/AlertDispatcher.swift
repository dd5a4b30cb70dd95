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
    public init(_ description: String) { self.description = TerminalSafeText.sanitized(description) }
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
}

/// Delivers events to every sink, each sink on its own, retrying with backoff; records every
/// attempt. It runs beside the poll loop (dustd's alert service), so a slow or dead sink never
/// delays a poll.
public struct AlertDispatcher: Sendable {
    private let sinks: [any AlertSink]
    private let store: any AlertStore
    private let policy: AlertRetryPolicy
    private let clock: any WallClock
    private let sleep: @Sendable (Duration) async throws -> Void

    public init(sinks: [any AlertSink], store: any AlertStore, policy: AlertRetryPolicy = AlertRetryPolicy(),
                clock: any WallClock = SystemClock(),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.sinks = sinks
        self.store = store
        self.policy = policy
        self.clock = clock
        self.sleep = sleep
    }

    public var sinkNames: [String] { sinks.map(\.name) }

    /// Delivers one event to every sink concurrently; returns each sink's last attempt. A
    /// cancellation (dustd stopping) ends the waits; what was not delivered is recorded as failed.
    ///
    /// - Parameter isCurrent: asked before each retry; false when a newer event of the same rule
    ///   has come (a clearing after a rise still being retried), which ends the retries, so a
    ///   sink never receives the rise after the clearing.
    @discardableResult
    public func deliver(_ event: AlertEvent, isCurrent: @escaping @Sendable () -> Bool = { true }) async -> [AlertDelivery] {
        await withTaskGroup(of: AlertDelivery.self) { group in
            for sink in sinks {
                group.addTask { await deliver(event, to: sink, isCurrent: isCurrent) }
            }
            var results: [AlertDelivery] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.sink < $1.sink }
        }
    }

    private func deliver(_ event: AlertEvent, to sink: any AlertSink, isCurrent: @Sendable () -> Bool) async -> AlertDelivery {
        var attempt = 1
        while true {
            let outcome: AlertDelivery
            do throws(AlertSinkError) {
                try await sink.deliver(event)
                outcome = AlertDelivery(eventID: event.id, sink: sink.name, attempt: attempt, at: clock.now, outcome: .delivered, detail: nil)
            } catch {
                let last = attempt >= policy.maxAttempts || Task.isCancelled
                outcome = AlertDelivery(eventID: event.id, sink: sink.name, attempt: attempt, at: clock.now,
                                        outcome: last ? .failed : .retrying, detail: error.description)
            }
            // A record that cannot be written must not stop the delivery itself.
            try? store.recordAlertDelivery(outcome)
            guard outcome.outcome == .retrying else { return outcome }
            do {
                try await sleep(policy.delay(after: attempt))
            } catch {
                var stopped = outcome
                stopped.outcome = .failed
                stopped.detail = (outcome.detail ?? "") + "; dustd stopped before the next attempt"
                try? store.recordAlertDelivery(stopped)
                return stopped
            }
            guard isCurrent() else {
                var superseded = outcome
                superseded.outcome = .failed
                superseded.detail = (outcome.detail ?? "") + "; a newer alert of the same rule replaced it"
                try? store.recordAlertDelivery(superseded)
                return superseded
            }
            attempt += 1
        }
    }
}
