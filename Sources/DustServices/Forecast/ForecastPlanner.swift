import AirKorea
import DustKit
import Foundation

/// When dustd fetches forecasts: pure rules on explicit times.
///
/// NIER publishes at about 05, 11, 17 and 23 KST; dustd fetches each publication at
/// `fetchMinute` past its hour, both pollutants (2 calls), so 8 scheduled calls a day. **The daily
/// cap is 12 calls**: the 8 scheduled, 2 kept for the weekly outlook, and the rest for the catch-up
/// and retries. A start at any hour with no stored issue as new as the latest publication fetches
/// that publication at once (a start at 01:40 KST fetches the 23시 issue then, not at 05:30), because
/// the spare calls cover one catch-up even when every scheduled fetch of the day is still ahead. A
/// retry or catch-up only spends calls that the day's remaining scheduled fetches and the outlook
/// do not need (each later publication supersedes the one before, so a failed fetch that cannot be
/// retried is simply replaced at the next one). 12 is 2.4 % of the 500 calls a day a development key
/// allows for the operation.
public struct ForecastPlanner: Sendable {
    /// Calls one publication costs: PM10 and PM25.
    public static let callsPerFetch = 2
    /// The most forecast calls in one KST day, whatever fails.
    public static let dailyCallCap = 12
    /// Calls kept every day for the weekly outlook, which this planner never spends.
    public static let outlookReserve = 2
    /// The minute past a publication hour at which it is fetched (the API lags the publication).
    public static let fetchMinute = 30

    public init() {}

    /// What to do now.
    public enum Decision: Sendable, Hashable {
        /// Fetch the publication at `publication`, asking for `searchDate` (its KST date).
        case fetch(publication: Date, searchDate: LocalDate)
        /// Nothing to do before `until`.
        case wait(until: Date)
    }

    /// The last failed attempt at the current publication.
    public struct Failure: Sendable, Hashable {
        public var at: Date
        /// How many attempts in a row failed (1 after the first).
        public var attempts: Int
        public var advice: RetryAdvice

        public init(at: Date, attempts: Int, advice: RetryAdvice) {
            self.at = at
            self.attempts = attempts
            self.advice = advice
        }
    }

    /// Decides from `now`, the newest publication already fetched (both pollutants), the calls
    /// made today (KST) and the last failure, if the last attempt failed.
    public func decide(now: Date, lastFetched: Date?, callsToday: Int, failure: Failure?) -> Decision {
        let next = nextFetchTime(after: now)
        // The daily quota is gone: nothing before the first scheduled fetch of the next KST day.
        if let failure, failure.advice == .waitUntilMidnightKST, now < KoreaStandardTime.nextMidnight(after: failure.at) {
            return .wait(until: nextFetchTime(after: KoreaStandardTime.nextMidnight(after: failure.at)))
        }
        let due = latestPublication(fetchableBy: now)
        if let lastFetched, lastFetched >= due { return .wait(until: next) }
        var earliest = now
        // A failure before this publication's fetch time belongs to an older publication.
        if let failure, failure.at >= fetchTime(of: due) {
            switch failure.advice {
            case .waitForNextHour: return .wait(until: next)
            case .retryWithBackoff: earliest = max(now, failure.at.addingTimeInterval(retryDelay(attempt: failure.attempts)))
            case .waitAMinute: earliest = max(now, failure.at.addingTimeInterval(60))
            case .waitUntilMidnightKST: break
            }
        }
        guard earliest < next else { return .wait(until: next) }
        let calls = KoreaStandardTime.date(containing: earliest) == KoreaStandardTime.date(containing: now) ? callsToday : 0
        guard spareCalls(at: earliest, callsToday: calls) >= Self.callsPerFetch else { return .wait(until: next) }
        if earliest > now { return .wait(until: earliest) }
        return .fetch(publication: due, searchDate: KoreaStandardTime.date(containing: due))
    }

    /// Calls the rest of the KST day's scheduled fetches after `instant` and the outlook do not need.
    public func spareCalls(at instant: Date, callsToday: Int) -> Int {
        let day = KoreaStandardTime.date(containing: instant)
        let laterToday = ForecastIssueTime.publicationHours.map { fetchTime(of: KoreaStandardTime.instant(hour: $0, of: day)) }.filter {
            $0 > instant
        }.count
        return Self.dailyCallCap - Self.outlookReserve - callsToday - laterToday * Self.callsPerFetch
    }

    /// The newest publication whose fetch time is at or before `now`.
    public func latestPublication(fetchableBy now: Date) -> Date {
        let today = KoreaStandardTime.date(containing: now)
        for day in [today, today.adding(days: -1)] {
            for hour in ForecastIssueTime.publicationHours.reversed() {
                let publication = KoreaStandardTime.instant(hour: hour, of: day)
                if fetchTime(of: publication) <= now { return publication }
            }
        }
        return KoreaStandardTime.instant(hour: ForecastIssueTime.publicationHours[0], of: today.adding(days: -1))
    }

    /// The first scheduled fetch strictly after `now`.
    public func nextFetchTime(after now: Date) -> Date {
        let today = KoreaStandardTime.date(containing: now)
        for day in [today, today.adding(days: 1)] {
            for hour in ForecastIssueTime.publicationHours {
                let time = fetchTime(of: KoreaStandardTime.instant(hour: hour, of: day))
                if time > now { return time }
            }
        }
        return fetchTime(of: KoreaStandardTime.instant(hour: ForecastIssueTime.publicationHours[0], of: today.adding(days: 1)))
    }

    /// When a publication is fetched.
    public func fetchTime(of publication: Date) -> Date {
        publication.addingTimeInterval(TimeInterval(Self.fetchMinute * 60))
    }

    /// 5 minutes doubling, at most an hour.
    public func retryDelay(attempt: Int) -> TimeInterval {
        min(300 * pow(2, Double(min(max(attempt - 1, 0), 10))), 3600)
    }

}
