import CLibXML2
import DustKit
import Foundation

/// Collects the first error libxml2 reports, so it can become a typed `AirKoreaError`.
final class LibXMLErrorSink {
    private var first: LibXMLError?

    func record(_ error: xmlError) {
        guard first == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        first = LibXMLError(error)
    }

    /// The typed error for why libxml2 stopped reading `document`; `openField` is the field being
    /// read at that moment, if any.
    func airKoreaError(document: UnsafeRawBufferPointer, openField: String?) -> AirKoreaError {
        guard let first else { return .malformedXML(line: 0, reason: "libxml2 stopped without saying why") }
        return first.airKoreaError(document: document, openField: openField)
    }
}

/// One error as libxml2 reported it, copied out of its `xmlError`, whose strings live only as long
/// as the callback.
struct LibXMLError {
    /// The part of libxml2 that raised it (`XML_FROM_PARSER`, `XML_FROM_IO`, …).
    var domain: xmlErrorDomain
    var code: xmlParserErrors
    var line: Int
    /// libxml2's number attached to the error: the depth limit of the nesting error, the value of a
    /// forbidden character; 0 when there is none.
    var int1: Int32
    /// libxml2's own words, sanitized: never shown for a network answer (`reason` is) and never used
    /// to classify; kept for a test's or a debugger's eyes.
    var message: String

    init(domain: xmlErrorDomain, code: xmlParserErrors, line: Int, int1: Int32 = 0, message: String = "") {
        self.domain = domain
        self.code = code
        self.line = line
        self.int1 = int1
        self.message = message
    }

