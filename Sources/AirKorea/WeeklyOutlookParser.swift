import DustKit
import Foundation

/// The weekly outlooks of one successful `getMinuDustWeekFrcstDspth` response.
public struct WeeklyOutlookPage: Sendable, Hashable {
    public var outlooks: [WeeklyOutlook]
    public var paging: Paging
    /// Items dropped: a `presnatnDt` FineDust cannot read for sure, or no day with a readable date.
    public var skippedItems: Int
    /// The HTTP status it came with, when it came over HTTP (`AirKoreaClient` sets it).
    public var httpStatus: Int?

    public init(outlooks: [WeeklyOutlook], paging: Paging, skippedItems: Int = 0, httpStatus: Int? = nil) {
        self.outlooks = outlooks
        self.paging = paging
        self.skippedItems = skippedItems
        self.httpStatus = httpStatus
    }
}

extension AirKoreaResponseParser {
    /// The elements of the four days, in order: their date and their `region : word` text.
    private static let dayElements: [(date: Element, content: Element)] = [
        (.frcstOneDt, .frcstOneCn), (.frcstTwoDt, .frcstTwoCn), (.frcstThreeDt, .frcstThreeCn), (.frcstFourDt, .frcstFourCn),
    ]

    /// Parses a `getMinuDustWeekFrcstDspth` answer (docs/REFERENCE.md §17) with the same reader,
    /// envelope, key scrub and key-echo guard as every other answer: one `WeeklyOutlook` per item.
    /// An item whose `presnatnDt` cannot be read for sure is skipped and counted, never guessed at; a
    /// day whose date cannot be read is left out of its outlook.
    public func parseWeeklyOutlooks(_ body: Data) throws(AirKoreaError) -> WeeklyOutlookPage {
        let raw = try parseRaw(body)
        var outlooks: [WeeklyOutlook] = []
        var skipped = 0
        for item in raw.items {
            let fields = item.weeklyOutlook
            guard let published = fields[.presnatnDt].flatMap(Self.date) else {
                skipped += 1
                continue
            }
            let days = Self.dayElements.compactMap { elements -> WeeklyOutlookDay? in
                guard let date = fields[elements.date].flatMap(Self.date) else { return nil }
                return WeeklyOutlookDay(date: date, content: fields[elements.content] ?? "")
            }
            guard !days.isEmpty else {
                skipped += 1
                continue
            }
            outlooks.append(WeeklyOutlook(publishedOn: published, days: days, conditions: fields[.gwthcnd]))
        }
        return WeeklyOutlookPage(outlooks: outlooks, paging: raw.paging, skippedItems: skipped)
    }

    /// `2026-11-22`, also with a time after it (`2026-11-22 17:00`, `2026-11-22 17시`): the date only.
    private static func date(_ text: String) -> LocalDate? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count == 10 || trimmed.dropFirst(10).first == " " else { return nil }
        return LocalDate(trimmed.prefix(10))
    }
}
