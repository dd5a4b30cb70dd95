import Crypto
import DustKit
import Foundation
import Synchronization

/// The answers dustd computed, kept until what they came from changes (docs/REFERENCE.md §13,
/// "Answers kept"): a page or document depends on the stored data (the database's data generation,
/// which every write raises), the settings (`LiveConfiguration`'s generation), who asks, what they
/// ask, and the clock (a document on the hour, as the hours that have begun; a page on the minute,
/// as its health line says how long ago the last hour ended). Home Assistant, Prometheus and a
/// phone left open ask the same few questions all day: each is computed once per change.
///
/// Bounded in bytes; an answer of an older generation or an earlier clock step is never served
/// again and goes at the next keep.
final class WebAnswerCache: Sendable {
    /// How finely an answer depends on the clock.
    enum Freshness: Sendable {
        /// The documents: what changes with the clock changes on the hour.
        case hour
        /// The pages: their health line counts minutes.
        case minute

        func step(_ now: Date) -> Int64 {
            let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
            let length: Int64 = self == .hour ? 3600 : 60
            return seconds >= 0 ? seconds / length : (seconds - length + 1) / length
        }
    }

    struct Key: Hashable, Sendable {
        var principal: WebPrincipal
        /// The path and query as asked.
        var target: String
        /// The page's language as negotiated; nil for documents.
        var language: String?
        var signedInByCookie: Bool
        var dataGeneration: Int64
        var settingsGeneration: Int
        var clockStep: Int64
    }

    /// A kept answer and its entity tag (`ETag`).
    struct Answer: Sendable {
        var reply: WebReply
        var entityTag: String
    }

    private struct Entry {
        var answer: Answer
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var uses: UInt64 = 0
        var hits = 0
        var misses = 0
    }

    /// The most the kept answers' texts may take together (a page is about 40 KB, a document 5): a
    /// household's pages and documents many times over. Requests each asking something new fill it
    /// (every answer computed, none asked again), and glibc keeps what the evicted ones freed: 2 MiB
    /// held 2.1-2.7 MiB more of dustd's memory than 1 MiB (docs/PERFORMANCE.md, "dustd serving the demo").
    let byteBudget: Int
    private let state = Mutex(State())

    init(byteBudget: Int = 1 << 20) {
        self.byteBudget = byteBudget
    }

    /// The answer kept for `key`, if any.
    func answer(for key: Key) -> Answer? {
        state.withLock { state in
            guard var entry = state.entries[key] else {
                state.misses += 1
                return nil
            }
            state.uses += 1
            entry.lastUse = state.uses
            state.entries[key] = entry
            state.hits += 1
            return entry.answer
        }
    }

    /// Keeps `reply` for `key` and returns it with its entity tag; forgets every answer of another
    /// generation or an earlier clock step (none can be asked for again), then the least recently
    /// used while over the budget. An answer larger than the whole budget is not kept.
    @discardableResult
    func keep(_ reply: WebReply, for key: Key) -> Answer {
        let digest = SHA256.hash(data: Data(reply.text.utf8))
        let tag = "\"" + digest.prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
        let answer = Answer(reply: reply, entityTag: tag)
        let bytes = reply.text.utf8.count + 256
        guard bytes <= byteBudget else { return answer }
        state.withLock { state in
            for (old, entry) in state.entries
            where old.dataGeneration != key.dataGeneration || old.settingsGeneration != key.settingsGeneration
                || old.clockStep < key.clockStep && Self.sameFreshness(old, key)
            {
                state.entries[old] = nil
                state.bytes -= entry.bytes
            }
            if let replaced = state.entries[key] { state.bytes -= replaced.bytes }
            state.uses += 1
            state.entries[key] = Entry(answer: answer, bytes: bytes, lastUse: state.uses)
            state.bytes += bytes
            while state.bytes > byteBudget, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.bytes
            }
        }
        return answer
    }

    /// Pages and documents step their clocks differently: a page's minute is compared with pages only.
    private static func sameFreshness(_ a: Key, _ b: Key) -> Bool { (a.language == nil) == (b.language == nil) }

    /// How many answers are kept, their bytes, and the hits and misses so far (for tests and the benchmarks).
    var statistics: (entries: Int, bytes: Int, hits: Int, misses: Int) {
        state.withLock { ($0.entries.count, $0.bytes, $0.hits, $0.misses) }
    }
}
