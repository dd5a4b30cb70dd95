extension StringProtocol {
    /// The text without leading and trailing white space: the Unicode `White_Space` characters and
    /// U+200B ZERO WIDTH SPACE, the set Foundation's `CharacterSet.whitespacesAndNewlines` holds.
    ///
    /// For the settings, which every dustctl command reads: the first use of Foundation's
    /// `trimmingCharacters(in:)` sets up CoreFoundation's character sets, 0.2 ms of a run
    /// (docs/PERFORMANCE.md, "Start-up").
    public var trimmingWhiteSpace: String {
        let scalars = unicodeScalars
        let isWhiteSpace = { (scalar: Unicode.Scalar) in scalar.properties.isWhitespace || scalar == "\u{200B}" }
        guard let first = scalars.firstIndex(where: { !isWhiteSpace($0) }),
              let last = scalars.lastIndex(where: { !isWhiteSpace($0) })
        else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }
}
