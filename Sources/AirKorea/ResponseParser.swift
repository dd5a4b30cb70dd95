import CLibXML2
import DustKit
import Foundation

/// Bounds that keep hostile or broken input cheap to reject (SPEC §10).
public struct ParserLimits: Sendable, Hashable {
    /// Largest body accepted, in bytes. A 3MONTH page of 1,000 rows is about 1 MiB.
    public var maxDocumentBytes: Int
    /// Deepest element nesting accepted; real responses are 5 levels deep.
    public var maxDepth: Int
    /// Longest single value accepted, in bytes.
    public var maxFieldBytes: Int
    /// Most items accepted in one response.
    public var maxItems: Int

    public init(maxDocumentBytes: Int = 32 * 1024 * 1024, maxDepth: Int = 16, maxFieldBytes: Int = 4096, maxItems: Int = 200_000) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxDepth = maxDepth
        self.maxFieldBytes = maxFieldBytes
        self.maxItems = maxItems
    }
}

/// Paging information of a response body.
public struct Paging: Sendable, Hashable {
    public var numOfRows: Int?
    public var pageNo: Int?
    public var totalCount: Int?
    /// The `item` elements on this page.
    public var itemCount: Int

    public init(numOfRows: Int? = nil, pageNo: Int? = nil, totalCount: Int? = nil, itemCount: Int = 0) {
        self.numOfRows = numOfRows
        self.pageNo = pageNo
        self.totalCount = totalCount
        self.itemCount = itemCount
    }

}

/// The measurements of one successful response.
public struct MeasurementPage: Sendable, Hashable {
    public var readings: [HourlyReading]
    public var paging: Paging
    /// Items dropped because their `dataTime` was missing or not a valid time.
    public var skippedItems: Int
}

/// The stations of one successful `getMsrstnList` response.
public struct StationPage: Sendable, Hashable {
    public var stations: [Station]
    public var paging: Paging
}

/// Parses AirKorea XML responses with libxml2's streaming reader.
///
/// The reader never loads DTDs or external entities and never touches the network; any DOCTYPE is
/// rejected before an entity could be expanded. Values `-`, empty, or flagged become unknown (`nil`).
public struct AirKoreaResponseParser: Sendable {
    public let limits: ParserLimits

    public init(limits: ParserLimits = ParserLimits()) {
        _ = libxml2Initialized
        self.limits = limits
    }

    /// Parses a realtime measurement response (station, province or nation).
    ///
    /// - Parameter requestedStation: the station asked for; it names items that carry no `stationName`.
    public func parseMeasurements(_ body: Data, requestedStation: String? = nil) throws(AirKoreaError) -> MeasurementPage {
        let raw = try parseRaw(body)
        var readings: [HourlyReading] = []
        readings.reserveCapacity(raw.items.count)
        var skipped = 0
        for item in raw.items {
            guard let slot = item.slot else {
                skipped += 1
                continue
            }
            guard let station = item.stationName ?? requestedStation else { throw .missingStationName }
            readings.append(HourlyReading(
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
                reported: item.reported
            ))
        }
        return MeasurementPage(readings: readings, paging: raw.paging, skippedItems: skipped)
    }

    /// Parses a `getMsrstnList` station-list response.
    public func parseStations(_ body: Data) throws(AirKoreaError) -> StationPage {
        let raw = try parseRaw(body)
        let stations = raw.items.compactMap { item -> Station? in
            guard let name = item.stationName else { return nil }
            return Station(name: name, address: item.address, network: item.network,
                           latitude: item.latitude, longitude: item.longitude, code: item.stationCode)
        }
        return StationPage(stations: stations, paging: raw.paging)
    }

    // MARK: - The reader loop