    init(_ error: xmlError) {
        let message = error.message.map {
            TerminalSafeText.shown(String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines), characters: 300)
        }
        self.init(
            domain: xmlErrorDomain(rawValue: UInt32(bitPattern: error.domain)),
            code: xmlParserErrors(rawValue: UInt32(bitPattern: error.code)),
            line: Int(error.line), int1: error.int1, message: message ?? "unknown error")
    }

    /// What is wrong, in FineDust's words, from libxml2's code alone. libxml2's message quotes the
    /// document's names (`Opening and ending tag mismatch: NAME line 3 and NAME`), and the document is
    /// the server's, which holds the key (it is sent there): a tag named with the key, cut by a letter
    /// every 11, reached the log whole. Nor can the names be cut out of the message: 2.9 leaves a message
    /// past 64,000 bytes as its first 149, the name cut where no search finds it.
    var reason: String {
        let what: String
        switch code {
        case XML_ERR_TAG_NAME_MISMATCH: what = "an end tag that does not match its start tag"
        case XML_ERR_DOCUMENT_END, XML_ERR_EXTRA_CONTENT: what = "content after the end of the document"
        case XML_ERR_NOT_WELL_BALANCED: what = "elements that do not nest"
        case XML_ERR_NAME_REQUIRED, XML_ERR_LT_REQUIRED: what = "a tag without a name XML allows"
        case XML_ERR_GT_REQUIRED, XML_ERR_LTSLASH_REQUIRED: what = "a tag that is not closed"
        case XML_ERR_SPACE_REQUIRED, XML_ERR_EQUAL_REQUIRED, XML_ERR_LT_IN_ATTRIBUTE, XML_ERR_ATTRIBUTE_NOT_STARTED,
            XML_ERR_ATTRIBUTE_NOT_FINISHED, XML_ERR_ATTRIBUTE_WITHOUT_VALUE, XML_ERR_STRING_NOT_STARTED, XML_ERR_STRING_NOT_CLOSED:
            what = "an attribute written in a way XML does not allow"
        case XML_ERR_ATTRIBUTE_REDEFINED: what = "an attribute given twice"
        case XML_ERR_ENTITYREF_NO_NAME, XML_ERR_ENTITYREF_SEMICOL_MISSING, XML_ERR_UNDECLARED_ENTITY:
            what = "an entity reference XML does not know (a bare &?)"
        case XML_ERR_INVALID_CHAR, XML_ERR_INVALID_CHARREF, XML_ERR_INVALID_DEC_CHARREF, XML_ERR_INVALID_HEX_CHARREF:
            what = "a character XML forbids"
        case XML_ERR_RESERVED_XML_NAME: what = "an XML declaration that is not at the start"
        case XML_ERR_NAME_TOO_LONG: what = "a name longer than libxml2 reads"
        case XML_ERR_NO_MEMORY: what = "libxml2 could not allocate memory"
        default: what = "XML that is not well-formed"
        }
        return what + " (libxml2 error \(code.rawValue))"
    }

    /// libxml2's cap on one text node without `XML_PARSE_HUGE` (`XML_MAX_TEXT_LENGTH` in
    /// `libxml/parserInternals.h`, which the CLibXML2 shim does not include).
    static let textNodeLimit = 10_000_000

    /// The typed error this libxml2 error means for `document`.
    ///
    /// Decided by libxml2's code, and where one code covers several causes, by its domain, its
    /// `int1` or the document itself; never by the message, whose wording changes between releases.
    func airKoreaError(document: UnsafeRawBufferPointer, openField: String?) -> AirKoreaError {
        switch code {
        case XML_ERR_INVALID_ENCODING:
            // Newer libxml2 releases report bytes that do not decode with this code; 2.9 (Debian 12)
            // raises XML_ERR_INVALID_CHAR instead, below.
            return .invalidUTF8(line: Self.lineOfFirstInvalidUTF8(in: document) ?? line)
        case XML_ERR_INVALID_CHAR:
            // libxml2 2.9 uses this one code both for bytes that are not UTF-8 and for a well-encoded
            // character XML forbids (U+0001, a NUL, `&#1;`); the body itself tells which.
            if let invalidLine = Self.lineOfFirstInvalidUTF8(in: document) { return .invalidUTF8(line: invalidLine) }
            return .malformedXML(line: line, reason: reason)
        case XML_ERR_NO_MEMORY where domain == XML_FROM_PARSER && document.count > Self.textNodeLimit:
            // libxml2 2.9 reports a text node above its cap as an allocation failure
            // (xmlSAX2Text). Only a document larger than the cap can hold such a node; in a smaller
            // one the allocation really failed, and the fallback below names it.
            return .fieldTooLong(field: openField ?? "text", limit: Self.textNodeLimit)
        case XML_ERR_INTERNAL_ERROR where domain == XML_FROM_PARSER && int1 > 0:
            // "Excessive depth" carries libxml2's depth limit (xmlParserMaxDepth, 256 without
            // XML_PARSE_HUGE); the other internal errors of the reader (an end inside a character,
            // a huge input lookup) carry 0. Reached before our own limit only when
            // ParserLimits.maxDepth is set above libxml2's.
            return .nestingTooDeep(limit: Int(int1))
        case XML_ERR_TAG_NOT_FINISHED, XML_ERR_DOCUMENT_EMPTY:
            // 2.9's reader reports an early end as XML_ERR_DOCUMENT_END instead (the line rule
            // below); these two name it outright where libxml2 raises them.
            return .truncated(line: line)
        default:
            // An error on the last line means the input stopped in the middle of the document.
            return line >= Self.lastLine(of: document) ? .truncated(line: line) : .malformedXML(line: line, reason: reason)
        }
    }

    /// The line (as libxml2 counts them) of the document's last character that is not white space.
    static func lastLine(of document: UnsafeRawBufferPointer) -> Int {
        var end = document.count
        while end > 0, BodySniffer.isXMLSpace(document[end - 1]) { end -= 1 }
        return line(atOffset: end, in: document)
    }

    /// The line of the first byte sequence in `document` that is not UTF-8; nil when all of it is.
    static func lineOfFirstInvalidUTF8(in document: UnsafeRawBufferPointer) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = document.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .error: return line(atOffset: offset, in: document)
            case .emptyInput: return nil
            }
        }
    }

    private static func line(atOffset offset: Int, in document: UnsafeRawBufferPointer) -> Int {
        var lines = 1
        for byte in document[..<offset] where byte == 0x0A { lines += 1 }
        return lines
    }
}
