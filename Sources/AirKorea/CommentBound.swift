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
    /// UTF-32 body is counted as well. The bytes are searched with `memchr` from one `<` to the next.
    static func exceeds(_ limit: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        /// The first byte after `position` that is not one of up to three NULs, with its offset.
        func character(after position: Int) -> (byte: UInt8, offset: Int)? {
            var next = position + 1
            while next < count, bytes[next] == 0, next - position <= 3 { next += 1 }
            return next < count ? (bytes[next], next) : nil
        }
        var openings = 0
        var index = 0
        while index < count, let found = memchr(base + index, 0x3C, count - index) {
            let open = base.distance(to: UnsafeRawPointer(found))
            index = open + 1
            guard let first = character(after: open) else { return false }
            if first.byte == UInt8(ascii: "?") {
                openings += 1
            } else if first.byte == UInt8(ascii: "!"), let dash = character(after: first.offset), dash.byte == UInt8(ascii: "-"),
                let second = character(after: dash.offset), second.byte == UInt8(ascii: "-")
            {
                openings += 1
            } else {
                continue
            }
            if openings > limit + 1 { return true }
        }
        return false
    }
}
