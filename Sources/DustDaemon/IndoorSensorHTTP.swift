import DustHTTP
import DustKit
import DustServices
import Foundation

/// How dustd asks a monitor (docs/REFERENCE.md §21): a GET, an optional bearer token, a deadline over
/// the whole exchange, a bound on the body. Tests give a loopback server or a fake.
public protocol IndoorSensorHTTP: Sendable {
    /// The status and body of `url`; a redirect is returned as its status, never followed. A body
    /// over `maxBodyBytes` is `.tooLarge`; no answer within `timeout`, `.timeout`; no connection, `.unreachable`.
    func get(
        _ url: String, bearer: SecretText?, timeout: Duration, maxBodyBytes: Int
    ) async throws(SensorProblem) -> (
        status: Int, body: Data
    )
}

/// `IndoorSensorHTTP` on dustd's HTTP client (`OneShotHTTPClient`): a redirect is returned as its
/// status, never followed (it would carry Home Assistant's token to wherever it points), and each
/// question has a connection of its own: a monitor's small server keeps few sockets, and none is held
/// between the minutes.
public final class AsyncIndoorSensorHTTP: IndoorSensorHTTP {
    private let client = OneShotHTTPClient(connectTimeout: .seconds(5), userAgent: "FineDust-dustd")

    public init() {}

    /// Nothing to close: each question's connection closes with it.
    public func shutdown() async {}

    public func get(
        _ url: String, bearer: SecretText?, timeout: Duration, maxBodyBytes: Int
    ) async throws(SensorProblem) -> (
        status: Int, body: Data
    ) {
        var headers = [("Accept", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer \(bearer.revealedForSending)")) }
        do {
            // Only a 200's body is read: the status says the rest.
            let answer = try await client.exchange(
                .GET, url, headers: headers, deadline: timeout, limit: { $0 == 200 ? .refuseOver(maxBodyBytes) : .keepFirst(0) })
            return (answer.status, answer.status == 200 ? Data(answer.body) : Data())
        } catch {
            switch error {
            case .timedOut, .noConnection: throw .timeout(seconds: Int(timeout.seconds.rounded(.up)))
            case .bodyTooLarge(let limit): throw .tooLarge(limit: limit)
            case .notHTTP: throw .notHTTP
            case .tls: throw .tls
            case .notAnHTTPURL, .unreachable, .system, .tooManyOpenFiles, .closedBeforeAnswer: throw .unreachable
            }
        }
    }
}
