import DustKit

/// Everything that can be wrong with an AirKorea response, each with a sentence saying what to do.
public enum AirKoreaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The API answered with a result code other than `00` (normal envelope or gateway envelope).
    case service(ResultCode, reportedCode: String, serverMessage: String)
    /// An HTML page came back instead of XML, e.g. `503 Service Temporarily Unavailable`.
    case htmlPage(title: String)
    /// A JSON body came back; FineDust asks for and reads `returnType=xml` only.
    case jsonBody
    /// The body was empty.
    case emptyBody
    /// The document ended before it was complete.
    case truncated(line: Int)
    /// The bytes are not well-formed XML.
    case malformedXML(line: Int, reason: String)
    /// The bytes are not valid UTF-8.
    case invalidUTF8(line: Int)
    /// Well-formed XML, but not an AirKorea response (the root element is named).
    case notAnAirKoreaResponse(root: String)
    /// A `response` without `header/resultCode`.
    case missingResultCode
    /// The body is larger than the parser accepts.
    case documentTooLarge(limit: Int)
    /// The document has a DOCTYPE; AirKorea never sends one, and DTDs can hide entity attacks.
    case doctypeNotAllowed
    /// Elements nest deeper than the parser accepts.
    case nestingTooDeep(limit: Int)
    /// A single value is longer than any real AirKorea field.
    case fieldTooLong(field: String, limit: Int)
    /// More items than the parser accepts in one response.
    case tooManyItems(limit: Int)
    /// More comments and processing instructions than the parser accepts; AirKorea sends none.
    case tooManyComments(limit: Int)
    /// Items carry no `stationName` (old service station results) and no station was given.
    case missingStationName
    /// A station list was expected (`getMsrstnList`), and the items carry `dataTime`: hourly readings
    /// or a forecast, whose station names come with no address or position.
    case notAStationList
    /// Hourly readings were expected, and no item is one: they are a forecast's, an advisory's or a
    /// station list's (a file of another operation given to `dustctl import`, or `api.baseURL` at one).
    case notMeasurements
    /// The body is compressed data (`CompressedFormat`), not XML: a proxy compressed it unasked, or a
    /// file was saved compressed.
    case compressedBody(CompressedFormat)
    /// Text that does not begin as markup (`Forbidden`, a proxy's or portal's sentence): no XML at all,
    /// not an answer cut short. Its words are the server's, so none is quoted.
    case plainText

    public var description: String {
        switch self {
        case .service(let code, let reportedCode, let serverMessage):
            // Only words of the API's own vocabulary are quoted (ServerVocabulary): two fields that
            // each hold a piece of the key are never shown side by side. The reader keeps nothing else
            // (`ResultCode.inVocabulary`); checked again for an error made elsewhere.
            let shownCode = reportedCode == "?" ? reportedCode : ResultCode.inVocabulary(reportedCode)
            let parts = serverMessage.split(separator: " / ", omittingEmptySubsequences: true).map {
                ResultCode.messageInVocabulary(String($0))
            }
            let message = parts.isEmpty ? "" : " (\(parts.joined(separator: " / ")))"
            return "AirKorea returned result code \(shownCode)\(message): \(code.explanation)"
        case .htmlPage(let title):
            let shown = title.isEmpty ? "an HTML page" : "an HTML page \"\(title)\""
            return "AirKorea answered with \(shown) instead of XML; the service is probably down or overloaded, try again later."
        case .jsonBody:
            return "The response is JSON; FineDust reads AirKorea's XML responses only (request them with returnType=xml)."
        case .plainText:
            return "The response is plain text, not XML (a proxy's, a captive portal's or another service's answer); "
                + "check api.baseURL and the network, then try again."
        case .emptyBody:
            return "The response body is empty; AirKorea or the network dropped the answer, try again later."
        case .truncated(let line):
            return "The response ends early (line \(line)); the transfer was cut off, try again."
        case .malformedXML(let line, let reason):
            // Line 0: libxml2 knows none (an error of its input layer, such as an encoding that does not decode).
            return "The response is not well-formed XML (\(line > 0 ? "line \(line): " : "")\(reason))."
        case .invalidUTF8(let line):
            return "The response is not valid UTF-8 (line \(line)); AirKorea sends UTF-8, so the body was damaged."
        case .notAnAirKoreaResponse(let root):
            // Named only when it is a root other services use: the name is the server's text.
            let named = Self.knownRoots.contains(root) ? "<\(root)>" : "another"
            return
                "The document is XML but not an AirKorea response (its root element is \(named), expected <response> or <OpenAPI_ServiceResponse>)."
        case .missingResultCode:
            return "The response has no header/resultCode, so it cannot be trusted as an AirKorea answer."
        case .documentTooLarge(let limit):
            return "The response is larger than \(limit / (1024 * 1024)) MiB, far beyond any real AirKorea answer; it was not read."
        case .doctypeNotAllowed:
            return "The document declares a DOCTYPE, which AirKorea never sends; it was rejected to keep entity tricks out."
        case .nestingTooDeep(let limit):
            return "The document nests elements deeper than \(limit) levels, which no AirKorea response does; it was rejected."
        case .fieldTooLong(let field, let limit):
            return "The field <\(field)> is longer than \(limit) bytes, which no AirKorea value is; the response was rejected."
        case .tooManyItems(let limit):
            return "The response has more than \(limit) items, which no AirKorea response does; it was rejected."
        case .tooManyComments(let limit):
            return
                "The response holds more than \(limit) XML comments or processing instructions, which AirKorea never sends "
                + "(each would be kept in memory); it was rejected."
        case .missingStationName:
            return "The items carry no stationName (an old-service station response); give the station with --station NAME."
        case .compressedBody(let format):
            return
                "The response is \(format.rawValue)-compressed data, not XML: a proxy compressed it unasked, or the file was saved "
                + "compressed (\(format.decompressCommand) it first)."
        case .notAStationList:
            return
                "The answer holds hourly readings or a forecast (its items carry dataTime), not a station list "
                + "(getMsrstnList, items with addr, dmX and dmY); nothing was stored. From AirKorea's address, check api.baseURL."
        case .notMeasurements:
            return
                "The answer holds a forecast, advisories or a station list, not hourly readings (getMsrstnAcctoRltmMesureDnsty "
                + "or getCtprvnRltmMesureDnsty, items with an hour in dataTime and pm10Value); nothing was stored. "
                + "From AirKorea's address, check api.baseURL."
        }
    }

    /// Root elements of other services' answers and of pieces of AirKorea's, which a wrong `api.baseURL`
    /// or a proxy plausibly sends; any other root is not named.
    static let knownRoots: Set<String> = [
        "item", "items", "body", "header", "html", "HTML", "rss", "feed", "Envelope", "soap:Envelope", "soapenv:Envelope", "S:Envelope",
        "error", "Error", "errors", "result", "results", "data", "root", "xml",
    ]

    /// The same error with every text it quotes from the response checked by `echoGuard`. No
    /// `default`: a new case that quotes the response must say here what it quotes.
    func withholdingEchoes(_ echoGuard: KeyEchoGuard) -> AirKoreaError {
        switch self {
        case .service(let code, let reportedCode, let serverMessage):
            .service(code, reportedCode: echoGuard.checked(reportedCode), serverMessage: echoGuard.checked(serverMessage))
        case .htmlPage(let title): .htmlPage(title: echoGuard.checked(title))
        case .malformedXML(let line, let reason): .malformedXML(line: line, reason: echoGuard.checked(reason))
        case .notAnAirKoreaResponse(let root): .notAnAirKoreaResponse(root: echoGuard.checked(root))
        case .fieldTooLong(let field, let limit): .fieldTooLong(field: echoGuard.checked(field), limit: limit)
        case .jsonBody, .emptyBody, .truncated, .invalidUTF8, .missingResultCode, .documentTooLarge, .doctypeNotAllowed,
            .nestingTooDeep, .tooManyItems, .tooManyComments, .missingStationName, .notAStationList, .notMeasurements, .compressedBody,
            .plainText:
            self
        }
    }

    /// When a poll that failed this way should be tried again (docs/REFERENCE.md §7).
    public var retryAdvice: RetryAdvice {
        switch self {
        case .service(let code, _, _):
            switch code {
            case .applicationError, .databaseError, .httpError, .serviceTimeout, .unknown: .retryWithBackoff
            case .dailyQuotaExceeded: .waitUntilMidnightKST
            case .perSecondLimitExceeded: .waitAMinute
            case .ok, .noData, .invalidParameter, .missingParameter, .noSuchService, .accessDenied,
                .serviceKeyTemporarilyDisabled, .blockedIP, .serviceKeyNotRegistered, .serviceKeyExpired,
                .unregisteredIP, .unsignedCall:
                .waitForNextHour
            }
        case .htmlPage, .emptyBody, .truncated, .malformedXML, .invalidUTF8, .compressedBody, .plainText:
            .retryWithBackoff
        case .notAStationList, .notMeasurements:
            // A well-formed answer of another operation: api.baseURL points at it, which waiting fixes not.
            .waitForNextHour
        case .jsonBody, .notAnAirKoreaResponse, .missingResultCode, .documentTooLarge, .doctypeNotAllowed,
            .nestingTooDeep, .fieldTooLong, .tooManyItems, .tooManyComments, .missingStationName:
            // Unparsable bodies are retried: a broken proxy or captive portal can produce any of these.
            .retryWithBackoff
        }
    }
}

