extension String {
    /// The text without leading and trailing white space: the Unicode `White_Space` characters and
    /// U+200B ZERO WIDTH SPACE, the set Foundation's `CharacterSet.whitespacesAndNewlines` holds.
    ///
    /// For the settings, which every dustctl command reads: the first use of Foundation's
    /// `trimmingCharacters(in:)` sets up CoreFoundation's character sets, 0.2 ms of a run
    /// (docs/PERFORMANCE.md, "Start-up"). Not generic on purpose: an unspecialised generic
    /// would ask the Swift runtime for its types' metadata and conformances at run time.
    public var trimmingWhiteSpace: String {
        let scalars = unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, Self.isWhiteSpace(scalars[start]) {
            start = scalars.index(after: start)
        }
        while start < end {
            let last = scalars.index(before: end)
            guard Self.isWhiteSpace(scalars[last]) else { break }
            end = last
        }
        if start == scalars.startIndex, end == scalars.endIndex { return self }
        return String(Substring(scalars[start..<end]))
    }

    private static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace || scalar == "\u{200B}"
    }
}
