import DustKit

/// An item as read, before it becomes a `HourlyReading` or a `Station`.
struct RawItem {
    var slot: Slot?
    var stationName: String?
    /// The item named a station outside the vocabulary (`ServerVocabulary.isKoreanText`): it is dropped.
    var refusedName = false
    var stationCode: String?
    var sidoName: String?
    var network: String?
    var concentration = DustPair<Double?>(repeating: nil)
    var average24h = DustPair<Double?>(repeating: nil)
    var grade24h = DustPair<DustGrade?>(repeating: nil)
    var grade1h = DustPair<DustGrade?>(repeating: nil)
    var flag = DustPair<String?>(repeating: nil)
    /// A value was present but no instrument could have measured it.
    var implausible = DustPair<Bool>(repeating: false)
    var reported = DustPair<ReportedFields>(repeating: [])
    /// The gases and the index as read; a flagged or implausible gas is made unknown by `gasReading`.
    var gases = GasReading.unreported
    var gasImplausible = GasValues<Bool>(repeating: false)
    var address: String?
    var latitude: Double?
    var longitude: Double?
    /// `dataTime` as text, kept only when it is not an hour (forecast items).
    var dataTimeText: String?
    /// The fields of the other operations, allocated at the first such field: a measurement item,
    /// copied once per item on the parser's hot path, carries one nil reference instead of some 300
    /// bytes of empty texts.
    private var operationFields: OperationFields?

    /// A forecast item's `inform…` fields.
    var forecast: RawForecastFields {
        get { operationFields?.forecast ?? RawForecastFields() }
        set { uniqueOperationFields().forecast = newValue }
    }

    /// A weekly outlook item's texts by element (`presnatnDt`, `frcstOneDt`, …).
    var weeklyOutlook: [Element: String] {
        get { operationFields?.weeklyOutlook ?? [:] }
        set { uniqueOperationFields().weeklyOutlook = newValue }
    }

    /// An advisory item's fields.
    var advisory: RawAdvisoryFields {
        get { operationFields?.advisory ?? RawAdvisoryFields() }
        set { uniqueOperationFields().advisory = newValue }
    }

    /// It carries a field only another operation's items have: a forecast's, an outlook's or an
    /// advisory's, or a station list's address or position.
    var belongsToAnotherOperation: Bool { operationFields != nil || address != nil || latitude != nil || longitude != nil }

    private mutating func uniqueOperationFields() -> OperationFields {
        if operationFields == nil || !isKnownUniquelyReferenced(&operationFields!) {
            operationFields = OperationFields(copying: operationFields)
        }
        return operationFields!
    }
}

/// The fields of the operations other than measurements, boxed (see `RawItem.operationFields`).
private final class OperationFields {
    var forecast = RawForecastFields()
    var weeklyOutlook: [Element: String] = [:]
    var advisory = RawAdvisoryFields()

    init(copying other: OperationFields?) {
        guard let other else { return }
        forecast = other.forecast
        weeklyOutlook = other.weeklyOutlook
        advisory = other.advisory
    }
}

/// The `inform…` fields of a forecast item, as text.
struct RawForecastFields {
    var code: String?
    var date: String?
    var grade: String?
    var overall: String?
    var cause: String?
}

/// The fields of an advisory item (docs/REFERENCE.md §17), as text; the values as numbers when they are.
struct RawAdvisoryFields {
    var serial: String?
    var dataDate: String?
    var district: String?
    var area: String?
    var itemCode: String?
    /// `issueGbn` (PM) or `issueLvl` (ozone).
    var level: String?
    var issueDate: String?
    var issueTime: String?
    var issueValue: Double?
    var clearDate: String?
    var clearTime: String?
    var clearValue: Double?
    var maxValue: Double?
}