/// A compressed format a body can be recognised as by its first bytes (`BodySniffer`).
public enum CompressedFormat: String, Sendable, Hashable, CaseIterable {
    case gzip, zip, bzip2, xz, zstd
    /// A zlib stream (`Content-Encoding: deflate` as servers send it): `x` (deflate, a 32 KiB window),
    /// then a flag byte without a preset dictionary making the two a multiple of 31: `01`, `5E`, `9C` or
    /// `DA`, never the start of an XML document.
    case zlib

    /// The magic bytes a body of the format starts with (zlib's at its default level).
    var magic: [UInt8] {
        switch self {
        case .zlib: [0x78, 0x9C]
        case .gzip: [0x1F, 0x8B]
        case .zip: [0x50, 0x4B, 0x03, 0x04]
        case .bzip2: [0x42, 0x5A, 0x68]
        case .xz: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]
        case .zstd: [0x28, 0xB5, 0x2F, 0xFD]
        }
    }

    /// Whether `bytes` start as a body of the format does.
    func starts(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard self == .zlib else { return bytes.starts(with: magic) }
        return bytes.count >= 2 && bytes[0] == magic[0] && bytes[1] & 0x20 == 0 && (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0
    }

    /// The command that undoes it.
    var decompressCommand: String {
        switch self {
        case .zlib: "zlib-flate -uncompress"
        case .gzip: "gunzip"
        case .zip: "unzip"
        case .bzip2: "bunzip2"
        case .xz: "unxz"
        case .zstd: "unzstd"
        }
    }
}

/// How soon a failed request is worth repeating.
public enum RetryAdvice: Sendable, Hashable {
    /// A passing fault: retry with exponential backoff until the next slot.
    case retryWithBackoff
    /// A configuration or key problem: do not retry before the next hourly poll.
    case waitForNextHour
    /// The daily quota is used up: wait until 00:00 KST.
    case waitUntilMidnightKST
    /// The per-second limit: wait a minute.
    case waitAMinute
}
