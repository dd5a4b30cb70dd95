import DustKit
import Foundation

// The parser's jobs, one file each: ResponseTypes (what it returns), BodySniffer (bodies that are
// not XML), LibXMLReader (the libxml2 loop) and LibXMLErrorSink (its errors, typed), ElementNames
// (names as interned pointers), ResponseReaderState (where the reader is, what it collected),
// RawResponse (items before they become readings), FieldText (values decoded from bytes),
// CommentBound (comments and processing instructions counted before libxml2 reads them).

/// Parses AirKorea XML responses with libxml2's streaming reader.
///
/// The reader never loads DTDs or external entities and never touches the network; any DOCTYPE is
/// rejected before an entity could be expanded. Values `-`, empty, or flagged become unknown (`nil`).
public struct AirKoreaResponseParser: Sendable {
    public let limits: ParserLimits
    /// Checks every text the response carries (values, messages, titles, names in errors): a text
    /// that echoes the service key is replaced whole by `KeyEchoGuard.withheldText`. This is where
    /// text from the network becomes FineDust's values, so no later sink needs to look again.
    public let echoGuard: KeyEchoGuard

    /// - Parameter echoGuard: the key's guard; `AirKoreaClient` sets its own key's, whatever is given here.
    public init(limits: ParserLimits = ParserLimits(), echoGuard: KeyEchoGuard = .none) {
        _ = LibXMLReader.libraryInitialized
        self.limits = limits
        self.echoGuard = echoGuard
    }

    /// The same parser checking texts with `echoGuard`.
    public func checking(with echoGuard: KeyEchoGuard) -> AirKoreaResponseParser {
        AirKoreaResponseParser(limits: limits, echoGuard: echoGuard)
    }

    /// Parses a realtime measurement response (station, province or nation).
    ///
    /// - Parameter requestedStation: the station asked for; it names items that carry no `stationName`.
    public func parseMeasurements(_ body: Data, requestedStation: String? = nil) throws(AirKoreaError) -> MeasurementPage {
        let raw = try parseRaw(body)
        var readings: [HourlyReading] = []
        readings.reserveCapacity(raw.items.count)
        var skipped = 0
        var refusedNames = 0
        for item in raw.items {
            guard let slot = item.slot else {
                skipped += 1
                continue
            }
            guard !item.refusedName else {
                refusedNames += 1
                continue
            }
            guard let station = item.stationName ?? requestedStation else { throw .missingStationName }
            readings.append(
                HourlyReading(
                    station: station,
                    slot: slot,
                    // A flagged value is unknown even when a number came with it.
                    concentration: item.concentration.zip(item.flag).map { value, flag in flag == nil ? value : nil },
                    flag: item.flag.zip(item.implausible).map { flag, implausible in
                        flag ?? (implausible ? HourlyReading.implausibleFlag : nil)
                    },
                    average24h: item.average24h,
                    grade24h: item.grade24h,
                    grade1h: item.grade1h,
                    stationCode: item.stationCode,
                    sidoName: item.sidoName,
                    network: item.network,
                    reported: item.reported,
                    gases: item.gasReading
                ))
        }
        // No item an hour's, and some another operation's: a forecast's, an advisory's or a station list's
        // items were counted as skipped hours, and `dustctl import` of a forecast exited 0 having stored nothing.
        if readings.isEmpty, raw.items.allSatisfy({ $0.slot == nil }), raw.items.contains(where: \.belongsToAnotherOperation) {
            throw .notMeasurements
        }
        return MeasurementPage(
            readings: readings, paging: raw.paging, skippedItems: skipped, unknownValues: raw.unknownValues, refusedNameItems: refusedNames)
    }

    /// Parses a `getMsrstnList` station-list response. An answer whose items carry `dataTime` (hourly
    /// readings, a forecast) is refused: its station names come without address or position, and a
    /// sido's readings would add hundreds of stations no `stations nearest` can place.
    public func parseStations(_ body: Data) throws(AirKoreaError) -> StationPage {
        let raw = try parseRaw(body)
        if raw.items.contains(where: { $0.slot != nil || $0.dataTimeText != nil }) { throw .notAStationList }
        let stations = raw.items.compactMap { item -> Station? in
            guard let name = item.stationName, !item.refusedName else { return nil }
            return Station(
                name: name, address: item.address, network: item.network,
                latitude: item.latitude, longitude: item.longitude, code: item.stationCode)
        }
        return StationPage(stations: stations, paging: raw.paging, unknownValues: raw.unknownValues)
    }

