import CLibXML2
import DustKit
import Foundation

/// Runs libxml2's streaming reader (xmlTextReader over xmlReaderForIO) on one document and hands
/// every node to the caller: one node in memory at a time, whatever the file's size.
///
/// No DTD is loaded or validated, no entity substituted, the network never touched; the prolog
/// was checked, and its DOCTYPE hidden, by `XMLInputPipe` before libxml2 starts.
struct ActivityXMLDriver {
    let limits: ActivityReaderLimits

    /// Initialises libxml2 once per process, before any parser is used from several threads.
    private static let libraryInitialized: Void = xmlInitParser()

    /// What the pipe saw once the document was read.
    struct Totals {
        var bytesRead: Int64
        var controlCharactersReplaced: Int
    }

    func run(
        _ input: some ByteStream, documentName: String, onProgress: (Int64) -> Void,
        handleNode: (xmlTextReaderPtr) throws(ActivityFileError) -> Void
    ) throws(ActivityFileError) -> Totals {
        _ = Self.libraryInitialized
        let pipe = XMLInputPipe(input: input, limits: limits)
        try pipe.readProlog()
        onProgress(pipe.bytesRead)

        let options = Int32(
            bitPattern:
                XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_NOCDATA.rawValue
                | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_COMPACT.rawValue)
        let read: xmlInputReadCallback = { context, buffer, length in
            guard let context, let buffer else { return -1 }
            return Unmanaged<XMLInputPipe>.fromOpaque(context).takeUnretainedValue().fill(buffer, length)
        }
        let errors = XMLErrorSink()
        return try withExtendedLifetime((pipe, errors)) { () throws(ActivityFileError) -> Totals in
            guard let reader = xmlReaderForIO(read, nil, Unmanaged.passUnretained(pipe).toOpaque(), documentName, nil, options) else {
                throw pipe.failure ?? .malformedXML(line: 1, reason: "libxml2 could not start reading the document")
            }
            defer { xmlFreeTextReader(reader) }
            let handler: xmlStructuredErrorFunc = { context, error in
                guard let context, let error else { return }
                Unmanaged<XMLErrorSink>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
            }
            xmlTextReaderSetStructuredErrorHandler(reader, handler, Unmanaged.passUnretained(errors).toOpaque())
            // The input layer's errors (an encoding that does not decode) to the same sink, not to stderr.
            finedust_xml_errors_begin(Unmanaged.passUnretained(errors).toOpaque(), handler)
            defer { finedust_xml_errors_end() }

            var reported = pipe.bytesRead
            while true {
                let status = xmlTextReaderRead(reader)
                if pipe.bytesRead != reported {
                    reported = pipe.bytesRead
                    onProgress(reported)
                }
                if status == 0 { break }
                if status < 0 {
                    throw pipe.failure ?? errors.first
                        ?? .malformedXML(line: Int(xmlTextReaderGetParserLineNumber(reader)), reason: "libxml2 stopped without saying why")
                }
                switch UInt32(xmlTextReaderNodeType(reader)) {
                case XML_READER_TYPE_DOCUMENT_TYPE.rawValue, XML_READER_TYPE_ENTITY_REFERENCE.rawValue,
                    XML_READER_TYPE_ENTITY.rawValue:
                    // The pipe hid the only DOCTYPE a well-formed document can have; this cannot
                    // happen, and is refused rather than trusted if it does.
                    throw .entityInDocumentType(line: XMLText.line(reader))
                case XML_READER_TYPE_ELEMENT.rawValue:
                    guard Int(xmlTextReaderDepth(reader)) < limits.maxDepth else {
                        throw .nestingTooDeep(line: XMLText.line(reader), limit: limits.maxDepth)
                    }
                default:
                    break
                }
                try handleNode(reader)
            }
            return Totals(bytesRead: pipe.bytesRead, controlCharactersReplaced: pipe.controlCharactersReplaced)
        }
    }
}

/// Keeps the first error libxml2 reports, as a typed error.
final class XMLErrorSink {
    private(set) var first: ActivityFileError?

    func record(_ error: xmlError) {
        guard first == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        // libxml2 quotes the document in its messages; never used to classify, only shown.
        let message =
            error.message.map {
                TerminalSafeText.shown(String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines), characters: 300)
            } ?? "unknown error"
        first = .malformedXML(line: Int(error.line), reason: message)
    }
}

/// Helpers on the C strings libxml2 hands out.
enum XMLText {
    /// The line of the reader's current node. libxml2 keeps a node's line in 16 bits, so past
    /// line 65,535 this is the parser's line, which runs a little ahead of the node.
    static func line(_ reader: xmlTextReaderPtr) -> Int {
        if let node = xmlTextReaderCurrentNode(reader) {
            let line = Int(xmlGetLineNo(node))
            if line > 0, line < 65_535 { return line }
        }
        return Int(xmlTextReaderGetParserLineNumber(reader))
    }

    /// The bytes of a NUL-terminated libxml2 string.
    static func bytes(_ text: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: text, count: strlen(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self)))
    }

    /// A printable copy of a name (a root element's), for error messages: at most 40 characters.
    static func string(_ text: UnsafePointer<xmlChar>?) -> String {
        guard let text else { return "?" }
        return TerminalSafeText.shown(String(decoding: bytes(text), as: UTF8.self), characters: 40)
    }

    /// At most 40 characters of text from the file, made safe to print, for an error message.
    static func short(_ text: String) -> String {
        String(TerminalSafeText.prefix(TerminalSafeText.sanitized(text), characters: 40).shown)
    }
}
