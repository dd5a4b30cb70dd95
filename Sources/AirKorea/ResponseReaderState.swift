import CLibXML2
import DustKit
import Foundation

/// The parser's position in the document and what it has collected so far.
struct ReaderState {
    let names: ElementNames
    let limits: ParserLimits
    let echoGuard: KeyEchoGuard
    private var path: [Element]
    private var root: Element?
    private var items: [RawItem] = []
    private var currentItem: RawItem?
    private var paging = Paging()
    private var header: [Element: String] = [:]
    /// The leaf element whose text is being collected, and the text so far.
    private var field: Element?
    private var text: [UInt8] = []
    /// Values outside their field's vocabulary (`ServerVocabulary`), stored as its `unknownValue`.
    private var unknownValues = 0
    /// Comments and processing instructions read so far (`ParserLimits.maxComments`).
    private var comments = 0

    /// The name of the field whose text is being read, if any (for error messages only).
    var openFieldName: String? { field?.xmlName }

    init(names: ElementNames, limits: ParserLimits, echoGuard: KeyEchoGuard) {
        self.names = names
        self.limits = limits
        self.echoGuard = echoGuard
        self.path = Array(repeating: .other, count: limits.maxDepth + 2)
        text.reserveCapacity(64)
    }

    mutating func handleNode(_ reader: xmlTextReaderPtr) throws(AirKoreaError) {
        switch UInt32(xmlTextReaderNodeType(reader)) {
        case XML_READER_TYPE_ELEMENT.rawValue:
            try startElement(reader)
        case XML_READER_TYPE_TEXT.rawValue, XML_READER_TYPE_CDATA.rawValue,
            XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue:
            guard field != nil, let value = xmlTextReaderConstValue(reader) else { return }
            let length = strlen(UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
            guard text.count + length <= limits.maxFieldBytes else {
                throw .fieldTooLong(field: field?.xmlName ?? "text", limit: limits.maxFieldBytes)
            }
            text.append(contentsOf: UnsafeBufferPointer(start: value, count: length))
        case XML_READER_TYPE_END_ELEMENT.rawValue:
            endElement(depth: Int(xmlTextReaderDepth(reader)))
        case XML_READER_TYPE_DOCUMENT_TYPE.rawValue, XML_READER_TYPE_ENTITY_REFERENCE.rawValue,
            XML_READER_TYPE_ENTITY.rawValue:
            throw .doctypeNotAllowed
        case XML_READER_TYPE_COMMENT.rawValue, XML_READER_TYPE_PROCESSING_INSTRUCTION.rawValue:
            // The reader keeps a run of them until the next tag: 4.5 million `<!---->` held 1.5 GB.
            // `CommentBound` counted their openings before the reader ran; this is the exact count.
            // Text needs none (adjacent text, CDATA and character references merge into one node).
            comments += 1
            guard comments <= limits.maxComments else { throw .tooManyComments(limit: limits.maxComments) }
        default:
            // The end of an element libxml2 reported as empty, insignificant white space: nothing to
            // read, and freed as the reader moves on.
            break
        }
    }

    private mutating func startElement(_ reader: xmlTextReaderPtr) throws(AirKoreaError) {
        let depth = Int(xmlTextReaderDepth(reader))
        guard depth <= limits.maxDepth else { throw .nestingTooDeep(limit: limits.maxDepth) }
        let element = names.element(xmlTextReaderConstLocalName(reader))
        path[depth] = element
        if depth == 0 {
            guard element == .response || element == .gatewayResponse else {
                throw .notAnAirKoreaResponse(
                    root: xmlTextReaderConstLocalName(reader).map { TerminalSafeText.shown(String(cString: $0), characters: 40) } ?? "?")
            }
            root = element
            return
        }
        let parent = path[depth - 1]
        let isLeaf: Bool
        switch (depth, parent, element) {
        case (2, .header, .resultCode), (2, .header, .resultMsg),
            (2, .cmmMsgHeader, .errMsg), (2, .cmmMsgHeader, .returnAuthMsg), (2, .cmmMsgHeader, .returnReasonCode),
            (2, .body, .numOfRows), (2, .body, .pageNo), (2, .body, .totalCount):
            isLeaf = true
        case (3, .items, .item) where path[1] == .body:
            guard items.count < limits.maxItems else { throw .tooManyItems(limit: limits.maxItems) }
            currentItem = RawItem()
            isLeaf = false
        case (4, .item, _) where currentItem != nil && path[2] == .items && element != .other:
            isLeaf = true
        default:
            isLeaf = false
        }
        guard isLeaf else { return }
        field = element
        text.removeAll(keepingCapacity: true)
        if xmlTextReaderIsEmptyElement(reader) == 1 {
            commitField()
        }
    }

    private mutating func endElement(depth: Int) {
        if field != nil {
            commitField()
        } else if depth == 3, path[3] == .item, let item = currentItem {
            items.append(item)
            currentItem = nil
        }
    }

    private mutating func commitField() {
        guard let element = field else { return }
        field = nil
        text.withUnsafeBytes { raw in
            let value = FieldText(trimming: raw, echoGuard: echoGuard)
            switch element {
            case .resultCode, .resultMsg, .errMsg, .returnAuthMsg, .returnReasonCode:
                header[element] = value.string
            case .numOfRows: paging.numOfRows = value.integer
            case .pageNo: paging.pageNo = value.integer
            case .totalCount: paging.totalCount = value.integer
            case .dataTime:
                let slot = KoreaStandardTime.slot(forDataTimeBytes: value.bytes)
                currentItem?.slot = slot
                // Not an hour (`2026-11-22 17시 발표`): kept as text for the forecast parser.
                if slot == nil { currentItem?.dataTimeText = value.string }
            case .stationName:
                // A name is an identity: one outside the vocabulary drops its item, it is never renamed.
                if let name = value.unreplaced, !ServerVocabulary.isKoreanText(name, atMost: ServerVocabulary.maxNameCharacters) {
                    unknownValues += 1
                    currentItem?.refusedName = true
                } else {
                    // Composed, as every name FineDust stores is (`NameForm`; AirKorea's already are).
                    currentItem?.stationName = value.string.map(NameForm.composed)
                }
            case .stationCode: currentItem?.stationCode = Self.digits(value, &unknownValues)
            case .sidoName: currentItem?.sidoName = Self.korean(value, &unknownValues)
            case .mangName: currentItem?.network = Self.korean(value, &unknownValues)
            case .pm10Value: currentItem?.readConcentration(value, of: .pm10)
            case .pm25Value: currentItem?.readConcentration(value, of: .pm25)
            case .pm10Value24:
                currentItem?.average24h.fineDust = value.concentration.value
                currentItem?.reported.fineDust.insert(.average24h)
            case .pm25Value24:
                currentItem?.average24h.ultraFineDust = value.concentration.value
                currentItem?.reported.ultraFineDust.insert(.average24h)
            case .pm10Grade:
                currentItem?.grade24h.fineDust = value.grade
                currentItem?.reported.fineDust.insert(.grade24h)
            case .pm25Grade:
                currentItem?.grade24h.ultraFineDust = value.grade
                currentItem?.reported.ultraFineDust.insert(.grade24h)
            case .pm10Grade1h:
                currentItem?.grade1h.fineDust = value.grade
                currentItem?.reported.fineDust.insert(.grade1h)
            case .pm25Grade1h:
                currentItem?.grade1h.ultraFineDust = value.grade
                currentItem?.reported.ultraFineDust.insert(.grade1h)
            case .pm10Flag: currentItem?.readFlag(Self.korean(value, &unknownValues), of: .pm10)
            case .pm25Flag: currentItem?.readFlag(Self.korean(value, &unknownValues), of: .pm25)
            case .o3Value: currentItem?.readGas(value, of: .o3)
            case .no2Value: currentItem?.readGas(value, of: .no2)
            case .coValue: currentItem?.readGas(value, of: .co)
            case .so2Value: currentItem?.readGas(value, of: .so2)
            case .o3Flag: currentItem?.readGasFlag(Self.korean(value, &unknownValues), of: .o3)
            case .no2Flag: currentItem?.readGasFlag(Self.korean(value, &unknownValues), of: .no2)
            case .coFlag: currentItem?.readGasFlag(Self.korean(value, &unknownValues), of: .co)
            case .so2Flag: currentItem?.readGasFlag(Self.korean(value, &unknownValues), of: .so2)
            case .khaiValue:
                currentItem?.gases.cai = value.integer.flatMap { GasReading.plausibleCAI.contains($0) ? $0 : nil }
                currentItem?.gases.reported.insert(.cai)
            case .khaiGrade:
                currentItem?.gases.caiGrade = value.grade
                currentItem?.gases.reported.insert(.caiGrade)
            case .addr: currentItem?.address = Self.korean(value, &unknownValues)
            case .dmX: currentItem?.latitude = value.decimal
            case .dmY: currentItem?.longitude = value.decimal
            case .informCode: currentItem?.forecast.code = value.string
            case .informData: currentItem?.forecast.date = value.string
            case .informGrade: currentItem?.forecast.grade = value.string
            case .informOverall: currentItem?.forecast.overall = Self.sentence(value, &unknownValues)
            case .informCause: currentItem?.forecast.cause = Self.sentence(value, &unknownValues)
            case .presnatnDt, .frcstOneDt, .frcstTwoDt, .frcstThreeDt, .frcstFourDt:
                currentItem?.weeklyOutlook[element] = value.string
            case .frcstOneCn, .frcstTwoCn, .frcstThreeCn, .frcstFourCn, .gwthcnd:
                currentItem?.weeklyOutlook[element] = Self.sentence(value, &unknownValues)
            case .sn: currentItem?.advisory.serial = Self.digits(value, &unknownValues)
            case .dataDate: currentItem?.advisory.dataDate = value.string
            case .districtName: currentItem?.advisory.district = Self.korean(value, &unknownValues)
            case .moveName: currentItem?.advisory.area = Self.korean(value, &unknownValues)
            case .itemCode: currentItem?.advisory.itemCode = value.string
            case .issueGbn, .issueLvl: currentItem?.advisory.level = value.string
            case .issueDate: currentItem?.advisory.issueDate = value.string
            case .issueTime: currentItem?.advisory.issueTime = value.string
            case .issueVal: currentItem?.advisory.issueValue = value.advisoryValue
            case .clearDate: currentItem?.advisory.clearDate = value.string
            case .clearTime: currentItem?.advisory.clearTime = value.string
            case .clearVal: currentItem?.advisory.clearValue = value.advisoryValue
            case .maxVal: currentItem?.advisory.maxValue = value.advisoryValue
            case .other, .response, .gatewayResponse, .header, .cmmMsgHeader, .body, .items, .item:
                break
            }
        }
    }

    /// The field's text when it is Korean words and numbers (no Latin letter a reader would see):
    /// a name, an address, a 시도 or 권역, and a flag (AirKorea's four, `점검및교정`, `장비점검`,
    /// `자료이상`, `통신장애`, and any other it writes in Korean, `점검중`). Any other text is counted and
    /// becomes `ServerVocabulary.unknownValue` (a flag so made still marks its value unknown).
    private static func korean(_ value: FieldText, _ unknownValues: inout Int) -> String? {
        guard let text = value.unreplaced else { return nil }
        if ServerVocabulary.isKoreanText(text) { return value.string.map(NameForm.composed) }
        unknownValues += 1
        return ServerVocabulary.unknownValue
    }

    /// A sentence AirKorea writes in Korean (a forecast's overall and cause, the weekly outlook's):
    /// withheld, and counted as a value outside its field's vocabulary, when it holds more Latin letters
    /// than such a sentence does (`FieldText.sentenceLatinLetters`).
    private static func sentence(_ value: FieldText, _ unknownValues: inout Int) -> String? {
        // Read once: each reading of `string` runs the key's echo search again.
        let text = value.string
        guard let text, text != KeyEchoGuard.withheldText, KeyEchoGuard.latinLetterCount(text) > FieldText.sentenceLatinLetters else {
            return text
        }
        unknownValues += 1
        return KeyEchoGuard.withheldText
    }

    /// The field's text when it is only digits (a station's code, an advisory's serial number);
    /// anything else is counted and dropped (nil), as these identify, and an identity is never made up.
    private static func digits(_ value: FieldText, _ unknownValues: inout Int) -> String? {
        guard let text = value.string else { return nil }
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return text }
        unknownValues += 1
        return nil
    }

