import Foundation

/// The weekly outlook's two grades for PM2.5 (docs/REFERENCE.md §17): `낮음` (low) and `높음` (high).
public enum OutlookLevel: String, Sendable, Hashable, CaseIterable {
    case low = "낮음"
    case high = "높음"

    /// `low`, `high`: how the JSON documents name it.
    public var englishName: String {
        switch self {
        case .low: "low"
        case .high: "high"
        }
    }
}

/// A word of the weekly outlook: one of its two grades, or a word FineDust does not know (kept as
/// published, like the daily forecast's `ForecastGrade`, so a new word is shown and never guessed at).
public enum OutlookGrade: Sendable, Hashable {
    case known(OutlookLevel)
    case unknown(String)

    /// `낮음` → low, `높음` → high (white space inside ignored); any other word is unknown.
    public init(word: some StringProtocol) {
        if let level = OutlookLevel(rawValue: String(word.filter { !$0.isWhitespace })) {
            self = .known(level)
        } else {
            self = .unknown(TerminalSafeText.sanitized(word.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    /// The grade, when the word was one of the two.
    public var level: OutlookLevel? {
        if case .known(let level) = self { return level }
        return nil
    }

    /// The word as stored: `낮음`/`높음`, or the unknown word as it came.
    public var word: String {
        switch self {
        case .known(let level): level.rawValue
        case .unknown(let word): word
        }
    }
}

/// One of the weekly outlook's four days: the grade of each region and the confidence (`신뢰도`).
public struct WeeklyOutlookDay: Sendable, Hashable {
    /// The key that marks the confidence entry among the regions.
    public static let confidenceKey = "신뢰도"

    /// The day it is about (`frcstOneDt` … `frcstFourDt`).
    public var date: LocalDate
    /// The grade of each of the 19 regions the text names; a region it does not name is absent.
    public var byRegion: [ForecastRegion: OutlookGrade]
    /// Entries whose name is no region FineDust knows, by the name as published: kept, never matched.
    public var unmatchedRegions: [String: OutlookGrade]
    /// `신뢰도`: how sure NIER is of the day, kept apart from the regions; nil when not published.
    public var confidence: OutlookGrade?

    public init(
        date: LocalDate, byRegion: [ForecastRegion: OutlookGrade] = [:], unmatchedRegions: [String: OutlookGrade] = [:],
        confidence: OutlookGrade? = nil
    ) {
        self.date = date
        self.byRegion = byRegion
        self.unmatchedRegions = unmatchedRegions
        self.confidence = confidence
    }

    /// Splits a `frcstOneCn` … `frcstFourCn` text (`서울 : 낮음, 인천 : 낮음, …, 신뢰도 : 높음`) at commas
    /// into `name : word` entries. White space anywhere in a name or word does not matter (`서울:낮음`,
    /// `강원 영동 : 높음`), nor does an empty entry (a trailing comma); an entry without a colon says
    /// nothing and is dropped; a name given twice keeps its last word.
    public init(date: LocalDate, content: some StringProtocol) {
        self.init(date: date)
        for entry in content.split(separator: ",", omittingEmptySubsequences: true) {
            guard let colon = entry.firstIndex(where: { $0 == ":" || $0 == "：" }) else { continue }
            let name = String(entry[..<colon].filter { !$0.isWhitespace })
            guard !name.isEmpty else { continue }
            let grade = OutlookGrade(word: entry[entry.index(after: colon)...])
            if name == Self.confidenceKey {
                confidence = grade
            } else if let region = ForecastRegion(name: name) {
                byRegion[region] = grade
            } else {
                unmatchedRegions[TerminalSafeText.sanitized(name)] = grade
            }
        }
    }
}

/// AirKorea's weekly PM2.5 outlook of one publication (`getMinuDustWeekFrcstDspth`, docs/REFERENCE.md §17).
public struct WeeklyOutlook: Sendable, Hashable {
    /// The day it was published (`presnatnDt`, about 17 KST).
    public var publishedOn: LocalDate
    /// Its days in order (`frcstOneDt` … `frcstFourDt`): four in every real answer.
    public var days: [WeeklyOutlookDay]
    /// `gwthcnd`: the weather behind it, network text made terminal-safe.
    public var conditions: String?

    public init(publishedOn: LocalDate, days: [WeeklyOutlookDay], conditions: String? = nil) {
        self.publishedOn = publishedOn
        self.days = days
        self.conditions = conditions.map(TerminalSafeText.sanitized)
    }

    /// How many of its days are marked `높음` for `region`: the alert metric `outlook.high.days`.
    public func highDays(for region: ForecastRegion) -> Int {
        days.filter { $0.byRegion[region]?.level == .high }.count
    }
}
