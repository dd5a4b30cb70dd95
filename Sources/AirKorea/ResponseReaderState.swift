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
        default:
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
                    root: xmlTextReaderConstLocalName(reader).map { TerminalSafeText.sanitized(String(cString: $0)) } ?? "?")
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
            case .stationName: currentItem?.stationName = value.string
            case .stationCode: currentItem?.stationCode = value.string
            case .sidoName: currentItem?.sidoName = value.string
            case .mangName: currentItem?.network = value.string
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
            case .pm10Flag: currentItem?.readFlag(value, of: .pm10)
            case .pm25Flag: currentItem?.readFlag(value, of: .pm25)
            case .o3Value: currentItem?.readGas(value, of: .o3)
            case .no2Value: currentItem?.readGas(value, of: .no2)
            case .coValue: currentItem?.readGas(value, of: .co)
            case .so2Value: currentItem?.readGas(value, of: .so2)
            case .o3Flag: currentItem?.readGasFlag(value, of: .o3)
            case .no2Flag: currentItem?.readGasFlag(value, of: .no2)
            case .coFlag: currentItem?.readGasFlag(value, of: .co)
            case .so2Flag: currentItem?.readGasFlag(value, of: .so2)
            case .khaiValue:
                currentItem?.gases.cai = value.integer.flatMap { GasReading.plausibleCAI.contains($0) ? $0 : nil }
                currentItem?.gases.reported.insert(.cai)
            case .khaiGrade:
                currentItem?.gases.caiGrade = value.grade
                currentItem?.gases.reported.insert(.caiGrade)
            case .addr: currentItem?.address = value.string
            case .dmX: currentItem?.latitude = value.decimal
            case .dmY: currentItem?.longitude = value.decimal
            case .informCode: currentItem?.forecast.code = value.string
            case .informData: currentItem?.forecast.date = value.string
            case .informGrade: currentItem?.forecast.grade = value.string
            case .informOverall: currentItem?.forecast.overall = value.string
            case .informCause: currentItem?.forecast.cause = value.string
            case .presnatnDt, .frcstOneDt, .frcstTwoDt, .frcstThreeDt, .frcstFourDt, .frcstOneCn, .frcstTwoCn, .frcstThreeCn,
                .frcstFourCn, .gwthcnd:
                currentItem?.weeklyOutlook[element] = value.string
            case .sn: currentItem?.advisory.serial = value.string
            case .dataDate: currentItem?.advisory.dataDate = value.string
            case .districtName: currentItem?.advisory.district = value.string
            case .moveName: currentItem?.advisory.area = value.string
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

    func finish() throws(AirKoreaError) -> RawResponse {
        switch root {
        case .gatewayResponse:
            let reported = header[.returnReasonCode] ?? ""
            let names = [header[.returnAuthMsg], header[.errMsg]].compactMap { $0 }
            let code =
                ResultCode(rawValue: reported).flatMap { $0 == .ok ? nil : $0 }
                ?? names.lazy.compactMap(ResultCode.init(errorName:)).first
                ?? .unknown
            throw .service(code, reportedCode: reported.isEmpty ? "?" : reported, serverMessage: names.joined(separator: " / "))
        case .response:
            guard let reported = header[.resultCode] else { throw .missingResultCode }
            guard reported != "00" else {
                var paging = paging
                paging.itemCount = items.count
                return RawResponse(items: items, paging: paging)
            }
            let message = header[.resultMsg] ?? ""
            var code = ResultCode(rawValue: reported) ?? .unknown
            // Legacy gateways answered 99 with a message naming the real error.
            if code == .unknown, let named = ResultCode(errorName: message), named != .ok { code = named }
            throw .service(code, reportedCode: reported, serverMessage: message)
        default:
            throw .emptyBody
        }
    }
}
