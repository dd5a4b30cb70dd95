import Dispatch
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
    /// Connections that may wait, unread, for room when none can be made (twice the cap unless
    /// said): a burst of clients is answered late, not refused, and descriptors stay bounded.
    public var maxWaiting: Int
    /// How long an answer may take to leave once it is whole: a client that stops reading held its
    /// connection, busy (so never closed for a newcomer), for as long as it liked, and 64 of them the
    /// web. A minute leaves a phone on a poor network its page.
    public var answerTimeout: Duration

    public init(maxConnections: Int, idleTimeout: Duration, maxWaiting: Int? = nil, answerTimeout: Duration = .seconds(60)) {
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.maxWaiting = maxWaiting ?? 2 * maxConnections
        self.answerTimeout = answerTimeout
    }

    /// One person's phone and browser and a Prometheus scraper need a handful; 64 is plenty.
    public static let standard = WebConnectionLimits(maxConnections: 64, idleTimeout: .seconds(15))
}

/// The web's open connections, never more than the cap answered at once: a new one over it closes
/// the connection idle longest (answered and silent since for `idleBeforeEviction`, or read by its
/// loop for `silentBeforeEviction` without sending a whole request); when none is, it waits, unread, until one closes (at most
/// `WebConnectionLimits.maxWaiting` wait; past that it takes a turn from an address holding more, or is
/// closed), and every answer meanwhile ends its connection so that kept-alive clients take turns. A burst
/// of clients is answered late, not refused.
///
/// Addresses take turns: one device reconnecting whatever the gate closes kept every place younger
/// than `silentBeforeEviction` and the queue full of its own, and locked every other client out
/// (docs/RELIABILITY.md, twentieth session). So a newcomer from an address holding at least two
/// places fewer than another takes the place of that address's idlest connection once it has been
/// read for `idleBeforeEviction` with no request unanswered; an address may fill at most half the
/// queue; and room made goes first to the oldest waiting connection of the address holding fewest
/// places, of those the one let in least lately. A flood spread over many addresses, one place each,
/// did the same (twenty-fifth session): with the queue full, a newcomer from an address holding two
/// connections fewer than another takes that address's newest turn (`turnInQueueGiven`), and a place
/// closed for a newcomer goes first to the connection waiting that room made would let in, when it is
/// another address's holding no more places. Each connection's address is taken once, when it opens:
/// within one address none of these rules can fire, so a burst from one address is served in the order
/// it came.
///
/// A waiting connection is held by its `WebConnectionHandler`, which keeps the pipeline's reads from
/// the socket until the gate lets it in (`Admitted`). The gate never touches `autoRead`: a read asked
/// of a channel not yet registered is remembered by NIO as pending and never issued once it is, which
/// left one connection of a burst now and then unread until its idle timeout.
final class WebConnectionGate: Sendable {
    private struct Entry {
        let channel: any Channel
        /// Its peer's IP address (no port), taken once when it opened; nil when the socket could not
        /// tell it (a peer gone before it was accepted). nil never stands for another address: such a
        /// connection neither takes a place by turns nor gives one up by them.
        let peer: String?
        /// Let in (counted against the cap), or waiting for room, unread.
        var admitted: Bool
        /// Request heads read whose answers have not left yet (more than one when a client pipelines).
        var unanswered = 0
        /// An answer was written: between requests now, a kept-alive client.
        var answered = false
        /// Since when it has been read without a request or answered (monotonic nanoseconds: smaller
        /// is longer ago): from when its own loop started reading it, or from its last answer. nil while
        /// let in but not yet read by its loop, which a loaded machine can take seconds to do: such a
        /// connection has had no chance to be busy and is never closed for a newcomer.
        var idleSince: UInt64?
    }

    /// Kept under one lock; every count is updated as entries come and go, so no decision asks a
    /// channel anything while the lock is held.
    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The waiting connections of each address (nil: not known), each list oldest first.
        var waiting: [String?: [(id: ObjectIdentifier, order: UInt64)]] = [:]
        var waitingCount = 0
        /// Places let in, by address.
        var places: [String?: Int] = [:]
        var admitted = 0
        /// Connections opened so far: a waiting one's turn in the order of coming.
        var opened: UInt64 = 0
        /// Connections let in so far, and when (in that count) each address holding a place or a turn was
        /// last let in: an address not let in since it came has none.
        var lettings: UInt64 = 0
        var lastLetIn: [String?: UInt64] = [:]

