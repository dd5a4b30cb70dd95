import Foundation

/// What libxml2 is never given: an element with more than `maxAttributes` attributes, counted as the `=`
/// signs between two `<`. libxml2 (2.9) adds each attribute to its element by walking the ones before it,
/// so one start tag of 140,000 empty attributes (under a megabyte) took 39 s of CPU, twenty of them never
/// finished, and an AirKorea answer of three such items took 213 s (docs/RELIABILITY.md, "seventeenth
/// session"). Real tags hold fewer than twenty; text between tags with a thousand `=` is no export either.
public enum AttributeBound {
    public static let maxAttributes = 1_000

    /// The line (from 1) on which a run between two `<` passes `maxAttributes` `=` signs; nil when none does.
    /// The bytes are searched with `memchr` from one `=` to the next, and the lines counted only for
    /// an excess: an AirKorea answer (two `=` in its declaration) costs a tenth of a byte-by-byte walk.
    public static func lineOfExcess(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        func next(_ byte: UInt8, from start: Int) -> Int {
            guard start < count, let found = memchr(base + start, Int32(byte), count - start) else { return count }
            return base.distance(to: UnsafeRawPointer(found))
        }
        var equals = 0
        // The first `<` at or after where the search for the next `=` begins.
        var open = next(0x3C, from: 0)
        var equal = next(0x3D, from: 0)
        while equal < count {
            if open < equal {
                // An element began since the last `=`.
                equals = 0
                open = next(0x3C, from: equal + 1)
            }
            equals += 1
            if equals > maxAttributes {
                return 1 + UnsafeRawBufferPointer(rebasing: bytes[..<equal]).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            }
            equal = next(0x3D, from: equal + 1)
        }
        return nil
    }
}
