import Foundation

/// Checks everything before the root element before libxml2 sees a byte of it.
///
/// Apple's `export.xml` starts with an internal DTD subset (`<!DOCTYPE HealthData [ <!ELEMENT …>
/// <!ATTLIST …> ]>`). The guard accepts element and attribute-list declarations, comments and
/// processing instructions in it, and refuses any `<!ENTITY`, parameter-entity reference,
/// external identifier (`SYSTEM`, `PUBLIC`, `<!NOTATION`) or other declaration. The accepted
/// DOCTYPE is then hidden from libxml2 (replaced by its line breaks, so line numbers stay true):
/// FineDust validates nothing, Apple's subset declares no defaults, and HealthKit Export
/// Version 12 (iOS 16) wrote a subset that is not even well-formed (an unclosed `<!ATTLIST`,
/// stray lines), which would otherwise make every such export unreadable.
///
/// Declarations inside the subset are scanned loosely for that reason: only what could be
/// dangerous is looked for, quoted strings and comments are skipped whole.
enum PrologGuard {
    /// Where the prolog ends, once enough bytes have been read to say.
    enum Outcome: Equatable {
        /// Read more bytes and ask again; `insideDoctype` when the bytes so far end inside a DOCTYPE.
        case needMore(insideDoctype: Bool)
        /// The root element starts at `rootStart`; `doctype` is the range to hide, if any.
        case complete(doctype: Range<Int>?, rootStart: Int)
    }

    /// White space as libxml2 will see it: XML's four, and the C0 controls `XMLInputPipe` turns
    /// into spaces (all but NUL). The prolog is read as libxml2 reads it, so a control character
    /// never ends the prolog early and lets a DOCTYPE after it reach libxml2 unchecked.
    static func isSpace(_ byte: UInt8) -> Bool { byte <= 0x20 && byte != 0x00 }