    func finish() throws(AirKoreaError) -> RawResponse {
        switch root {
        case .gatewayResponse:
            let reported = header[.returnReasonCode] ?? ""
            let names = [header[.returnAuthMsg], header[.errMsg]].compactMap { $0 }
            let code =
                ResultCode(rawValue: reported).flatMap { $0 == .ok ? nil : $0 }
                ?? names.lazy.compactMap(ResultCode.init(errorName:)).first
                ?? .unknown
            throw .service(
                code, reportedCode: reported.isEmpty ? "?" : ResultCode.inVocabulary(reported),
                serverMessage: names.map(ResultCode.messageInVocabulary).joined(separator: " / "))
        case .response:
            guard let reported = header[.resultCode] else { throw .missingResultCode }
            guard reported != "00" else {
                var paging = paging
                paging.itemCount = items.count
                return RawResponse(items: items, paging: paging, unknownValues: unknownValues)
            }
            let message = header[.resultMsg] ?? ""
            var code = ResultCode(rawValue: reported) ?? .unknown
            // Legacy gateways answered 99 with a message naming the real error.
            if code == .unknown, let named = ResultCode(errorName: message), named != .ok { code = named }
            throw .service(code, reportedCode: ResultCode.inVocabulary(reported), serverMessage: ResultCode.messageInVocabulary(message))
        default:
            throw .emptyBody
        }
    }
}
