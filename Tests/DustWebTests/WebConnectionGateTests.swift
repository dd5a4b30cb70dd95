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
        var now: UInt64 { value.withLock { $0 } }
    }

    /// An open connection, as the gate sees one from a client (at `address`).
    private func connection(from address: String = "127.0.0.1") throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: address, port: 8478)).wait()
        return channel
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

    /// A connection's handler on an embedded channel, connected, the answer timeout a minute.
    func connectedHandler(_ gate: WebConnectionGate) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: WebConnectionHandler(gate: gate, answerTimeout: .seconds(60)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8478)).wait()
        return channel
    }
}
