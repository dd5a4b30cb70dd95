/// What libxml2 is never given: an element with more than `maxAttributes` attributes, counted as the `=`
/// signs between two `<`. libxml2 (2.9) adds each attribute to its element by walking the ones before it,
/// so one start tag of 140,000 empty attributes (under a megabyte) took 39 s of CPU, twenty of them never
/// finished, and an AirKorea answer of three such items took 213 s (docs/RELIABILITY.md, "seventeenth
/// session"). Real tags hold fewer than twenty; text between tags with a thousand `=` is no export either.
public enum AttributeBound {
    public static let maxAttributes = 1_000

    /// The line (from 1) on which a run between two `<` passes `maxAttributes` `=` signs; nil when none does.
    public static func lineOfExcess(in bytes: UnsafeRawBufferPointer) -> Int? {
        var equals = 0
        var line = 1
        for byte in bytes {
            switch byte {
            case 0x3C: equals = 0
            case 0x3D:
                equals += 1
                if equals > maxAttributes { return line }
            case 0x0A: line += 1
            default: continue
            }
        }
        return nil
    }
}
