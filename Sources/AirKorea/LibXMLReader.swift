import CLibXML2
import DustKit
import Foundation

/// Runs libxml2's streaming reader over one body and hands every node to a `ReaderState`.
///
/// The reader never loads DTDs or external entities and never touches the network; `BodySniffer`
/// has already refused any DOCTYPE before an entity could be declared.
struct LibXMLReader {
    let limits: ParserLimits
    let echoGuard: KeyEchoGuard

    /// Initialises libxml2 once per process, before any parser is used from several threads.
    static let libraryInitialized: Void = xmlInitParser()

    func read(_ bytes: UnsafeRawBufferPointer) throws(AirKoreaError) -> RawResponse {
        let options = Int32(
            bitPattern:
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
            // The input layer's errors too (an encoding that does not decode): four raw lines on stderr before.
            finedust_xml_errors_begin(Unmanaged.passUnretained(errors).toOpaque(), handler)
            defer { finedust_xml_errors_end() }
            var state = ReaderState(names: ElementNames(reader: reader), limits: limits, echoGuard: echoGuard)
            while true {
                let status = xmlTextReaderRead(reader)
                if status == 0 { break }
                if status < 0 { throw errors.airKoreaError(document: bytes, openField: state.openFieldName) }
                try state.handleNode(reader)
            }
            return try state.finish()
        }
    }
}