    static func scan(_ bytes: [UInt8]) throws(ActivityFileError) -> Outcome {
        let result = bytes.withUnsafeBytes { buffer -> Result<Outcome, ActivityFileError> in
            var scanner = Scanner(bytes: buffer)
            do throws(ActivityFileError) { return .success(try scanner.scanProlog()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func scanProlog() throws(ActivityFileError) -> Outcome {
            if bytes.count >= 2,
                (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
                    || (bytes[0] == 0x00 && bytes[1] == 0x3C) || (bytes[0] == 0x3C && bytes[1] == 0x00)
            {
                throw .unsupportedEncoding
            }
            if hasPrefix([0xEF, 0xBB, 0xBF]) { index = 3 }
            var doctype: Range<Int>?
            while true {
                skipSpace()
                guard index < bytes.count else { return .needMore(insideDoctype: false) }
                // Only markup and white space may come before the root. Text there is an error in every
                // encoding libxml2 reads as the guard does; in one it does not, libxml2 may skip it (an
                // iconv alias of UTF-8, `UT-F8`, drops bytes it cannot decode) or decode it as markup
                // (EBCDIC, UCS-4, UTF-7), and then read a DOCTYPE the guard never saw.
                guard bytes[index] == UInt8(ascii: "<") else {
                    throw .malformedXML(line: line(), reason: "the file has text before its root element")
                }
                // `<` and a name is the root, however short (`<gpx/>`); waiting for 9 bytes that
                // never come would hand libxml2 the DOCTYPE unhidden.
                if index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "?"), bytes[index + 1] != UInt8(ascii: "!") {
                    return .complete(doctype: doctype, rootStart: index)
                }
                guard index + 9 <= bytes.count else { return .needMore(insideDoctype: false) }
                if hasPrefix("<?") {
                    guard skip(past: "?>", from: index + 2) else { return .needMore(insideDoctype: false) }
                } else if hasPrefix("<!--") {
                    guard skip(past: "-->", from: index + 4) else { return .needMore(insideDoctype: false) }
                } else if hasPrefix("<!DOCTYPE", ignoringCase: true) {
                    // Only one DOCTYPE is hidden; libxml2 would read the first of two.
                    guard doctype == nil else {
                        throw .malformedXML(line: line(), reason: "the file has a second DOCTYPE declaration")
                    }
                    let start = index
                    index += 9
                    guard try scanDoctype() else { return .needMore(insideDoctype: true) }
                    doctype = start..<index
                } else {
                    // The root element, or something libxml2 will name as an error.
                    return .complete(doctype: doctype, rootStart: index)
                }
            }
        }

        /// After `<!DOCTYPE`: the name, then `>` or an internal subset. False when more bytes are needed.
        private mutating func scanDoctype() throws(ActivityFileError) -> Bool {
            skipSpace()
            while index < bytes.count, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "["), bytes[index] != UInt8(ascii: ">") {
                index += 1
            }
            skipSpace()
            guard index + 6 <= bytes.count else { return false }
            if hasPrefix("SYSTEM", ignoringCase: true) || hasPrefix("PUBLIC", ignoringCase: true) {
                throw .externalIdentifier(line: line())
            }
            switch bytes[index] {
            case UInt8(ascii: ">"):
                index += 1
                return true
            case UInt8(ascii: "["):
                index += 1
                return try scanInternalSubset()
            default:
                throw .malformedXML(line: line(), reason: "the DOCTYPE declaration is not of the form <!DOCTYPE name [ … ]>")
            }
        }

        private mutating func scanInternalSubset() throws(ActivityFileError) -> Bool {
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "]"):
                    index += 1
                    skipSpace()
                    guard index < bytes.count else { return false }
                    guard bytes[index] == UInt8(ascii: ">") else {
                        throw .malformedXML(line: line(), reason: "the DOCTYPE's internal subset is not closed by ]>")
                    }
                    index += 1
                    return true
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    guard let close = find([byte], from: index + 1) else { return false }
                    index = close + 1
                case UInt8(ascii: "%"):
                    throw .entityInDocumentType(line: line())
                case UInt8(ascii: "<"):
                    guard index + 10 <= bytes.count else { return false }
                    if hasPrefix("<!--") {
                        guard skip(past: "-->", from: index + 4) else { return false }
                    } else if hasPrefix("<?") {
                        guard skip(past: "?>", from: index + 2) else { return false }
                    } else if hasPrefix("<!ELEMENT", ignoringCase: true) || hasPrefix("<!ATTLIST", ignoringCase: true) {
                        index += 9
                    } else if hasPrefix("<!ENTITY", ignoringCase: true) {
                        throw .entityInDocumentType(line: line())
                    } else if hasPrefix("<!NOTATION", ignoringCase: true) {
                        throw .externalIdentifier(line: line())
                    } else {
                        throw .unexpectedDeclaration(line: line())
                    }
                default:
                    index += 1
                }
            }
            return false
        }

        private mutating func skipSpace() {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        }

        private func isSpace(_ byte: UInt8) -> Bool { PrologGuard.isSpace(byte) }

        private func hasPrefix(_ text: StaticString, ignoringCase: Bool = false) -> Bool {
            let pattern = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard index + pattern.count <= bytes.count else { return false }
            for offset in 0..<pattern.count {
                var byte = bytes[index + offset]
                var expected = pattern[offset]
                if ignoringCase {
                    if byte >= 0x61, byte <= 0x7A { byte -= 0x20 }
                    if expected >= 0x61, expected <= 0x7A { expected -= 0x20 }
                }
                if byte != expected { return false }
            }
            return true
        }

        private func hasPrefix(_ pattern: [UInt8]) -> Bool {
            guard index + pattern.count <= bytes.count else { return false }
            return pattern.indices.allSatisfy { bytes[index + $0] == pattern[$0] }
        }

        /// The offset of `pattern` at or after `start`, if present.
        private func find(_ pattern: [UInt8], from start: Int) -> Int? {
            guard bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
            outer: for candidate in start...(bytes.count - pattern.count) {
                for (offset, expected) in pattern.enumerated() where bytes[candidate + offset] != expected { continue outer }
                return candidate
            }
            return nil
        }

        private mutating func skip(past terminator: StaticString, from start: Int) -> Bool {
            let pattern = Array(UnsafeBufferPointer(start: terminator.utf8Start, count: terminator.utf8CodeUnitCount))
            guard let found = find(pattern, from: start) else { return false }
            index = found + pattern.count
            return true
        }

        /// The line (1-based) of `index`.
        private func line() -> Int {
            var lines = 1
            for offset in 0..<min(index, bytes.count) where bytes[offset] == 0x0A { lines += 1 }
            return lines
        }
    }
}
