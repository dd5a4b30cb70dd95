import Foundation

/// What libxml2 is never given: an answer with more comments and processing instructions than
/// `ParserLimits.maxComments`. libxml2's reader (2.9) parses on to the next start or end tag before
/// it hands over a node, and keeps every comment and instruction met on the way, so a count of the
/// nodes read comes too late: a run of a million `<!---->` (7 MB) had taken 157 MB before the first
/// was read. The openings are counted in the bytes first.
enum CommentBound {
    /// Whether `bytes` hold more than `limit` openings of a comment (`<!--`) or a processing
    /// instruction (`<?`), besides one XML declaration. An opening inside a CDATA section or inside
    /// a comment counts too: an over-count, of text AirKorea never sends (the reader counts the nodes
    /// exactly afterwards). Up to three NUL bytes between the characters are skipped, so a UTF-16 or
    /// UTF-32 body is counted as well. The bytes are searched with `memchr` for the `?` and the `!` of
    /// the openings, which an answer otherwise holds almost none of (a `<` opens every tag: stopping at
    /// each cost a tenth of the parse).
    static func exceeds(_ limit: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        /// The byte `steps` characters away from `position` (-1 before it, 1 or 2 after it), skipping up
        /// to three NULs at each step.
        func character(_ steps: Int, from position: Int) -> UInt8? {
            var at = position
            for _ in 0..<abs(steps) {
                var next = at + steps.signum()
                while next >= 0, next < count, bytes[next] == 0, abs(next - at) <= 3 { next += steps.signum() }
                guard next >= 0, next < count else { return nil }
                at = next
            }
            return bytes[at]
        }
        var openings = 0
        for mark in [UInt8(ascii: "?"), UInt8(ascii: "!")] {
            var index = 0
            while index < count, let found = memchr(base + index, Int32(mark), count - index) {
                let at = base.distance(to: UnsafeRawPointer(found))
                index = at + 1
                guard character(-1, from: at) == UInt8(ascii: "<") else { continue }
                if mark == UInt8(ascii: "!"), character(1, from: at) != UInt8(ascii: "-") || character(2, from: at) != UInt8(ascii: "-") {
                    continue
                }
                openings += 1
                if openings > limit + 1 { return true }
            }
        }
        return false
    }
}
