import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// One HTTP/1.1 exchange per connection, on SwiftNIO's codec and NIOSSL: how dustd asks AirKorea, a
/// home's monitors and its alert sinks. Never follows a redirect (a 3xx is an answer like any other),
/// one deadline bounds the whole exchange, the answer's body included, and the body is bounded.
///
/// Not AsyncHTTPClient, on purpose (docs/ARCHITECTURE.md, "The HTTP client"): its state machine
/// stops the process (`preconditionFailure`) when a peer answers with a status below 100 and a body
/// or an end, which any server on the path can send. The codec here is NIO's own (llhttp), and what
/// it hands up is checked: a status outside 100–599 is an answer "not in HTTP", never a trap.
public final class OneShotHTTPClient: Sendable {
    private let connectTimeout: Duration
    private let userAgent: String
    /// Made on the first `https` exchange (reading the system's trust store costs milliseconds), then kept.
    private let tls = Mutex<NIOSSLContext?>(nil)

    public init(connectTimeout: Duration, userAgent: String) {
        self.connectTimeout = connectTimeout
        self.userAgent = userAgent
    }

    /// Sends `method` to `url` with `headers` (Host, User-Agent, Connection and Content-Length are
    /// the client's) and `body`, and returns the answer; `limit` says, from the status, how much of
    /// the body to read.
    public func exchange(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        deadline: Duration, limit: @escaping @Sendable (_ status: Int) -> BodyLimit
    ) async throws(HTTPExchangeFailure) -> HTTPAnswer {
        let target = try Target(url)
        let context = try target.secure ? tlsContext() : nil
        do {
            return try await withThrowingTaskGroup(of: HTTPAnswer?.self) { group in
                group.addTask {
                    try await self.perform(method, target, headers: headers, body: body, tls: context, deadline: deadline, limit: limit)
                }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else { throw HTTPExchangeFailure.timedOut }
                return answer
            }
        } catch let failure as HTTPExchangeFailure {
            throw failure
        } catch {
            throw HTTPExchangeFailure(error, connectTimeout: connectTimeout)
        }
    }

    private func perform(
        _ method: HTTPMethod, _ target: Target, headers: [(String, String)], body: [UInt8]?, tls: NIOSSLContext?,
        deadline: Duration, limit: @Sendable (Int) -> BodyLimit
    ) async throws -> HTTPAnswer {
        let waitForConnection = min(connectTimeout, deadline)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(waitForConnection))
            .connect(host: target.host, port: target.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        // The name for SNI and the certificate's check; an address is checked against the
                        // certificate's IP addresses instead.
                        let name = target.isAddress ? nil : target.host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: name))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.requestTarget)
            head.headers.add(name: "Host", value: target.hostHeader)
            head.headers.add(name: "User-Agent", value: userAgent)
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
            head.headers.add(name: "Connection", value: "close")
            // A server may answer before the request is all written, and close (an error page at once):
            // its answer is read all the same, and the write's failure said only when there is none.
            var unwritten: (any Error)?
            do {
                try await outbound.write(.head(head))
                if let body, !body.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))
            } catch {
                unwritten = error
            }

            var answer: HTTPAnswer?
            var bound = BodyLimit.keepFirst(0)
            for try await part in inbound {
                switch part {
                case .head(let responseHead):
                    let status = Int(responseHead.status.code)
                    // NIO's codec hands 1xx answers up only when asked; anything outside the standard's
                    // three digits is not an HTTP answer FineDust can act on.
                    guard (100...599).contains(status) else { throw HTTPExchangeFailure.notHTTP("status \(status)") }
                    bound = limit(status)
                    if case .refuseOver(let most) = bound,
                        let declared = responseHead.headers.first(name: "Content-Length").flatMap(Int.init), declared > most
                    {
                        throw HTTPExchangeFailure.bodyTooLarge(limit: most)
                    }
                    answer = HTTPAnswer(status: status, headers: responseHead.headers, body: [])
                    // Nothing of the body is wanted: the answer is its head, whether the body ever ends or not (an
                    // alert sink that answered 200 and held its body open was retried as silent, a duplicate each time).
                    if bound == .keepFirst(0) { return answer! }
                case .body(let bytes):
                    guard answer != nil else { throw HTTPExchangeFailure.notHTTP("a body before its head") }
                    let room = bound.most - answer!.body.count
                    if bytes.readableBytes > room {
                        if case .refuseOver(let most) = bound { throw HTTPExchangeFailure.bodyTooLarge(limit: most) }
                        answer!.body.append(contentsOf: bytes.readableBytesView.prefix(room))
                        // What the caller wants of it is read; the rest is never waited for.
                        return answer!
                    }
                    answer!.body.append(contentsOf: bytes.readableBytesView)
                case .end:
                    guard let answer else { throw HTTPExchangeFailure.notHTTP("an end before its head") }
                    return answer
                }
            }
            throw unwritten ?? HTTPExchangeFailure.closedBeforeAnswer
        }
    }

    private func tlsContext() throws(HTTPExchangeFailure) -> NIOSSLContext {
        do {
            return try tls.withLock { context in
                if let context { return context }
                let made = try NIOSSLContext(configuration: .makeClientConfiguration())
                context = made
                return made
            }
        } catch {
            throw .tls
        }
    }
}

