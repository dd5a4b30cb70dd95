/// How far apart two spellings are, for "did you mean" (a misspelt key, a station name).
public enum SpellingDistance {
    /// The characters of a name compared: a real key or station name is far shorter, and the distance
    /// costs the product of the two lengths (a 10,000-character `--station` against 686 stations took
    /// 12 s of CPU before this bound).
    public static let comparedCharacters = 64

    /// Levenshtein distance over characters, ignoring case, of the first `comparedCharacters` of each.
    public static func between(_ a: String, _ b: String) -> Int {
        let a = Array(a.prefix(comparedCharacters).lowercased())
        let b = Array(b.prefix(comparedCharacters).lowercased())
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The candidate closest to `name`; the first of equally close ones.
    public static func nearest(to name: String, among candidates: [String]) -> String? {
        let name = String(name.prefix(comparedCharacters))
        return candidates.map { ($0, between($0, name)) }.min { $0.1 < $1.1 }?.0
    }

    /// Up to `count` candidates closest to `name`, closest first (equally close ones in their order),
    /// a name holding `name` or held in it counted closest: `종로` finds `종로구`.
    public static func nearest(_ count: Int, to name: String, among candidates: [String]) -> [String] {
        let name = String(name.prefix(comparedCharacters))
        let ranked = candidates.enumerated().map { index, candidate in
            let contained = candidate.contains(name) || name.contains(candidate)
            return (candidate, contained ? 0 : 1, between(candidate, name), index)
        }
        return ranked.sorted { ($0.1, $0.2, $0.3) < ($1.1, $1.2, $1.3) }.prefix(count).map(\.0)
    }
}
