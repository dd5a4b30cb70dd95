import NIOCore
import NIOPosix

/// A loopback server that answers every connection with the same bytes, whatever they are, once the
/// request's head has come (or, `atOnce`, its first bytes: a client speaking TLS sends no head), then
/// closes its side and reads until the client closes (so its answer is never lost to a reset): what no
/// HTTP server sends, for the clients that must not trust it.
public final class RawAnswerServer: Sendable {
    private let answer: [UInt8]
    private let atOnce: Bool
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public init(_ answer: String, atOnce: Bool = false) {
        self.answer = Array(answer.utf8)
        self.atOnce = atOnce
    }

    /// Starts listening; returns `http://127.0.0.1:PORT`.
    public func start() async throws -> String {
        let (answer, atOnce) = (answer, atOnce)
        let bound = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawAnswerHandler(answer: answer, atOnce: atOnce))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return "http://127.0.0.1:\(bound.localAddress!.port!)"
    }

    public func stop() async {
        try? await group.shutdownGracefully()
    }
}

private final class RawAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: [UInt8]
    private let atOnce: Bool
    private var received: [UInt8] = []
    private var answered = false

    init(answer: [UInt8], atOnce: Bool) { (self.answer, self.atOnce) = (answer, atOnce) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received.append(contentsOf: unwrapInboundIn(data).readableBytesView)
        guard atOnce || received.firstRange(of: Array("\r\n\r\n".utf8)) != nil else { return }
        answered = true
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).whenComplete { _ in
            bound.value.close(mode: .output, promise: nil)
        }
    }
}
