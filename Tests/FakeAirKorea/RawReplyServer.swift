import NIOCore
import NIOPosix

/// A loopback TCP server that answers every connection's first bytes with `reply` as it is, then
/// closes: something at an HTTP client's address that does not speak HTTP (an SSH banner, a broken
/// chunk size, an unknown version).
public final class RawReplyServer: Sendable {
    private let reply: [UInt8]
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    public init(reply: [UInt8]) {
        self.reply = reply
    }

    /// Starts listening; returns `http://127.0.0.1:PORT`.
    public func start() async throws -> String {
        let reply = reply
        let bound = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(RawReplyHandler(reply: reply)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return "http://127.0.0.1:\(bound.localAddress!.port!)"
    }

    public func stop() async {
        try? await group.shutdownGracefully()
    }
}

private final class RawReplyHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let reply: [UInt8]

    init(reply: [UInt8]) {
        self.reply = reply
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: reply))).whenComplete { _ in loopBound.value.close(promise: nil) }
    }
}