/// How much of an answer's body to read.
public enum BodyLimit: Sendable, Hashable {
    /// All of it, or `bodyTooLarge` when it is longer than this (declared or read).
    case refuseOver(Int)
    /// The first bytes, up to this many; the rest is left unread.
    case keepFirst(Int)

    var most: Int {
        switch self {
        case .refuseOver(let most), .keepFirst(let most): most
        }
    }
}

/// An HTTP answer: its status, headers and (as much as was asked of) its body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
}

/// Why an exchange ended without an answer, said without the URL (AirKorea's carries the service key)
/// and without a request header (a sink's carries a token).
public enum HTTPExchangeFailure: Error, Sendable, Hashable {
    /// `url` is not an `http` or `https` URL with a host.
    case notAnHTTPURL
    /// No connection within the connect timeout.
    case noConnection(seconds: Int)
    /// No whole answer within the deadline.
    case timedOut
    /// The host name did not resolve, or nothing answered at any of its addresses.
    case unreachable
    /// A system call's failure: `strerror`'s words, lower case ("connection refused").
    case system(String)
    /// This process has as many files open as it may (EMFILE, ENFILE).
    case tooManyOpenFiles
    /// The connection closed before a whole answer.
    case closedBeforeAnswer
    /// Something answered, but not in HTTP: the codec's reason, which quotes nothing the peer sent.
    case notHTTP(String)
    /// The TLS handshake failed: a certificate this machine does not trust, a name it is not for, or no TLS there.
    case tls
    /// The body is longer than the caller reads.
    case bodyTooLarge(limit: Int)

    /// The failure `error` (NIO's, NIOSSL's or the system's) stands for.
    public init(_ error: any Error, connectTimeout: Duration) {
        switch error {
        case let failure as HTTPExchangeFailure: self = failure
        case ChannelError.connectTimeout: self = .noConnection(seconds: Int(connectTimeout.components.seconds))
        case let error as NIOConnectionError:
            // Every address tried: the first that was reached and refused says why in the system's words.
            let reached = error.connectionErrors.lazy.compactMap { $0.error as? IOError }.first
            if let reached { self.init(reached, connectTimeout: connectTimeout) } else { self = .unreachable }
        case let error as IOError where error.errnoCode == EMFILE || error.errnoCode == ENFILE: self = .tooManyOpenFiles
        case let error as IOError where error.errnoCode != 0: self = .system(String(cString: strerror(error.errnoCode)).lowercased())
        case let error as HTTPParserError: self = .notHTTP(String(describing: error))
        case ChannelError.eof, ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed:
            self = .closedBeforeAnswer
        case is NIOSSLError, is NIOSSLExtraError, is BoringSSLError: self = .tls
        case is CancellationError: self = .timedOut
        default: self = .closedBeforeAnswer
        }
    }
}

/// Where an exchange goes, from its URL.
struct Target: Sendable {
    var secure: Bool
    var host: String
    var port: Int
    /// The path and query as the URL has them (already percent-encoded).
    var requestTarget: String
    var hostHeader: String
    var isAddress: Bool

    init(_ url: String) throws(HTTPExchangeFailure) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw .notAnHTTPURL }
        secure = scheme == "https"
        // `[::1]` in a URL, `::1` to connect to.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (secure ? 443 : 80)
        guard (1...65535).contains(port) else { throw .notAnHTTPURL }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        let shownHost = self.host.contains(":") ? "[\(self.host)]" : self.host
        hostHeader = components.port == nil ? shownHost : "\(shownHost):\(port)"
        isAddress = (try? SocketAddress(ipAddress: self.host, port: 0)) != nil
    }
}
