import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Synchronization

/// How many connections the web holds open and how long one may sit without a whole request.
/// A connection over the cap makes room by closing the one idle longest (a slowloris's half-sent
/// headers count as idle), so idle and trickling clients can fill the cap but never lock a real
/// request out, and dustd's descriptors stay under `LimitNOFILE=` (systemd/dustd.service).
public struct WebConnectionLimits: Sendable, Hashable {
    /// Open connections at most; the unit's `LimitNOFILE=512` leaves room for the database, the
    /// event loops and the AirKorea and alert clients beside them.
    public var maxConnections: Int
    /// How long a connection may go without a whole request head (or between requests) before it
    /// is closed: the idle, header-read and keep-alive timeout in one.
    public var idleTimeout: Duration

    public init(maxConnections: Int, idleTimeout: Duration) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
    }

    /// One person's phone and browser and a Prometheus scraper need a handful; 64 is plenty.
    public static let standard = WebConnectionLimits(maxConnections: 64, idleTimeout: .seconds(15))
}

/// The web's open connections, never more than the cap: a new one over it closes the connection
/// idle longest, or itself when every one is busy answering.
final class WebConnectionGate: Sendable {
    private struct Entry {
        let channel: any Channel
        var busy: Bool
        /// When it last became idle, as an order: smaller is longer ago.
        var idleSince: UInt64
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var tick: UInt64 = 0
    }

    private let limit: Int
    private let table = Mutex(Table())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Connections open now.
    var count: Int { table.withLock { $0.entries.count } }

    func opened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let victim: (any Channel)? = table.withLock { table in
            table.tick += 1
            table.entries[id] = Entry(channel: channel, busy: false, idleSince: table.tick)
            guard table.entries.count > limit else { return nil }
            let idlest = table.entries.filter { $0.key != id && !$0.value.busy }.min { $0.value.idleSince < $1.value.idleSince }
            let victim = idlest?.value.channel ?? channel
            table.entries[ObjectIdentifier(victim)] = nil
            return victim
        }
        victim?.close(promise: nil)
    }

    func closed(_ channel: any Channel) {
        _ = table.withLock { $0.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// A request head arrived (busy) or its answer was written (idle again).
    func setBusy(_ busy: Bool, _ channel: any Channel) {
        table.withLock { table in
            table.tick += 1
            let tick = table.tick
            guard var entry = table.entries[ObjectIdentifier(channel)] else { return }
            entry.busy = busy
            if !busy { entry.idleSince = tick }
            table.entries[ObjectIdentifier(channel)] = entry
        }
    }
}

/// Each connection's guard, below Hummingbird's request handling: it registers the connection
/// with the gate, puts the security headers on every answer written — Hummingbird's own 400 for
/// a request it cannot parse and errors thrown past the router included — and closes a
/// connection after answering a request that came with a body, so no one can hold it open by
/// trickling a body dustd never reads.
final class WebConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let gate: WebConnectionGate
    private var closeAfterAnswer = false

    init(gate: WebConnectionGate) {
        self.gate = gate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        gate.opened(channel)
        channel.closeFuture.whenComplete { [gate] _ in gate.closed(channel) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            gate.setBusy(true, context.channel)
            if WebSecurityHeaders.carriesBody(request.headerFields) { closeAfterAnswer = true }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            WebSecurityHeaders.apply(to: &response.headerFields)
            if closeAfterAnswer { response.headerFields[.connection] = "close" }
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end:
            context.write(data, promise: promise)
            gate.setBusy(false, context.channel)
            if closeAfterAnswer {
                // A lingering close: the answer and a FIN first, the whole connection a second
                // later. Closing at once with the client's unread body in the socket would send
                // a reset, which can discard the answer before the client reads it.
                context.flush()
                context.close(mode: .output, promise: nil)
                let channel = context.channel
                channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
            }
        case .body:
            context.write(data, promise: promise)
        }
    }
}
