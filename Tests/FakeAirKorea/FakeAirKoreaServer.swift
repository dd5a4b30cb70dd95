import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A request the fake server received.
public struct ReceivedRequest: Sendable {
    public var path: String
    public var query: [String: String]
    /// The raw request target, exactly as sent (to check the key is encoded once).
    public var rawTarget: String
    /// When the request arrived.
    public var receivedAt = Date()
    /// The method (`GET`, `POST`), the headers (names in lower case) and the body: what an alert
    /// sink sent when the fake stands in for ntfy or a webhook.
    public var method = "GET"
    public var headers: [String: String] = [:]
    public var body = Data()

    /// The last path component: the AirKorea operation.
    public var operation: String { path.split(separator: "/").last.map(String.init) ?? "" }
}

/// What the fake server answers.
public enum FakeReply: Sendable {
    /// A complete HTTP response, with extra headers (a redirect's `Location`).
    case respond(status: Int, body: Data, contentType: String = "text/xml;charset=UTF-8", headers: [String: String] = [:])
    /// Waits, then replies.
    indirect case delayed(Duration, FakeReply)
    /// Resets the TCP connection without answering.
    case resetConnection
    /// Announces `declaredLength` bytes, sends `body`, then closes: a cut-off transfer.
    case truncated(body: Data, declaredLength: Int)
    /// Streams `chunk` forever (until the client goes away), with no Content-Length.
    case endless(chunk: Data)
    /// Answers 200 at once, then sends a byte of its body every `interval`, forever (a server that
    /// holds a client by its body, which a deadline on the head does not bound).
    case dripping(every: Duration)
}

/// A loopback HTTP server standing in for AirKorea in tests: SwiftNIO on 127.0.0.1, an
/// ephemeral port, a replaceable script deciding each reply, and a log of requests.
public final class FakeAirKoreaServer: Sendable {
    private let script: Mutex<@Sendable (ReceivedRequest) -> FakeReply>
    private let received = Mutex<[ReceivedRequest]>([])
    private let channel: Mutex<(any Channel)?> = Mutex(nil)
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public init(script: @escaping @Sendable (ReceivedRequest) -> FakeReply) {
        self.script = Mutex(script)
    }

    /// Replaces the script (e.g. when a fault clears).
    public func setScript(_ newScript: @escaping @Sendable (ReceivedRequest) -> FakeReply) {
        script.withLock { $0 = newScript }
    }

    /// Every request so far.
    public var requests: [ReceivedRequest] { received.withLock { $0 } }

    /// Starts listening; returns the base URL to configure (`http://127.0.0.1:PORT/B552584`).
    public func start() async throws -> String {
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(FakeHandler(server: self))
                }
            }
        let bound = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        channel.withLock { $0 = bound }
        return "http://127.0.0.1:\(bound.localAddress!.port!)/B552584"
    }

    public func stop() async {
        let bound = channel.withLock { $0 }
        try? await bound?.close()
        try? await group.shutdownGracefully()
    }

    fileprivate func reply(to request: ReceivedRequest) -> FakeReply {
        received.withLock { $0.append(request) }
        return script.withLock { $0 }(request)
    }
}

private final class FakeHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: FakeAirKoreaServer
    private var target = ""
    private var method = "GET"
    private var headers: [String: String] = [:]
    private var body = Data()

    init(server: FakeAirKoreaServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            target = head.uri
            method = head.method.rawValue
            headers = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            body = Data()
        case .body(var buffer):
            body.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        case .end:
            let components = URLComponents(string: "http://localhost\(target)")
            var query: [String: String] = [:]
            for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
            let request = ReceivedRequest(
                path: components?.path ?? target, query: query, rawTarget: target,
                method: method, headers: headers, body: body)
            perform(server.reply(to: request), context: context)
        }
    }

    private func perform(_ reply: FakeReply, context: ChannelHandlerContext) {
        switch reply {
        case .respond(let status, let body, let contentType, let extra):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: contentType)
            for (name, value) in extra.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
            headers.add(name: "Content-Length", value: String(body.count))
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .delayed(let delay, let inner):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(
                in: .nanoseconds(Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)
            ) {
                let (handler, context) = loopBound.value
                guard context.channel.isActive else { return }
                handler.perform(inner, context: context)
            }
        case .resetConnection:
            // SO_LINGER with a zero timeout turns close() into a TCP reset.
            if let provider = context.channel as? any SocketOptionProvider {
                _ = provider.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            }
            context.close(promise: nil)
        case .truncated(let body, let declaredLength):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/xml;charset=UTF-8")
            headers.add(name: "Content-Length", value: String(declaredLength))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            context.close(promise: nil)
        case .endless(let chunk):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/xml;charset=UTF-8")
            headers.add(name: "Transfer-Encoding", value: "chunked")
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            writeForever(ByteBuffer(bytes: chunk), context: context)
        case .dripping(let interval):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Content-Length", value: "100")
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            drip(every: TimeAmount(interval), context: context)
        }
    }

    private func drip(every interval: TimeAmount, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) {
            let (handler, context) = loopBound.value
            guard context.channel.isActive else { return }
            context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "x")))), promise: nil)
            handler.drip(every: interval, context: context)
        }
    }

    private func writeForever(_ chunk: ByteBuffer, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).whenComplete { result in
            guard case .success = result else { return }
            let (handler, context) = loopBound.value
            handler.writeForever(chunk, context: context)
        }
    }
}

// MARK: - The forecast service's operations

extension FakeReply {
    /// AirKorea's forecast operations: `getMinuDustFrcstDspth` answered with `pm10` or `pm25` by its
    /// `InformCode`, `getMinuDustWeekFrcstDspth` (the weekly outlook) with `weeklyOutlook`; 404 for
    /// any other operation.
    public static func forecastService(_ request: ReceivedRequest, pm10: Data, pm25: Data, weeklyOutlook: Data) -> FakeReply {
        switch request.operation {
        case "getMinuDustFrcstDspth": .respond(status: 200, body: request.query["InformCode"] == "PM25" ? pm25 : pm10)
        case "getMinuDustWeekFrcstDspth": .respond(status: 200, body: weeklyOutlook)
        default: .respond(status: 404, body: Data())
        }
    }
}

// MARK: - Advisories (docs/REFERENCE.md §17)

extension FakeReply {
    /// The synthesized answer of an advisory operation, by operation and `itemCode` (`getUlfptcaAlarmInfo`
    /// PM10 or PM25, `getOzAdvsryOccrrncInfo`), or nil for any other operation, so a script chains it
    /// before its own replies. `approved: false`: the PM service answers that the key is not approved for it
    /// (the gateway's reason 20), as a key without that 활용신청 gets.
    public static func advisories(for request: ReceivedRequest, approved: Bool = true) -> FakeReply? {
        let file: String
        switch request.operation {
        case "getUlfptcaAlarmInfo":
            file =
                !approved
                ? "error-gateway-20-advisory-service-access-denied.xml"
                : request.query["itemCode"] == "PM25" ? "advisories-pm25-2026.xml" : "advisories-pm10-2026.xml"
        case "getOzAdvsryOccrrncInfo":
            file = "advisories-o3-2026.xml"
        default:
            return nil
        }
        let synthesized = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/synthesized")
        return .respond(status: 200, body: (try? Data(contentsOf: synthesized.appendingPathComponent(file))) ?? Data())
    }
}
