import Foundation

/// What a web answer leaves out that the operator's own `dustctl` shows: file-system paths and
/// dustd's PID, which tell a visitor of the dashboard how the machine is laid out (README.md,
/// "The dashboard, the JSON API and Prometheus metrics").
public struct WebAudience: Sendable, Hashable {
    /// Paths the web knows it must hide even where the generic rule would miss them (a relative
    /// database path, a directory with a space in its name).
    public var knownPaths: [String]

    /// Said in place of a hidden path.
    public static let hiddenPath = "(path hidden)"

    public init(knownPaths: [String]) {
        // Longest first, so a path is never half-replaced by a shorter one it starts with.
        self.knownPaths = knownPaths.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// `text` with every known path and every absolute path (`/…`, `~/…`) replaced. A path starts
    /// at the start of the text or after white space, a quote, an opening bracket, `=` or `,`, so a
    /// URL's path (`https://host/path`), a fraction (`µg/m³`) and a closing tag (`</b>`) stay.
    public func hidingPaths(in text: String) -> String {
        var text = text
        for path in knownPaths { text = text.replacingOccurrences(of: path, with: Self.hiddenPath) }
        var output = ""
        var index = text.startIndex
        var previous: Character?
        while index < text.endIndex {
            let character = text[index]
            if Self.canStartPath(after: previous), let end = Self.pathEnd(in: text, from: index) {
                output += Self.hiddenPath
                previous = text[text.index(before: end)]
                index = end
                continue
            }
            output.append(character)
            previous = character
            index = text.index(after: index)
        }
        return output
    }

    private static func canStartPath(after previous: Character?) -> Bool {
        guard let previous else { return true }
        return previous.isWhitespace || "\"'`([{=,".contains(previous)
    }

    /// Where a path starting at `start` ends, or nil when none starts there: `/` or `~/` followed
    /// by at least one name character; trailing sentence punctuation is not part of it.
    private static func pathEnd(in text: String, from start: String.Index) -> String.Index? {
        var index = start
        if text[index] == "~" {
            index = text.index(after: index)
            guard index < text.endIndex, text[index] == "/" else { return nil }
        } else if text[index] != "/" {
            return nil
        }
        var end = index
        var sawName = false
        while end < text.endIndex, !text[end].isWhitespace, !"\"'`)]}>,;".contains(text[end]) {
            if text[end] != "/" { sawName = true }
            end = text.index(after: end)
        }
        while end > index, ".:!?".contains(text[text.index(before: end)]) { end = text.index(before: end) }
        return sawName ? end : nil
    }
}