    /// Parses a `getMinuDustFrcstDspth` forecast response: one `DustForecast` per item of a
    /// pollutant FineDust tracks (PM10, PM25). An item whose `informCode`, `dataTime` or
    /// `informData` cannot be read for sure is skipped and counted, never guessed at.
    public func parseForecasts(_ body: Data) throws(AirKoreaError) -> ForecastPage {
        let raw = try parseRaw(body)
        var forecasts: [DustForecast] = []
        var skipped = 0
        for item in raw.items {
            guard let pollutant = item.forecast.code.flatMap({ Pollutant(informCode: $0) }),
                let issuedAt = item.dataTimeText.flatMap({ ForecastIssueTime.instant(ofDataTime: $0) }),
                let forecastDate = item.forecast.date.flatMap({ LocalDate($0) })
            else {
                skipped += 1
                continue
            }
            forecasts.append(
                DustForecast(
                    pollutant: pollutant, issuedAt: issuedAt, forecastDate: forecastDate,
                    grades: ForecastGrades(informGrade: item.forecast.grade ?? ""),
                    overall: item.forecast.overall, cause: item.forecast.cause))
        }
        var page = ForecastPage(forecasts: forecasts, paging: raw.paging, skippedItems: skipped)
        page.unknownValues = raw.unknownValues
        return page
    }

    /// Parses an advisory response (docs/REFERENCE.md §17) of `pollutant`'s operation. An item whose issue
    /// time (or, when a clear is given, clear time) does not parse, that names no district in Korean words, or whose
    /// `itemCode` names another pollutant is skipped and counted; the rest of the page is kept.
    public func parseAdvisories(_ body: Data, pollutant: AdvisoryPollutant) throws(AirKoreaError) -> AdvisoryPage {
        let raw = try parseRaw(body)
        var advisories: [Advisory] = []
        var skipped = 0
        for item in raw.items {
            let fields = item.advisory
            let clearGiven = fields.clearTime.map { $0 != "-" } ?? false
            let code = fields.itemCode.map { $0 == "PM2.5" ? "PM25" : $0 }
            // A district that is no Korean name (`ServerVocabulary`) concerns no one: dropped.
            guard let district = fields.district, district != ServerVocabulary.unknownValue, code == nil || code == pollutant.rawValue,
                let issuedAt = AdvisoryTime.instant(date: fields.issueDate, time: fields.issueTime, dataDate: fields.dataDate)
            else {
                skipped += 1
                continue
            }
            let clearedAt =
                !clearGiven ? nil : AdvisoryTime.instant(date: fields.clearDate, time: fields.clearTime, dataDate: fields.dataDate)
            guard !clearGiven || clearedAt != nil else {
                skipped += 1
                continue
            }
            let area = fields.area
            advisories.append(
                Advisory(
                    pollutant: pollutant,
                    key: fields.serial ?? Advisory.key(pollutant: pollutant, district: district, area: area, issuedAt: issuedAt),
                    district: district, area: area, level: AdvisoryLevel(word: fields.level ?? ""), issuedAt: issuedAt,
                    clearedAt: clearedAt, issueValue: fields.issueValue, clearValue: fields.clearValue, maxValue: fields.maxValue))
        }
        var page = AdvisoryPage(advisories: advisories, paging: raw.paging, skippedItems: skipped)
        page.unknownValues = raw.unknownValues
        return page
    }

    /// Sniffs the body, then reads it; the bytes stay borrowed from `body` throughout. Every
    /// operation's parse starts here (the weekly outlook's in WeeklyOutlookParser.swift).
    func parseRaw(_ body: Data) throws(AirKoreaError) -> RawResponse {
        guard body.count <= limits.maxDocumentBytes else { throw .documentTooLarge(limit: limits.maxDocumentBytes) }
        let result: Result<RawResponse, AirKoreaError> = body.withUnsafeBytes { bytes in
            do throws(AirKoreaError) {
                try BodySniffer.rejectNonXML(bytes)
                if let line = AttributeBound.lineOfExcess(in: bytes) {
                    throw .malformedXML(line: line, reason: "an element with more than \(AttributeBound.maxAttributes) attributes")
                }
                if CommentBound.exceeds(limits.maxComments, in: bytes) { throw .tooManyComments(limit: limits.maxComments) }
                var raw = try LibXMLReader(limits: limits, echoGuard: echoGuard).read(bytes)
                raw.withholdComposedEchoes(echoGuard)
                return .success(raw)
            } catch {
                return .failure(error.withholdingEchoes(echoGuard))
            }
        }
        return try result.get()
    }
}