extension RawItem {
    /// `pm10Value`/`pm25Value`: present, so it revises what is stored, even when unknown.
    mutating func readConcentration(_ text: FieldText, of pollutant: Pollutant) {
        let reading = text.concentration
        concentration[pollutant] = reading.value
        implausible[pollutant] = reading == .implausible
        reported[pollutant].insert(.value)
    }

    /// `pm10Flag`/`pm25Flag`: a set flag makes the value unknown and revises what is stored; an
    /// empty flag element says nothing on its own.
    mutating func readFlag(_ text: String?, of pollutant: Pollutant) {
        flag[pollutant] = text
        if text != nil { reported[pollutant].insert(.value) }
    }
}

extension RawItem {
    /// `o3Value` …: present, so it revises what is stored, even when unknown.
    mutating func readGas(_ text: FieldText, of gas: Gas) {
        let reading = text.measurement(within: gas.plausiblePPM)
        gases.ppm[gas] = reading.value
        gasImplausible[gas] = reading == .implausible
        gases.reported.insert(.value(of: gas))
    }

    /// `o3Flag` …: as `readFlag` for PM.
    mutating func readGasFlag(_ flag: String?, of gas: Gas) {
        gases.flag[gas] = flag
        if flag != nil { gases.reported.insert(.value(of: gas)) }
    }

    /// The gases as stored: a flagged value is unknown even when a number came with it, and an
    /// implausible one is unknown and flagged `implausible`, as for PM.
    var gasReading: GasReading {
        var reading = gases
        for gas in Gas.allCases {
            if reading.flag[gas] != nil {
                reading.ppm[gas] = nil
            } else if gasImplausible[gas] {
                reading.flag[gas] = HourlyReading.implausibleFlag
            }
        }
        return reading
    }
}

/// What a response held, before its items become readings or stations.
struct RawResponse {
    var items: [RawItem]
    var paging: Paging
    /// Values outside their field's vocabulary, stored as `ServerVocabulary.unknownValue` (or, for
    /// a station's name, their item dropped).
    var unknownValues = 0

    /// Withholds every free text of the response (a forecast's sentences, the weekly outlook's)
    /// when they echo the key together, in the order they came or the reverse: each passed the
    /// guard alone, but a report prints them side by side. Counted with the unknown values.
    mutating func withholdComposedEchoes(_ echoGuard: KeyEchoGuard) {
        let texts = items.flatMap(\.freeTexts)
        guard texts.count > 1 else { return }
        guard echoGuard.echoes(texts.joined(separator: "\n")) || echoGuard.echoes(texts.reversed().joined(separator: "\n")) else {
            return
        }
        for index in items.indices { items[index].withholdFreeTexts() }
        unknownValues += texts.count
    }
}

extension RawItem {
    /// The texts of the item that no vocabulary bounds, in the order a report prints them.
    var freeTexts: [String] {
        let forecast = self.forecast
        let outlook = weeklyOutlook
        return [forecast.grade, forecast.overall, forecast.cause].compactMap { $0 } + Self.outlookOrder.compactMap { outlook[$0] }
    }

    /// The weekly outlook's elements day by day, as `dustctl forecast` and the page show them.
    private static let outlookOrder: [Element] = [
        .presnatnDt, .frcstOneDt, .frcstOneCn, .frcstTwoDt, .frcstTwoCn, .frcstThreeDt, .frcstThreeCn, .frcstFourDt, .frcstFourCn,
        .gwthcnd,
    ]

    mutating func withholdFreeTexts() {
        let withheld = KeyEchoGuard.withheldText
        if forecast.grade != nil || forecast.overall != nil || forecast.cause != nil {
            var fields = forecast
            fields.grade = fields.grade.map { _ in withheld }
            fields.overall = fields.overall.map { _ in withheld }
            fields.cause = fields.cause.map { _ in withheld }
            forecast = fields
        }
        if !weeklyOutlook.isEmpty { weeklyOutlook = weeklyOutlook.mapValues { _ in withheld } }
    }
}
