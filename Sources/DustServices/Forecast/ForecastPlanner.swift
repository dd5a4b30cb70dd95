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
///
/// The weekly outlook (docs/REFERENCE.md §17, `decideOutlook`) is fetched once a day after 17:30 KST
/// out of the 2 kept calls, which stay kept until it has spent them: a failed outlook is retried once,
/// never with a call the day's remaining scheduled fetches need, never beyond the 12.
public struct ForecastPlanner: Sendable {
    /// Calls one publication costs: PM10 and PM25.
    public static let callsPerFetch = 2
    /// The most forecast calls in one KST day, whatever fails.
    public static let dailyCallCap = 12
    /// Calls kept every day for the weekly outlook: `decide` never spends them, only `decideOutlook` does.
    public static let outlookReserve = 2
    /// The minute past a publication hour at which it is fetched (the API lags the publication).
    public static let fetchMinute = 30
    /// The KST hour and minute after which the weekly outlook (published at about 17 KST) is fetched.
    public static let outlookFetchHour = 17
    public static let outlookFetchMinute = 30

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

    /// What to do about the weekly outlook now.
    public enum OutlookDecision: Sendable, Hashable {
        /// Fetch the outlook published on `searchDate` (today, KST).
        case fetch(searchDate: LocalDate)
        /// Nothing to do before `until`.
        case wait(until: Date)
    }

    /// Decides from `now`, the newest publication already fetched (both pollutants), the calls
    /// made today (KST, the outlook's `outlookCallsToday` among them) and the last failure, if the
    /// last attempt failed.
    public func decide(now: Date, lastFetched: Date?, callsToday: Int, outlookCallsToday: Int = 0, failure: Failure?) -> Decision {
        let next = nextFetchTime(after: now)
        // The daily quota is gone: nothing before the first scheduled fetch of the next KST day.
        if let failure, failure.advice == .waitUntilMidnightKST, now < KoreaStandardTime.nextMidnight(after: failure.at) {
            return .wait(until: nextFetchTime(after: KoreaStandardTime.nextMidnight(after: failure.at)))
        }
        let due = latestPublication(fetchableBy: now)
        // A stored issue later than now (a server's date far ahead, kept by FineDust before 0.4, or a
        // clock set back) is no publication fetched: waiting for `due` to pass it would mean never.
        if let lastFetched, lastFetched >= due, lastFetched <= now { return .wait(until: next) }
        var earliest = now
        // A failure before this publication's fetch time belongs to an older publication.
        if let failure, failure.at >= fetchTime(of: due) {
            switch failure.advice {
            // A key problem (code 30, a key not yet active: "1–2 hours") is asked again at the next hour, within the
            // day's spare calls, as the poll asks: not only at the next publication, six hours on.
            case .waitForNextHour: earliest = max(now, Slot(containing: failure.at).end)
            case .retryWithBackoff: earliest = max(now, failure.at.addingTimeInterval(retryDelay(attempt: failure.attempts)))
            case .waitAMinute: earliest = max(now, failure.at.addingTimeInterval(60))
            case .waitUntilMidnightKST: break
            }
        }
        guard earliest < next else { return .wait(until: next) }
        let sameDay = KoreaStandardTime.date(containing: earliest) == KoreaStandardTime.date(containing: now)
        let spare = spareCalls(at: earliest, callsToday: sameDay ? callsToday : 0, outlookCallsToday: sameDay ? outlookCallsToday : 0)
        guard spare >= Self.callsPerFetch else {
            return .wait(until: next)
        }
        if earliest > now { return .wait(until: earliest) }
        return .fetch(publication: due, searchDate: KoreaStandardTime.date(containing: due))
    }

    /// Calls the rest of the KST day's scheduled fetches after `instant` and the outlook do not need.
    /// `callsToday` counts every forecast call of the day, `outlookCallsToday` the outlook's among
    /// them: what it has spent of its reserve is not kept twice.
    public func spareCalls(at instant: Date, callsToday: Int, outlookCallsToday: Int = 0) -> Int {
        let keptForOutlook = max(0, Self.outlookReserve - outlookCallsToday)
        return Self.dailyCallCap - keptForOutlook - callsToday - scheduledFetches(after: instant) * Self.callsPerFetch
    }

    /// The scheduled fetches of `instant`'s KST day strictly after it.
    private func scheduledFetches(after instant: Date) -> Int {
        let day = KoreaStandardTime.date(containing: instant)
        return ForecastIssueTime.publicationHours.map { fetchTime(of: KoreaStandardTime.instant(hour: $0, of: day)) }.filter {
            $0 > instant
        }.count
    }

    /// Decides about the weekly outlook from `now`, the newest publication stored, the forecast calls
    /// made today (KST, the outlook's among them), the outlook's calls today and its last failure.
    ///
    /// Once a day after 17:30 KST, unless today's publication is stored; a start after 17:30 without
    /// it fetches at once, and a start before 17:30 without yesterday's fetches that at once (so a
    /// dustd started at night shows an outlook, as the forecast does). At most `outlookReserve` calls a day, each only when the day's remaining
    /// scheduled fetches keep theirs within `dailyCallCap`; a failure is retried with the daily
    /// forecast's backoff, a key problem or a spent quota tomorrow.
    public func decideOutlook(
        now: Date, lastPublished: LocalDate?, callsToday: Int, outlookCallsToday: Int, failure: Failure?
    ) -> OutlookDecision {
        let today = KoreaStandardTime.date(containing: now)
        let release = outlookFetchTime(on: today)
        let tomorrow = outlookFetchTime(on: today.adding(days: 1))
        if let lastPublished, lastPublished >= today { return .wait(until: tomorrow) }
        if now < release {
            // Started at night or in the morning without even yesterday's publication: fetch that one
            // at once, with one of today's kept calls (one try, and none after a failure: today's comes
            // after 17:30 as ever).
            let yesterday = today.adding(days: -1)
            guard lastPublished.map({ $0 < yesterday }) ?? true, outlookCallsToday == 0, failure == nil,
                callsToday + 1 + scheduledFetches(after: now) * Self.callsPerFetch <= Self.dailyCallCap
            else { return .wait(until: release) }
            return .fetch(searchDate: yesterday)
        }
        guard outlookCallsToday < Self.outlookReserve else { return .wait(until: tomorrow) }
        var earliest = now
        // A failure before today's release belongs to an older publication.
        if let failure, failure.at >= release {
            switch failure.advice {
            case .waitUntilMidnightKST: return .wait(until: tomorrow)
            case .waitForNextHour: earliest = max(now, Slot(containing: failure.at).end)
            case .retryWithBackoff: earliest = max(now, failure.at.addingTimeInterval(retryDelay(attempt: failure.attempts)))
            case .waitAMinute: earliest = max(now, failure.at.addingTimeInterval(60))
            }
        }
        guard KoreaStandardTime.date(containing: earliest) == today,
            callsToday + 1 + scheduledFetches(after: earliest) * Self.callsPerFetch <= Self.dailyCallCap
        else { return .wait(until: tomorrow) }
        if earliest > now { return .wait(until: earliest) }
        return .fetch(searchDate: today)
    }

    /// When the weekly outlook of `day` is fetched: 17:30 KST.
    public func outlookFetchTime(on day: LocalDate) -> Date {
        KoreaStandardTime.instant(hour: Self.outlookFetchHour, of: day).addingTimeInterval(TimeInterval(Self.outlookFetchMinute * 60))
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
