import CLibXML2

/// Every element name the parser cares about.
enum Element: UInt8, CaseIterable {
    case other
    case response, gatewayResponse, header, cmmMsgHeader, body, items, item
    case resultCode, resultMsg, errMsg, returnAuthMsg, returnReasonCode
    case numOfRows, pageNo, totalCount
    case dataTime, stationName, stationCode, sidoName, mangName
    case pm10Value, pm25Value, pm10Value24, pm25Value24
    case pm10Grade, pm25Grade, pm10Grade1h, pm25Grade1h, pm10Flag, pm25Flag
    case so2Value, coValue, o3Value, no2Value, so2Flag, coFlag, o3Flag, no2Flag, khaiValue, khaiGrade
    case addr, dmX, dmY
    case informCode, informData, informGrade, informOverall, informCause
    // The weekly outlook (getMinuDustWeekFrcstDspth).
    case presnatnDt, frcstOneDt, frcstTwoDt, frcstThreeDt, frcstFourDt, frcstOneCn, frcstTwoCn, frcstThreeCn, frcstFourCn, gwthcnd
    // Advisories (docs/REFERENCE.md §17).
    case sn, dataDate, districtName, moveName, itemCode, issueGbn, issueLvl
    case issueDate, issueTime, issueVal, clearDate, clearTime, clearVal, maxVal

    /// The element's name in AirKorea's XML, spelled out so that renaming a case cannot change what
    /// the parser matches; nil for `other`, which stands for every name not listed here.
    var xmlName: String? {
        switch self {
        case .other: nil
        case .response: "response"
        case .gatewayResponse: "OpenAPI_ServiceResponse"
        case .header: "header"
        case .cmmMsgHeader: "cmmMsgHeader"
        case .body: "body"
        case .items: "items"
        case .item: "item"
        case .resultCode: "resultCode"
        case .resultMsg: "resultMsg"
        case .errMsg: "errMsg"
        case .returnAuthMsg: "returnAuthMsg"
        case .returnReasonCode: "returnReasonCode"
        case .numOfRows: "numOfRows"
        case .pageNo: "pageNo"
        case .totalCount: "totalCount"
        case .dataTime: "dataTime"
        case .stationName: "stationName"
        case .stationCode: "stationCode"
        case .sidoName: "sidoName"
        case .mangName: "mangName"
        case .pm10Value: "pm10Value"
        case .pm25Value: "pm25Value"
        case .pm10Value24: "pm10Value24"
        case .pm25Value24: "pm25Value24"
        case .pm10Grade: "pm10Grade"
        case .pm25Grade: "pm25Grade"
        case .pm10Grade1h: "pm10Grade1h"
        case .pm25Grade1h: "pm25Grade1h"
        case .pm10Flag: "pm10Flag"
        case .pm25Flag: "pm25Flag"
        case .so2Value: "so2Value"
        case .coValue: "coValue"
        case .o3Value: "o3Value"
        case .no2Value: "no2Value"
        case .so2Flag: "so2Flag"
        case .coFlag: "coFlag"
        case .o3Flag: "o3Flag"
        case .no2Flag: "no2Flag"
        case .khaiValue: "khaiValue"
        case .khaiGrade: "khaiGrade"
        case .addr: "addr"
        case .dmX: "dmX"
        case .dmY: "dmY"
        case .informCode: "informCode"
        case .informData: "informData"
        case .informGrade: "informGrade"
        case .informOverall: "informOverall"
        case .informCause: "informCause"
        case .presnatnDt: "presnatnDt"
        case .frcstOneDt: "frcstOneDt"
        case .frcstTwoDt: "frcstTwoDt"
        case .frcstThreeDt: "frcstThreeDt"
        case .frcstFourDt: "frcstFourDt"
        case .frcstOneCn: "frcstOneCn"
        case .frcstTwoCn: "frcstTwoCn"
        case .frcstThreeCn: "frcstThreeCn"
        case .frcstFourCn: "frcstFourCn"
        case .gwthcnd: "gwthcnd"
        case .sn: "sn"
        case .dataDate: "dataDate"
        case .districtName: "districtName"
        case .moveName: "moveName"
        case .itemCode: "itemCode"
        case .issueGbn: "issueGbn"
        case .issueLvl: "issueLvl"
        case .issueDate: "issueDate"
        case .issueTime: "issueTime"
        case .issueVal: "issueVal"
        case .clearDate: "clearDate"
        case .clearTime: "clearTime"
        case .clearVal: "clearVal"
        case .maxVal: "maxVal"
        }
    }
}

/// Element names interned in the reader's dictionary: an element is identified by pointer equality,
/// with no string built or compared per node.
struct ElementNames {
    /// Open addressing with linear probing; 256 slots keep the 72 names (PM, the gases, the forecasts,
    /// the weekly outlook and the advisories) sparse, so a lookup of a name the parser ignores usually
    /// ends at the first empty slot.
    private var table: [(UnsafeRawPointer?, Element)]
    private let mask: Int

    init(reader: xmlTextReaderPtr) {
        mask = 255
        table = Array(repeating: (nil, .other), count: mask + 1)
        for element in Element.allCases {
            guard let name = element.xmlName, let interned = xmlTextReaderConstString(reader, name) else { continue }
            let pointer = UnsafeRawPointer(interned)
            var slot = Self.hash(pointer) & mask
            while table[slot].0 != nil { slot = (slot + 1) & mask }
            table[slot] = (pointer, element)
        }
    }

    /// The element a node's local name (a pointer into the reader's dictionary) stands for.
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

    /// Mixes low and middle address bits: the names sit close together in the dictionary's pool.
    private static func hash(_ pointer: UnsafeRawPointer) -> Int {
        let bits = UInt(bitPattern: pointer)
        return Int(truncatingIfNeeded: (bits >> 3) ^ (bits >> 11))
    }
}