    private func parseRaw(_ body: Data) throws(AirKoreaError) -> RawResponse {
        guard body.count <= limits.maxDocumentBytes else { throw .documentTooLarge(limit: limits.maxDocumentBytes) }
        let result: Result<RawResponse, AirKoreaError> = body.withUnsafeBytes { bytes in
            do throws(AirKoreaError) {
                try rejectNonXML(bytes)
                return .success(try readDocument(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Recognises bodies that are not XML at all before libxml2 sees them, to name them precisely.
    private func rejectNonXML(_ bytes: UnsafeRawBufferPointer) throws(AirKoreaError) {
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { throw .emptyBody }
        if bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") { throw .jsonBody }
        let head = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 1024)])
        if asciiCaseInsensitiveRange(of: "<html", in: head) != nil {
            throw .htmlPage(title: htmlTitle(in: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 64 * 1024)])))
        }
        if prologDeclaresDoctype(UnsafeRawBufferPointer(rebasing: bytes[start...])) { throw .doctypeNotAllowed }
    }

    /// True when a `<!DOCTYPE` comes before the root element. Checked before libxml2 runs, so not
    /// even the internal subset of a hostile document (entity declarations) is parsed.
    private func prologDeclaresDoctype(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        func hasPrefix(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return memcmp(bytes.baseAddress! + index, text.utf8Start, count) == 0
        }
        func skip(past terminator: StaticString) -> Bool {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
            guard let found = asciiCaseInsensitiveRange(of: "\(terminator)", in: rest) else { return false }
            index += found + terminator.utf8CodeUnitCount
            return true
        }
        while index < bytes.count {
            if [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) {
                index += 1
            } else if hasPrefix("<?") {
                guard skip(past: "?>") else { return false }
            } else if hasPrefix("<!--") {
                guard skip(past: "-->") else { return false }
            } else {
                return hasPrefix("<!DOCTYPE") || hasPrefix("<!doctype")
            }
        }
        return false
    }

    private func readDocument(_ bytes: UnsafeRawBufferPointer) throws(AirKoreaError) -> RawResponse {
        let options = Int32(bitPattern:
            XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue
            | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
              let reader = xmlReaderForMemory(base, Int32(bytes.count), "airkorea-response.xml", "UTF-8", options)
        else { throw .emptyBody }
        defer { xmlFreeTextReader(reader) }

        let errors = LibXMLErrorSink()
        let handler: xmlStructuredErrorFunc = { context, error in
            guard let context, let error else { return }
            Unmanaged<LibXMLErrorSink>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
        }
        return try withExtendedLifetime(errors) { () throws(AirKoreaError) -> RawResponse in
            xmlTextReaderSetStructuredErrorHandler(reader, handler, Unmanaged.passUnretained(errors).toOpaque())
            var state = ReaderState(names: ElementNames(reader: reader), limits: limits)
            while true {
                let status = xmlTextReaderRead(reader)
                if status == 0 { break }
                if status < 0 { throw errors.airKoreaError(lastLine: lineCount(bytes), openField: state.openFieldName) }
                try state.handleNode(reader)
            }
            return try state.finish()
        }
    }
}

// MARK: - libxml2 plumbing

/// Initialises libxml2 once per process, before any parser is used from several threads.
private let libxml2Initialized: Void = xmlInitParser()

/// Collects the first error libxml2 reports, so it can become a typed `AirKoreaError`.
private final class LibXMLErrorSink {
    private var code: Int32?
    private var line = 0
    private var message = ""