        mutating func admit(_ id: ObjectIdentifier, _ entry: Entry) {
            var entry = entry
            entry.admitted = true
            entries[id] = entry
            places[entry.peer, default: 0] += 1
            admitted += 1
            lettings += 1
            lastLetIn[entry.peer] = lettings
        }

        /// Takes an entry out, with its place or its turn in the queue.
        @discardableResult
        mutating func remove(_ id: ObjectIdentifier) -> Entry? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            if entry.admitted {
                admitted -= 1
                let left = (places[entry.peer] ?? 1) - 1
                places[entry.peer] = left > 0 ? left : nil
            } else {
                waiting[entry.peer]?.removeAll { $0.id == id }
                if waiting[entry.peer]?.isEmpty == true { waiting[entry.peer] = nil }
                waitingCount -= 1
            }
            if places[entry.peer] == nil, waiting[entry.peer] == nil { lastLetIn[entry.peer] = nil }
            return entry
        }

        /// The waiting connection to let in next: the oldest of the address holding fewest places, and of
        /// those the one let in least lately (a flood over many addresses holds as few places as a phone,
        /// and has been let in again and again as it reconnects).
        func nextWaiting() -> ObjectIdentifier? {
            var best: (peer: String?, held: Int, served: UInt64, order: UInt64)?
            for (peer, queue) in waiting {
                guard let first = queue.first else { continue }
                let held = places[peer] ?? 0
                let served = lastLetIn[peer] ?? 0
                if let chosen = best, (chosen.held, chosen.served, chosen.order) <= (held, served, first.order) { continue }
                best = (peer, held, served, first.order)
            }
            guard let chosen = best else { return nil }
            return waiting[chosen.peer]?.first?.id
        }
    }

    /// How long a kept-alive connection must have gone without a request since its last answer to be
    /// closed for a newcomer; and how long one of an address holding more places than the newcomer's
    /// must have been read without a whole request to give its place by turns. A client's request is
    /// read within milliseconds of its loop starting to read it, so a second spares one whose request
    /// is on its way, while a flood's places, kept by `silentBeforeEviction` up to five seconds old,
    /// are mostly older.
    static let idleBeforeEviction: UInt64 = 1_000_000_000
    /// How long one let in must have been read by its loop without sending a whole request head to be
    /// closed for a newcomer: a client of a burst whose request a loaded loop has not parsed yet is about
    /// to be busy, while a slowloris's silent or trickling connections still give way within seconds,
    /// not the idle timeout. The clock starts when the loop starts reading (`reading`), not when the gate
    /// lets it in: a loaded machine can take seconds between the two.
    static let silentBeforeEviction: UInt64 = 5_000_000_000

    /// What a held connection's handler receives, on its loop, when the gate lets it in.
    struct Admitted: Sendable {}

    /// What the gate does to connections once the table is updated (outside its lock).
    private struct Moves {
        var close: [any Channel] = []
        var admit: [any Channel] = []

        func apply() {
            for channel in close { channel.eventLoop.execute { channel.close(promise: nil) } }
            for channel in admit {
                // Queued on the channel's loop, so after the `handlerAdded` that held it.
                channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(Admitted()) }
            }
        }
    }

    private let limit: Int
    private let maxWaiting: Int
    /// Connections of one address that may wait: half the queue, so one address leaves room in it for others.
    private let maxWaitingPerAddress: Int
    private let table = Mutex(Table())
    /// Monotonic nanoseconds, read only while the lock is held: a time read before it could be older
    /// than one another loop then stamped in the table, `now - since` wrapped to 584 years, and a
    /// connection its loop had just started reading, its request on the way, was closed unanswered for
    /// a newcomer (docs/RELIABILITY.md, twentieth session).
    private let clock: @Sendable () -> UInt64

    init(limit: Int, maxWaiting: Int, clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.limit = max(limit, 1)
        self.maxWaiting = max(maxWaiting, 0)
        self.maxWaitingPerAddress = (self.maxWaiting + 1) / 2
        self.clock = clock
    }

    /// Connections let in now, being answered or idle (not those waiting).
    var count: Int { table.withLock { $0.admitted } }

    /// A connection opened: true when it is let in now, false when it waits for `Admitted` (or is closed).
    /// Its address is asked of the channel here, once, outside the lock.
    func opened(_ channel: any Channel) -> Bool {
        opened(channel, from: channel.remoteAddress?.ipAddress)
    }

    /// A connection from `peer` (nil: not known) opened.
    func opened(_ channel: any Channel, from peer: String?) -> Bool {
        let id = ObjectIdentifier(channel)
        let (moves, admitted): (Moves, Bool) = table.withLock { table in
            var moves = Moves()
            let now = clock()
            table.opened += 1
            let entry = Entry(channel: channel, peer: peer, admitted: false, idleSince: nil)
            if table.admitted < limit {
                table.admit(id, entry)
                return (moves, true)
            }
            if let giving = Self.placeGiven(to: peer, in: table, now: now), let gone = table.remove(giving) {
                // It leaves (its `closed` finds it gone). The place goes to whoever is owed it first: the
                // waiting connection `closed` would let in, when it is another address's holding no more
                // places than the newcomer's (it came first); else the newcomer. Given to newcomers alone,
                // the places a flood from many addresses freed went to its own next connections, never to
                // anyone waiting.
                moves.close.append(gone.channel)
                if let next = table.nextWaiting(), let waiting = table.entries[next], let peer, let owed = waiting.peer, owed != peer,
                    (table.places[owed] ?? 0) <= (table.places[peer] ?? 0), let letIn = table.remove(next)
                {
                    table.admit(next, letIn)
                    moves.admit.append(letIn.channel)
                } else {
                    table.admit(id, entry)
                    return (moves, true)
                }
            }
            let mine = table.waiting[peer]?.count ?? 0
            if mine < maxWaitingPerAddress, table.waitingCount < maxWaiting || Self.turnInQueueGiven(to: peer, in: &table, moves: &moves) {
                table.entries[id] = entry
                table.waiting[peer, default: []].append((id, table.opened))
                table.waitingCount += 1
            } else {
                moves.close.append(channel)
            }
            return (moves, false)
        }
        moves.apply()
        return admitted
    }

    /// Whose place a newcomer from `peer` takes when the cap is full, if anyone's: by turns, the idlest
    /// of the address holding most (at least two more than `peer`), read for `idleBeforeEviction` with
    /// no request unanswered; else the idlest of anyone's answered and idle for `idleBeforeEviction`, or
    /// read and silent for `silentBeforeEviction`.
    private static func placeGiven(to peer: String?, in table: Table, now: UInt64) -> ObjectIdentifier? {
        let mine = peer.map { table.places[$0] ?? 0 }
        var byTurns: (id: ObjectIdentifier, held: Int, since: UInt64)?
        var idlest: (id: ObjectIdentifier, since: UInt64)?
        for (id, entry) in table.entries {
            guard entry.admitted, entry.unanswered == 0, let since = entry.idleSince else { continue }
            // Never wraps: every time is read under the lock (see `clock`).
            let idleFor = now > since ? now - since : 0
            if let mine, entry.peer != nil, idleFor >= idleBeforeEviction {
                let held = table.places[entry.peer] ?? 0
                // More held first; within an address, the longest silent.
                if held > mine + 1, byTurns.map({ held > $0.held || (held == $0.held && since < $0.since) }) ?? true {
                    byTurns = (id, held, since)
                }
            }
            if idleFor >= (entry.answered ? idleBeforeEviction : silentBeforeEviction), idlest.map({ since < $0.since }) ?? true {
                idlest = (id, since)
            }
        }
        return byTurns?.id ?? idlest?.id
    }

    /// With the queue full, a newcomer from `peer` takes a turn in it from the address holding most
    /// connections (let in and waiting), at least two more than `peer`'s: that address's newest waiting
    /// connection is closed. A flood spread over many addresses filled the queue with one or two of each
    /// and every other client was closed at once (docs/RELIABILITY.md, twenty-fifth session).
    private static func turnInQueueGiven(to peer: String?, in table: inout Table, moves: inout Moves) -> Bool {
        guard let peer else { return false }
        let mine = (table.places[peer] ?? 0) + (table.waiting[peer]?.count ?? 0)
        var most: (peer: String, holding: Int)?
        for (address, queue) in table.waiting {
            guard let address, !queue.isEmpty else { continue }
            let holding = (table.places[address] ?? 0) + queue.count
            if holding >= mine + 2, most.map({ holding > $0.holding || (holding == $0.holding && address < $0.peer) }) ?? true {
                most = (address, holding)
            }
        }
        guard let most, let newest = table.waiting[most.peer]?.last, let gone = table.remove(newest.id) else { return false }
        moves.close.append(gone.channel)
        return true
    }

    func closed(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let moves: Moves = table.withLock { table in
            var moves = Moves()
            table.remove(id)
            while table.admitted < limit, let next = table.nextWaiting(), let entry = table.remove(next) {
                table.admit(next, entry)
                moves.admit.append(entry.channel)
            }
            return moves
        }
        moves.apply()
    }

    /// A connection let in is read from now, on its own loop: its silence counts from here.
    func reading(_ channel: any Channel) {
        table.withLock { table in
            let now = clock()
            guard var entry = table.entries[ObjectIdentifier(channel)], entry.admitted, entry.idleSince == nil else { return }
            entry.idleSince = now
            table.entries[ObjectIdentifier(channel)] = entry
        }
    }

    /// Requests read on `channel` whose answers have not left yet.
    func unanswered(_ channel: any Channel) -> Int { table.withLock { $0.entries[ObjectIdentifier(channel)]?.unanswered ?? 0 } }

    /// A request head arrived: the connection is busy until its answer has left.
    func requestRead(_ channel: any Channel) {
        table.withLock { table in
            guard var entry = table.entries[ObjectIdentifier(channel)] else { return }
            entry.unanswered += 1
            table.entries[ObjectIdentifier(channel)] = entry
        }
    }

    /// An answer has left for the socket (its write succeeded): idle again once every request read is
    /// answered. Not when the answer is handed to the pipeline: closing a connection for a newcomer
    /// then would fail the answer's unwritten bytes, and its client would read nothing.
    func answerWritten(_ channel: any Channel) {
        table.withLock { table in
            let now = clock()
            guard var entry = table.entries[ObjectIdentifier(channel)] else { return }
            entry.unanswered = max(entry.unanswered - 1, 0)
            if entry.unanswered == 0 {
                entry.idleSince = now
                entry.answered = true
            }
            table.entries[ObjectIdentifier(channel)] = entry
        }
    }

    /// Whether connections wait for room: an answer then ends its connection (`Connection: close`),
    /// so a kept-alive client takes its turn again behind them.
    var othersWaiting: Bool { table.withLock { $0.waitingCount > 0 } }
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
    /// Waiting for room: the pipeline's reads are kept from the socket until `Admitted`.
    private var held = false
    /// A read was asked while held.
    private var readWanted = false
    private var closeAfterAnswer = false
    /// Others wait for room: this answer ends the connection (no body unread, so at once).
    private var makeRoom = false
    /// Closes the connection when a request's body is not whole in time (`bodyTimeout`).
    private var bodyDeadline: Scheduled<Void>?
    /// The connection is being closed for pipelining past `maxPipelined`: what is still read is dropped.
    private var refusing = false

    /// Requests a connection may have read whose answers have not left. Browsers, Home Assistant,
    /// Prometheus and curl send one at a time; a client that sent thousands in one write and never read
    /// an answer had each held, parsed, in memory (64 such connections took dustd past 400 MiB, beyond the
    /// unit's `MemoryMax=`, and the web answered no one for 40 s). The connection is closed instead.
    static let maxPipelined = 8
    /// `WebConnectionLimits.answerTimeout`.
    private let answerTimeout: TimeAmount
    /// Closes the connection when the answer being written has not left in time: armed at its head
    /// (an answer larger than the socket's buffers never reaches its end while the client reads nothing).
    private var answerDeadline: Scheduled<Void>?

    /// How long a request's body (a sign-in form's few hundred bytes) may take after its head: a client
    /// trickling a byte every few seconds would otherwise hold its connection, busy, for as long as it
    /// likes, and 64 of them the whole web (the idle timeout restarts with every byte). Ten seconds leave
    /// a phone on a lossy network its retransmissions.
    static let bodyTimeout: TimeAmount = .seconds(10)

    init(gate: WebConnectionGate, answerTimeout: Duration) {
        self.gate = gate
        self.answerTimeout = TimeAmount(answerTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        held = !gate.opened(channel)
        channel.closeFuture.whenComplete { [gate] _ in gate.closed(channel) }
        if !held, channel.isActive { gate.reading(channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        // NIO asks for the first read now: a connection let in is read from here on.
        if !held { gate.reading(context.channel) }
        context.fireChannelActive()
    }

    func read(context: ChannelHandlerContext) {
        guard held else { return context.read() }
        readWanted = true
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is WebConnectionGate.Admitted else { return context.fireUserInboundEventTriggered(event) }
        guard held else { return }
        held = false
        // Before the channel is active, NIO asks for the first read itself once it is (and would take
        // a read asked now for one still pending): pass on only a read of an active channel.
        // `channelActive` starts the silence's clock of one not active yet.
        guard context.channel.isActive else { return }
        gate.reading(context.channel)
        if readWanted {
            readWanted = false
            context.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let request):
            if gate.unanswered(context.channel) >= Self.maxPipelined {
                refusing = true
                context.close(promise: nil)
                return
            }
            if WebSecurityHeaders.carriesBody(request.headerFields) {
                closeAfterAnswer = true
                let channel = context.channel
                bodyDeadline = context.eventLoop.scheduleTask(in: Self.bodyTimeout) { channel.close(promise: nil) }
            }
        case .body:
            break
        case .end:
            // Busy from here until the answer has left. A request still arriving is not busy: when the cap is
            // full a newcomer may close it as it would a silent connection (or, on a kept-alive one, after a
            // second since its last answer), and its body has `bodyTimeout` in any case.
            bodyDeadline?.cancel()
            bodyDeadline = nil
            gate.requestRead(context.channel)
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        answerDeadline?.cancel()
        answerDeadline = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response):
            let channel = context.channel
            answerDeadline?.cancel()
            answerDeadline = context.eventLoop.scheduleTask(in: answerTimeout) { channel.close(promise: nil) }
            WebSecurityHeaders.apply(to: &response.headerFields)
            if gate.othersWaiting { makeRoom = true }
            if closeAfterAnswer || makeRoom { response.headerFields[.connection] = "close" }
            context.write(wrapOutboundOut(.head(response)), promise: promise)
        case .end where makeRoom && !closeAfterAnswer:
            // Closed once the whole answer is written, however slowly the client reads it.
            let channel = context.channel
            let written = answerLeaving(channel, context.eventLoop, promise)
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.write(data, promise: written)
            context.flush()
        case .end:
            context.write(data, promise: answerLeaving(context.channel, context.eventLoop, promise))
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

    /// The promise of an answer's end: the caller's, and the gate told once the answer has left.
    private func answerLeaving(
        _ channel: any Channel, _ loop: any EventLoop, _ promise: EventLoopPromise<Void>?
    ) -> EventLoopPromise<Void> {
        let written = loop.makePromise(of: Void.self)
        written.futureResult.cascade(to: promise)
        written.futureResult.whenSuccess { [gate] in gate.answerWritten(channel) }
        // The deadline armed at the answer's head ends once the whole answer has left.
        if let deadline = answerDeadline {
            answerDeadline = nil
            written.futureResult.whenComplete { _ in deadline.cancel() }
        }
        return written
    }
}
