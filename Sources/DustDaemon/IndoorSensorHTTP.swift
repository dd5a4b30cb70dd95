import AsyncHTTPClient
import DustKit
import DustServices
import Foundation
import NIOCore
import NIOHTTP1

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

/// `IndoorSensorHTTP` on AsyncHTTPClient. Owns its client; call `shutdown()` before exit.
public final class AsyncIndoorSensorHTTP: IndoorSensorHTTP {
    private let client: HTTPClient

    public init() {
        var configuration = HTTPClient.Configuration()
        // A redirect would carry Home Assistant's token to wherever it points.
        configuration.redirectConfiguration = .disallow
        configuration.timeout = .init(connect: .seconds(5))
        // Idle connections are closed before the next minute's question: a monitor's small server
        // keeps few sockets, and a silent one must not hold a pooled connection the others wait for.
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    public func get(
        _ url: String, bearer: SecretText?, timeout: Duration, maxBodyBytes: Int
    ) async throws(SensorProblem) -> (
        status: Int, body: Data
    ) {
        let seconds = Int(timeout.seconds.rounded(.up))
        do {
            return try await withThrowingTaskGroup(of: (status: Int, body: Data)?.self) { group in
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.headers.add(name: "Accept", value: "application/json")
                    request.headers.add(name: "User-Agent", value: "FineDust-dustd")
                    if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer.revealedForSending)") }
                    let response = try await self.client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
                    let status = Int(response.status.code)
                    guard status == 200 else { return (status, Data()) }
                    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBodyBytes {
                        throw SensorProblem.tooLarge(limit: maxBodyBytes)
                    }
                    let body = try await response.body.collect(upTo: maxBodyBytes)
                    return (status, Data(body.readableBytesView))
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else { throw SensorProblem.timeout(seconds: seconds) }
                return answer
            }
        } catch let problem as SensorProblem {
            throw problem
        } catch is NIOTooManyBytesError {
            throw .tooLarge(limit: maxBodyBytes)
        } catch is HTTPParserError {
            throw .notHTTP
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: throw .timeout(seconds: seconds)
            default: throw .unreachable
            }
        } catch {
            throw .unreachable
        }
    }
}
