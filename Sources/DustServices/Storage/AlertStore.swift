import DustKit
import Foundation

/// Where rule states, events and deliveries are kept, so a restart neither repeats nor forgets an
/// alert.
public protocol AlertStore: Sendable {
    /// The state of every rule seen before, by rule text.
    func alertStates() async throws(StorageFailure) -> [String: AlertState]
    /// Saves a rule's new state and, when there is one, the event it announced, in one
    /// transaction; returns the event with its id.
    func saveAlertTransition(rule: String, state: AlertState, event: AlertEvent?, at: Date) async throws(StorageFailure) -> AlertEvent?
    /// Stores an event outside any rule (a test); returns it with its id.
    func saveAlertEvent(_ event: AlertEvent) async throws(StorageFailure) -> AlertEvent
    /// Records one delivery attempt of an event to a sink.
    func recordAlertDelivery(_ delivery: AlertDelivery) async throws(StorageFailure)
    /// The newest events, newest first, each with its deliveries.
    func recentAlertEvents(limit: Int) async throws(StorageFailure) -> [(event: AlertEvent, deliveries: [AlertDelivery])]
}
