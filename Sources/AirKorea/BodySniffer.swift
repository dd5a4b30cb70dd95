import DustKit
import Foundation

/// Recognises bodies that are not XML at all before libxml2 sees them, to name them precisely:
/// empty, compressed, JSON, an HTML error page, or XML with a DOCTYPE.
enum BodySniffer {
    /// Throws the error that names what the body is, if it is not an XML document FineDust reads.
    static func rejectNonXML(_ bytes: UnsafeRawBufferPointer) throws(AirKoreaError) {
        // Compressed data first: libxml2 would call its first byte the end of the document ("ends early").
        if let format = CompressedFormat.allCases.first(where: { $0.starts(bytes) }) { throw .compressedBody(format) }
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < bytes.count, isXMLSpace(bytes[start]) { start += 1 }
        guard start < bytes.count else { throw .emptyBody }
        if bytes[start] == UInt8(ascii: "{") || bytes[start] == UInt8(ascii: "[") { throw .jsonBody }
        // Every XML document begins with `<` (after a BOM and white space): anything else is text, which
        // libxml2 would call a document ending at its first byte ("the transfer was cut off, try again").
        // A UTF-16 or UTF-32 document (its BOM, or a NUL beside its `<`) is left to libxml2.
        if ![UInt8(ascii: "<"), 0x00, 0xFE, 0xFF].contains(bytes[start]) { throw .plainText }
        let head = UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 1024)])
        if asciiCaseInsensitiveRange(of: "<html", in: head) != nil {
            throw .htmlPage(title: htmlTitle(in: UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + 64 * 1024)])))
        }
        if prologDeclaresDoctype(UnsafeRawBufferPointer(rebasing: bytes[start...])) { throw .doctypeNotAllowed }
    }

    /// True for the four white-space bytes of XML.
    static func isXMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// True when a `<!DOCTYPE` comes before the root element. Checked before libxml2 runs, so not
    /// even the internal subset of a hostile document (entity declarations) is parsed.
    private static func prologDeclaresDoctype(_ bytes: UnsafeRawBufferPointer) -> Bool {
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
            if isXMLSpace(bytes[index]) {
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

    /// The `<title>` of an HTML page when it is a status page's (`503 Service Temporarily Unavailable`,
    /// `Bad Gateway`): an HTTP status and its reason phrase, in FineDust's own spelling; empty for any
    /// other. A title is the server's text, and a server holds the key (it is sent there): quoted, one
    /// reversed, base64-encoded or cut by a letter every 11 put the whole key in the log, the database
    /// and the dashboard, past any search for its echoes.
    static func htmlTitle(in page: UnsafeRawBufferPointer) -> String {
        guard let open = asciiCaseInsensitiveRange(of: "<title>", in: page) else { return "" }
        let afterOpen = UnsafeRawBufferPointer(rebasing: page[(open + 7)...])
        let close = asciiCaseInsensitiveRange(of: "</title>", in: afterOpen) ?? min(afterOpen.count, 200)
        guard close <= 200 else { return "" }
        var words = phraseWords(String(decoding: UnsafeRawBufferPointer(rebasing: afterOpen[..<close]), as: UTF8.self))
        // A status only when it is one HTTP has: any three digits would be three of the server's choosing.
        var status = ""
        if let first = words.first, let code = Int(first), first.count == 3, statusCodes.contains(code) {
            status = first
            words.removeFirst()
        }
        let phrase = words.joined(separator: " ")
        if let known = statusPhrases.first(where: { phraseWords($0).joined(separator: " ") == phrase }) {
            return status.isEmpty ? known : status + " " + known
        }
        return status.isEmpty ? "" : "HTTP " + status
    }

    /// A title's words, lower case, split at white space, `-` and `:` (`504 Gateway Time-out`,
    /// `Error: Not Found`).
    private static func phraseWords(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "-" || $0 == ":" }).map(String.init)
    }

    /// HTTP's status codes of errors (RFC 9110 and the registry): a title's number is named only when it is one.
    static let statusCodes: Set<Int> = Set(400...418).union(421...426).union([428, 429, 431, 451]).union(500...508).union([510, 511])

    /// The reason phrases of HTTP's statuses (RFC 9110) and of the pages gateways and servers put up.
    static let statusPhrases = [
        "Bad Request", "Unauthorized", "Forbidden", "Not Found", "Method Not Allowed", "Not Acceptable", "Request Timeout",
        "Request Time-out", "Gone", "Too Many Requests", "Internal Server Error", "Not Implemented", "Bad Gateway", "Service Unavailable",
        "Service Temporarily Unavailable", "Gateway Timeout", "Gateway Time-out", "Error", "Maintenance", "Under Maintenance",
        "Access Denied", "Request Rejected", "The page cannot be found", "Web Server's Default Page", "Welcome to nginx!", "Apache Tomcat",
    ]

    /// The first offset of `needle` (ASCII, lower case) in `haystack`, ignoring ASCII case.
    private static func asciiCaseInsensitiveRange(of needle: String, in haystack: UnsafeRawBufferPointer) -> Int? {
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
}
