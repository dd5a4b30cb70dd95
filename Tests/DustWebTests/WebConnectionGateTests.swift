import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import Testing

@testable import DustWeb

/// The gate's choice of whom to close for a newcomer, on a clock of the test's own (docs/REFERENCE.md §13).
@Suite("The connection gate closes for a newcomer only a connection its loop has read and that stayed silent", .timeLimit(.minutes(10)))
struct WebConnectionGateTests {
    /// Monotonic nanoseconds the test moves by hand.
    final class ManualClock: Sendable {
        private let value = Mutex<UInt64>(1_000_000_000)
        func advance(seconds: Double) { value.withLock { $0 += UInt64(seconds * 1e9) } }
        func rewind(seconds: Double) { value.withLock { $0 -= UInt64(seconds * 1e9) } }
        var now: UInt64 { value.withLock { $0 } }
    }

    /// An open connection, as the gate sees one from a client (at `address`).
    private func connection(from address: String = "127.0.0.1") throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: address, port: 8478)).wait()
        return channel
    }

    @Test("One address holding every place cannot lock another out: the other's newcomer takes its idlest place at once")
    func addressesTakeTurns() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 4, maxWaiting: 8, clock: { clock.now })
        // A stranger's four connections, read by their loops a second ago and silent since: younger than
        // `silentBeforeEviction`, which one device reconnecting whatever dustd closes keeps every place.
        let stranger = try (0..<4).map { _ in try connection(from: "192.168.0.66") }
        for channel in stranger {
            #expect(gate.opened(channel))
            gate.reading(channel)
        }
        clock.advance(seconds: 1)
        // Its own next connection waits, as every connection did on the gate before turns ...
        #expect(!gate.opened(try connection(from: "192.168.0.66")))
        // ... while a phone's is let in at once, in the place of one of the stranger's.
        let phone = try connection(from: "192.168.0.23")
        #expect(gate.opened(phone))
        for channel in stranger { channel.embeddedEventLoop.run() }
        #expect(stranger.filter(\.isActive).count == 3, "one of the stranger's places was given to the phone")
        #expect(gate.count == 4)
        // Three places against one: one more for the phone; two against two: the phone waits like anyone.
        gate.reading(phone)
        let second = try connection(from: "192.168.0.23")
        #expect(gate.opened(second))
        gate.reading(second)
        #expect(!gate.opened(try connection(from: "192.168.0.23")), "two places against two: no turn")
        for channel in stranger { channel.embeddedEventLoop.run() }
        #expect(stranger.filter(\.isActive).count == 2)
        // A busy place (a request being answered) is never given by turns.
        for channel in stranger + [phone, second] { gate.requestRead(channel) }
        #expect(!gate.opened(try connection(from: "192.168.0.31")))
        for channel in stranger { channel.embeddedEventLoop.run() }
        #expect(stranger.filter(\.isActive).count == 2)
    }

    @Test("A time stamped after the newcomer's own is not taken for 584 years of silence: the connection just read stays")
    func stampAfterTheNewcomer() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4, clock: { clock.now })
        let first = try connection()
        #expect(gate.opened(first))
        gate.reading(first)
        // A newcomer whose time is a microsecond older than the stamp: before, the gate read the time
        // before its lock, while another loop stamped a later one, and `now - since` wrapped. The
        // 200-client burst lost a connection so, its request on the way (docs/RELIABILITY.md).
        clock.rewind(seconds: 0.000_001)
        let second = try connection()
        #expect(!gate.opened(second), "the newcomer waits")
        first.embeddedEventLoop.run()
        #expect(first.isActive)
        // The same for a connection answered a moment ago.
        gate.requestRead(first)
        clock.advance(seconds: 0.000_001)
        gate.answerWritten(first)
        clock.rewind(seconds: 0.000_001)
        #expect(!gate.opened(try connection()))
        first.embeddedEventLoop.run()
        #expect(first.isActive)
    }

    @Test("A place is given by turns only once its loop has read it for a second: a request on its way is spared")
    func turnsWaitASecond() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 2, maxWaiting: 8, clock: { clock.now })
        let stranger = try (0..<2).map { _ in try connection(from: "192.168.0.66") }
        for channel in stranger { #expect(gate.opened(channel)) }
        // Let in but not yet read by its loop: never given, however long.
        clock.advance(seconds: 30)
        #expect(!gate.opened(try connection(from: "192.168.0.23")))
        for channel in stranger { gate.reading(channel) }
        clock.advance(seconds: 0.9)
        #expect(!gate.opened(try connection(from: "192.168.0.23")))
        clock.advance(seconds: 0.1)
        #expect(gate.opened(try connection(from: "192.168.0.23")))
    }

    @Test("Room made goes first to the waiting connection of the address holding fewest places; within an address, the oldest")
    func waitingTakeTurns() throws {
        let gate = WebConnectionGate(limit: 2, maxWaiting: 16)
        let stranger = try (0..<2).map { _ in try connection(from: "192.168.0.66") }
        for channel in stranger {
            #expect(gate.opened(channel))
            gate.reading(channel)
            gate.requestRead(channel)
        }
        let queued = try (0..<5).map { _ in try recorded(connection(from: "192.168.0.66")) }
        for (channel, _) in queued { #expect(!gate.opened(channel)) }
        let (phone, phoneLetIn) = try recorded(connection(from: "192.168.0.23"))
        #expect(!gate.opened(phone), "every place is busy: the phone waits")
        // A place frees: the phone, last to come, goes first (the stranger holds one place, the phone none).
        gate.closed(stranger[0])
        for (channel, _) in queued { channel.embeddedEventLoop.run() }
        phone.embeddedEventLoop.run()
        #expect(phoneLetIn.admitted)
        #expect(queued.filter { $0.1.admitted }.isEmpty)
        // The next place: one each, and only the stranger waits, its oldest first.
        gate.closed(stranger[1])
        for (channel, _) in queued { channel.embeddedEventLoop.run() }
        #expect(queued.map { $0.1.admitted } == [true, false, false, false, false])
        #expect(gate.count == 2 && gate.othersWaiting)
    }

    @Test(
        "A flood spread over many addresses, one place each and the queue full: a phone takes a turn in the queue, and the next place a newcomer frees is the phone's"
    )
    func floodFromManyAddresses() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 4, maxWaiting: 8, clock: { clock.now })
        let addresses = (0..<4).map { "192.168.0.\(100 + $0)" }
        // Each address: one place, read and silent, and two connections waiting (12 in all: every place and turn).
        var stranger: [EmbeddedChannel] = []
        for address in addresses {
            let channel = try connection(from: address)
            #expect(gate.opened(channel))
            gate.reading(channel)
            stranger.append(channel)
        }
        var waiting: [EmbeddedChannel] = []
        for address in addresses + addresses {
            let channel = try connection(from: address)
            #expect(!gate.opened(channel))
            waiting.append(channel)
        }
        #expect(gate.count == 4 && gate.othersWaiting)
        // No place has been silent for 5 s and the queue is full: the phone takes the turn of a waiting
        // connection of an address holding three (it was closed at once before).
        let (phone, phoneLetIn) = try recorded(connection(from: "192.168.0.23"))
        #expect(!gate.opened(phone))
        for channel in waiting { channel.embeddedEventLoop.run() }
        phone.embeddedEventLoop.run()
        #expect(phone.isActive && waiting.filter(\.isActive).count == 7, "one of the flood's waiting connections gave its turn")
        // The flood reconnects from its addresses in turn, every place silent for 5 s by then: each silent
        // place it frees goes to the connection owed it first, waiting longest at an address holding no
        // more places, and each newcomer of the flood waits behind the phone. The phone is let in before
        // every connection that was waiting when it came has had its turn.
        var flood = stranger + waiting
        var rounds = 0
        while !phoneLetIn.admitted, rounds < 12 {
            // Each connection let in is read by its loop (a no-op for one still waiting).
            for channel in flood {
                channel.embeddedEventLoop.run()
                if channel.isActive { gate.reading(channel) }
            }
            clock.advance(seconds: 6)
            let newcomer = try connection(from: addresses[rounds % addresses.count])
            #expect(!gate.opened(newcomer), "the flood's newcomer waits")
            flood.append(newcomer)
            phone.embeddedEventLoop.run()
            rounds += 1
        }
        #expect(phoneLetIn.admitted && rounds == 1, "the phone was let in after \(rounds) of the flood's reconnections")
        #expect(gate.count == 4)
        // The queue full, a newcomer from an address whose turns are all taken (half the queue) takes none from anyone.
        let crowded = WebConnectionGate(limit: 1, maxWaiting: 4)
        let first = try connection(from: "192.168.0.66")
        #expect(crowded.opened(first))
        crowded.reading(first)
        crowded.requestRead(first)
        let queued =
            try (0..<2).map { _ in try connection(from: "192.168.0.66") } + [
                try connection(from: "192.168.0.23"), try connection(from: "192.168.0.24"),
            ]
        for channel in queued { #expect(!crowded.opened(channel)) }
        let more = try connection(from: "192.168.0.66")
        #expect(!crowded.opened(more))
        for channel in queued + [more] { channel.embeddedEventLoop.run() }
        #expect(queued.allSatisfy(\.isActive) && !more.isActive)
    }

    @Test("One address may fill half the queue: past it its newcomers are closed, while another's still wait")
    func queueShared() throws {
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4)
        let first = try connection(from: "192.168.0.66")
        #expect(gate.opened(first))
        gate.reading(first)
        gate.requestRead(first)
        let stranger = try (0..<3).map { _ in try connection(from: "192.168.0.66") }
        for channel in stranger { #expect(!gate.opened(channel)) }
        for channel in stranger { channel.embeddedEventLoop.run() }
        #expect(stranger.map(\.isActive) == [true, true, false], "two of four may wait; the third is closed")
        let phone = try connection(from: "192.168.0.23")
        #expect(!gate.opened(phone))
        phone.embeddedEventLoop.run()
        #expect(phone.isActive, "the phone waits in the half left to others")
    }

    @Test("A connection whose address is not known takes no place by turns and gives none")
    func unknownAddress() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 2, maxWaiting: 8, clock: { clock.now })
        let unknown = try (0..<2).map { _ in try connection() }
        for channel in unknown {
            #expect(gate.opened(channel, from: nil))
            gate.reading(channel)
        }
        clock.advance(seconds: 1)
        #expect(!gate.opened(try connection(from: "192.168.0.23")), "two unknown are not one address holding two")
        #expect(!gate.opened(try connection(), from: nil))
    }

    @Test("A connection let in but not yet read by its loop is never closed for a newcomer, however long that takes")
    func notYetRead() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4, clock: { clock.now })
        let first = try connection()
        #expect(gate.opened(first))
        // A loaded machine: the loop has not read the first connection 30 s later. The run of
        // 2026-12-03 closed such a connection (let in, its request in the socket) for a newcomer.
        clock.advance(seconds: 30)
        let second = try connection()
        #expect(!gate.opened(second), "the newcomer waits")
        #expect(first.isActive && gate.count == 1)
        // Now its loop reads it: silent 4.9 s, it stays; 5 s, it gives way.
        gate.reading(first)
        clock.advance(seconds: 4.9)
        let third = try connection()
        #expect(!gate.opened(third))
        clock.advance(seconds: 0.1)
        let fourth = try connection()
        #expect(gate.opened(fourth), "a connection read for 5 s without a request gives way")
        first.embeddedEventLoop.run()
        #expect(!first.isActive, "the silent one is closed")
    }

    @Test("An answered connection gives way after 1 s; a busy one never")
    func answeredAndBusy() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4, clock: { clock.now })
        let first = try connection()
        #expect(gate.opened(first))
        gate.reading(first)
        gate.requestRead(first)
        clock.advance(seconds: 60)
        #expect(!gate.opened(try connection()), "busy: answering, never closed for a newcomer")
        gate.answerWritten(first)
        clock.advance(seconds: 0.9)
        #expect(!gate.opened(try connection()))
        clock.advance(seconds: 0.1)
        #expect(gate.opened(try connection()), "answered and idle 1 s: it gives way")
        first.embeddedEventLoop.run()
        #expect(!first.isActive)
    }

    @Test("A waiting connection let in when one closes counts its silence from its loop's first read, not from the gate's decision")
    func admittedFromTheQueue() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4, clock: { clock.now })
        let first = try connection()
        #expect(gate.opened(first))
        let waiting = try connection()
        #expect(!gate.opened(waiting))
        gate.closed(first)
        #expect(gate.count == 1, "the waiting one is let in")
        // Its `Admitted` has not reached its loop yet after 10 s: not closable.
        clock.advance(seconds: 10)
        #expect(!gate.opened(try connection()))
        gate.reading(waiting)
        clock.advance(seconds: 5)
        #expect(gate.opened(try connection()))
    }

    @Test("An answer handed to the pipeline but not yet written keeps its connection busy: only a written one gives way")
    func answerNotYetWritten() throws {
        let clock = ManualClock()
        let gate = WebConnectionGate(limit: 1, maxWaiting: 4, clock: { clock.now })
        let channel = try connectedHandler(gate)
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/healthz")))
        // Busy once the request is whole (a request still arriving is as closable as a silent connection).
        try channel.writeInbound(HTTPRequestPart.end(nil))
        // The answer's parts reach the socket only when flushed: on a loaded loop that can be seconds
        // after the handler wrote them. A newcomer closing the connection meanwhile would fail the
        // unwritten answer (the burst's connection closed without one, docs/RELIABILITY.md).
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        let end = channel.eventLoop.makePromise(of: Void.self)
        channel.write(HTTPResponsePart.end(nil), promise: end)
        clock.advance(seconds: 60)
        #expect(!gate.opened(try connection()), "its answer has not left: busy")
        channel.flush()
        try end.futureResult.wait()
        clock.advance(seconds: 0.9)
        #expect(!gate.opened(try connection()))
        clock.advance(seconds: 0.1)
        #expect(gate.opened(try connection()), "its answer written and idle 1 s: it gives way")
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test("An answer that has not left a minute after it was whole closes its connection: a client that stops reading holds no slot")
    func answerTimeout() throws {
        let gate = WebConnectionGate(limit: 4, maxWaiting: 4)
        let channel = try connectedHandler(gate)
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.write(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: nil)
        // Never flushed: the client reads nothing, so the answer never leaves.
        channel.write(HTTPResponsePart.end(nil), promise: nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(59))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("A ninth request read while eight answers have not left closes the connection, and is not passed on")
    func pipelinedPastTheLimit() throws {
        let gate = WebConnectionGate(limit: 4, maxWaiting: 4)
        let channel = try connectedHandler(gate)
        let request = HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "x", path: "/login"))
        for _ in 0..<8 {
            try channel.writeInbound(request)
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        #expect(gate.unanswered(channel) == 8 && channel.isActive)
        try channel.writeInbound(request)
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(!channel.isActive)
        var passedOn = 0
        while try channel.readInbound(as: HTTPRequestPart.self) != nil { passedOn += 1 }
        #expect(passedOn == 16)
    }

    /// `channel` with a handler recording the gate's `Admitted`.
    private func recorded(_ channel: EmbeddedChannel) throws -> (EmbeddedChannel, AdmittedRecorder) {
        let recorder = AdmittedRecorder()
        try channel.pipeline.syncOperations.addHandler(recorder)
        return (channel, recorder)
    }

    /// A connection's handler on an embedded channel, connected, the answer timeout a minute.
    func connectedHandler(_ gate: WebConnectionGate) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: WebConnectionHandler(gate: gate, answerTimeout: .seconds(60)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8478)).wait()
        return channel
    }
}

/// Records the gate's `Admitted` reaching a connection.
private final class AdmittedRecorder: ChannelInboundHandler {
    typealias InboundIn = Any
    private(set) var admitted = false

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is WebConnectionGate.Admitted { admitted = true }
        context.fireUserInboundEventTriggered(event)
    }
}