    func record(_ error: xmlError) {
        guard code == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        code = error.code
        line = Int(error.line)
        // libxml2 quotes names and text from the document in its messages.
        message = error.message.map { TerminalSafeText.sanitized(String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? "unknown error"
    }

    /// The typed error for what libxml2 reported; `lastLine` is the document's last line number.
    /// `openField` is the field being read when libxml2 stopped, if any.
    func airKoreaError(lastLine: Int, openField: String?) -> AirKoreaError {
        guard let code else { return .malformedXML(line: line, reason: "libxml2 stopped without saying why") }
        switch code {
        case Int32(XML_ERR_INVALID_ENCODING.rawValue):
            return .invalidUTF8(line: line)
        case Int32(XML_ERR_INVALID_CHAR.rawValue) where message.contains("UTF-8") || message.contains("encoding"):
            return .invalidUTF8(line: line)
        case Int32(XML_ERR_NO_MEMORY.rawValue) where message.contains("huge text node"):
            // libxml2's own cap on a text node (10,000,000 bytes) is reached before ours can be.
            return .fieldTooLong(field: openField ?? "text", limit: 10_000_000)
        case Int32(XML_ERR_INTERNAL_ERROR.rawValue) where message.contains("depth"):
            return .nestingTooDeep(limit: 256)
        case Int32(XML_ERR_TAG_NOT_FINISHED.rawValue), Int32(XML_ERR_DOCUMENT_EMPTY.rawValue):
            return .truncated(line: line)
        default:
            // An error on the last line means the input stopped in the middle of the document.
            return line >= lastLine ? .truncated(line: line) : .malformedXML(line: line, reason: message)
        }
    }
}

/// Every element name the parser cares about.
enum Element: UInt8, CaseIterable {
    case other
    case response, gatewayResponse, header, cmmMsgHeader, body, items, item
    case resultCode, resultMsg, errMsg, returnAuthMsg, returnReasonCode
    case numOfRows, pageNo, totalCount
    case dataTime, stationName, stationCode, sidoName, mangName
    case pm10Value, pm25Value, pm10Value24, pm25Value24
    case pm10Grade, pm25Grade, pm10Grade1h, pm25Grade1h, pm10Flag, pm25Flag
    case addr, dmX, dmY

    var xmlName: String? {
        switch self {
        case .other: nil
        case .gatewayResponse: "OpenAPI_ServiceResponse"
        default: String(describing: self)
        }
    }
}

/// Element names interned in the reader's dictionary: an element is identified by pointer equality,
/// with no string built or compared per node.
struct ElementNames {
    private var table: [(UnsafeRawPointer?, Element)]
    private let mask: Int

    init(reader: xmlTextReaderPtr) {
        mask = 127
        table = Array(repeating: (nil, .other), count: mask + 1)
        for element in Element.allCases {
            guard let name = element.xmlName, let interned = xmlTextReaderConstString(reader, name) else { continue }
            let pointer = UnsafeRawPointer(interned)
            var slot = Self.hash(pointer) & mask
            while table[slot].0 != nil { slot = (slot + 1) & mask }
            table[slot] = (pointer, element)
        }
    }

    func element(_ name: UnsafePointer<xmlChar>?) -> Element {
        guard let name else { return .other }
        let pointer = UnsafeRawPointer(name)
        var slot = Self.hash(pointer) & mask
        while let candidate = table[slot].0 {
            if candidate == pointer { return table[slot].1 }
            slot = (slot + 1) & mask
        }
        return .other
    }

    private static func hash(_ pointer: UnsafeRawPointer) -> Int {
        let bits = UInt(bitPattern: pointer)
        return Int(truncatingIfNeeded: (bits >> 3) ^ (bits >> 11))
    }
}

/// An item as read, before it becomes a `HourlyReading` or a `Station`.
struct RawItem {
    var slot: Slot?
    var stationName: String?
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
    var address: String?
    var latitude: Double?
    var longitude: Double?
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
    mutating func readFlag(_ text: FieldText, of pollutant: Pollutant) {
        flag[pollutant] = text.string
        if text.string != nil { reported[pollutant].insert(.value) }
    }
}

struct RawResponse {
    var items: [RawItem]
    var paging: Paging
}

/// The parser's position in the document and what it has collected so far.
struct ReaderState {
    let names: ElementNames
    let limits: ParserLimits
    private var path: [Element]
    private var root: Element?
    private var rootName = ""
    private var items: [RawItem] = []
    private var currentItem: RawItem?
    private var paging = Paging()
    private var header: [Element: String] = [:]
    /// The leaf element whose text is being collected, and the text so far.
    private var field: Element?

    /// The name of the field whose text is being read, if any (for error messages only).
    var openFieldName: String? { field?.xmlName }
    private var text: [UInt8] = []

    init(names: ElementNames, limits: ParserLimits) {
        self.names = names
        self.limits = limits
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
                throw .notAnAirKoreaResponse(root: xmlTextReaderConstLocalName(reader).map { TerminalSafeText.sanitized(String(cString: $0)) } ?? "?")
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
            let value = FieldText(trimming: raw)
            switch element {
            case .resultCode, .resultMsg, .errMsg, .returnAuthMsg, .returnReasonCode:
                header[element] = value.string
            case .numOfRows: paging.numOfRows = value.integer
            case .pageNo: paging.pageNo = value.integer
            case .totalCount: paging.totalCount = value.integer
            case .dataTime: currentItem?.slot = KoreaStandardTime.slot(forDataTimeBytes: value.bytes)
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
            case .addr: currentItem?.address = value.string
            case .dmX: currentItem?.latitude = value.decimal
            case .dmY: currentItem?.longitude = value.decimal
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
            let code = ResultCode(rawValue: reported).flatMap { $0 == .ok ? nil : $0 }
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

/// The trimmed text of one field, decoded on demand without building strings for numbers.
struct FieldText {
    let bytes: UnsafeRawBufferPointer

    init(trimming raw: UnsafeRawBufferPointer) {
        var start = 0
        var end = raw.count
        while start < end, Self.isSpace(raw[start]) { start += 1 }
        while end > start, Self.isSpace(raw[end - 1]) { end -= 1 }
        bytes = UnsafeRawBufferPointer(rebasing: raw[start..<end])
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The text, or nil when empty; control characters replaced (it came from the network).
    var string: String? { bytes.isEmpty ? nil : TerminalSafeText.sanitized(String(decoding: bytes, as: UTF8.self)) }

    /// A non-negative integer, or nil.
    var integer: Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// A concentration: `-` or empty is unknown; a number no instrument measures (negative, not
    /// finite, above 10,000 µg/m³) or text that is no number is implausible, and unknown too.
    var concentration: ConcentrationText {
        if bytes.isEmpty || (bytes.count == 1 && bytes[0] == UInt8(ascii: "-")) { return .unknown }
        guard let value = decimal, value.isFinite, HourlyReading.plausibleConcentration.contains(value) else { return .implausible }
        return .measured(value)
    }

    /// A grade `1`–`4`; anything else is unknown.
    var grade: DustGrade? {
        guard bytes.count == 1 else { return nil }
        return DustGrade(rawValue: Int(bytes[0]) - 0x30)
    }

    /// A plain decimal number (`35`, `0.0022`, `-1.5`, `37.572025`), parsed exactly as `strtod` would
    /// for up to 15 significant digits; nil for anything else.
    var decimal: Double? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !seenPoint else { return nil }
                seenPoint = true
            } else if byte >= 0x30, byte <= 0x39 {
                guard digits < 15 else { return slowDecimal }
                mantissa = mantissa * 10 + UInt64(byte - 0x30)
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        // Both operands are exact doubles (mantissa < 2^53, 10^k for k ≤ 22), so one correctly
        // rounded division gives the same double as strtod.
        let value = Double(mantissa) / Self.powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    private var slowDecimal: Double? { Double(String(decoding: bytes, as: UTF8.self)) }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }
}

/// What a concentration field said.
enum ConcentrationText: Equatable {
    case unknown
    case measured(Double)
    case implausible

    var value: Double? {
        if case let .measured(value) = self { return value }
        return nil
    }
}

/// The line (as libxml2 counts them) of the document's last character that is not white space.
func lineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
    var end = bytes.count
    while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
    var lines = 1
    for byte in bytes[..<end] where byte == 0x0A { lines += 1 }
    return lines
}

/// The first offset of `needle` (ASCII, lower case) in `haystack`, ignoring ASCII case.
func asciiCaseInsensitiveRange(of needle: String, in haystack: UnsafeRawBufferPointer) -> Int? {
    let pattern = Array(needle.utf8)
    guard haystack.count >= pattern.count else { return nil }
    outer: for start in 0...(haystack.count - pattern.count) {
        for (offset, expected) in pattern.enumerated() {
            var byte = haystack[start + offset]
            if byte >= 0x41, byte <= 0x5A { byte += 0x20 }
            if byte != expected { continue outer }
        }
        return start
    }
    return nil
}

/// The `<title>` of an HTML page, whitespace collapsed, at most 120 characters.
func htmlTitle(in page: UnsafeRawBufferPointer) -> String {
    guard let open = asciiCaseInsensitiveRange(of: "<title>", in: page) else { return "" }
    let afterOpen = UnsafeRawBufferPointer(rebasing: page[(open + 7)...])
    let close = asciiCaseInsensitiveRange(of: "</title>", in: afterOpen) ?? min(afterOpen.count, 200)
    let title = String(decoding: UnsafeRawBufferPointer(rebasing: afterOpen[..<close]), as: UTF8.self)
    let collapsed = TerminalSafeText.sanitized(title).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return String(collapsed.prefix(120))
}
