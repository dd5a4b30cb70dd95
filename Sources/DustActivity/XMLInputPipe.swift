import DustKit
import Foundation

/// Feeds libxml2 from a `ByteStream`, one piece at a time, and guards what it feeds.
///
/// Before libxml2 starts, `readProlog()` reads up to the root element and has `PrologGuard`
/// check it; the accepted DOCTYPE is replaced by its line breaks. After that, every piece is
/// passed through as read, with two guards on the way: a run of more than
/// `maxBytesWithoutMarkup` bytes without a `<` (an attribute value or text that long) stops the
/// read before libxml2 buffers it, and C0 control characters XML forbids (all but tab, line feed,
/// carriage return and NUL) become spaces — iOS 16 exports are known to hold U+000B in values,
/// which would make the whole file unreadable. Memory held: the prolog (bounded) and nothing else.
final class XMLInputPipe {
    private var input: any ByteStream
    private let limits: ActivityReaderLimits
    /// Bytes read ahead while checking the prolog, handed to libxml2 before reading on.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var inputEnded = false
    private var bytesSinceMarkup = 0
    /// `=` signs since the last `<`: an element's attributes (`AttributeBound`).
    private var equalsSinceMarkup = 0
    private var line = 1

    /// Bytes read from the input so far.
    private(set) var bytesRead: Int64 = 0
    /// Forbidden control characters replaced by spaces.
    private(set) var controlCharactersReplaced = 0
    /// Why the pipe stopped, when it stopped libxml2 by returning -1.
    private(set) var failure: ActivityFileError?

    init(input: any ByteStream, limits: ActivityReaderLimits) {
        self.input = input
        self.limits = limits
    }

    /// Reads and checks everything before the root element; throws before libxml2 sees any of it.
    func readProlog() throws(ActivityFileError) {
        var head: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            switch try PrologGuard.scan(head) {
            case .complete(let doctype, _):
                pending = Self.hiding(doctype, in: head)
                return
            case .needMore(let insideDoctype):
                if inputEnded {
                    if insideDoctype {
                        throw .malformedXML(
                            line: head.lazy.filter { $0 == 0x0A }.count + 1,
                            reason: "the file ends inside its document type declaration")
                    }
                    let content = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
                    if content.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { throw .emptyFile }
                    pending = head
                    return
                }
                guard head.count <= limits.maxPrologBytes else { throw .prologTooLong(limit: limits.maxPrologBytes) }
                let result = piece.withUnsafeMutableBytes { buffer -> Result<Int, ActivityFileError> in
                    do throws(ActivityFileError) { return .success(try input.read(into: buffer)) } catch { return .failure(error) }
                }
                let count = try result.get()
                if count == 0 { inputEnded = true }
                bytesRead += Int64(count)
                head.append(contentsOf: piece[..<count])
            }
        }
    }

    /// libxml2's read callback: fills `buffer` with up to `length` bytes; 0 at the end, -1 on failure.
    func fill(_ buffer: UnsafeMutablePointer<CChar>, _ length: Int32) -> Int32 {
        guard failure == nil, length > 0 else { return failure == nil ? 0 : -1 }
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: Int(length))
        var count = 0
        if pendingOffset < pending.count {
            count = min(target.count, pending.count - pendingOffset)
            pending.withUnsafeBytes { target.baseAddress!.copyMemory(from: $0.baseAddress! + pendingOffset, byteCount: count) }
            pendingOffset += count
            if pendingOffset == pending.count {
                pending = []
                pendingOffset = 0
            }
        } else if !inputEnded {
            do {
                count = try input.read(into: target)
            } catch {
                failure = error
                return -1
            }
            if count == 0 { inputEnded = true }
            bytesRead += Int64(count)
        }
        guard count > 0 else { return 0 }
        let bytes = target.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // Fast pass: most bytes are above `<` (0x3C) and need only counting. The run without
        // markup is checked at each `<` and at the end; only a violation rescans, byte by byte,
        // to name its line exactly.
        let limit = limits.maxBytesWithoutMarkup
        var run = bytesSinceMarkup
        var equals = equalsSinceMarkup
        var lines = 0
        var replaced = 0
        var tooLong = false
        var tooManyAttributes = false
        for offset in 0..<count {
            let byte = bytes[offset]
            if byte > 0x3C {
                run &+= 1
                if byte == 0x3D {
                    equals &+= 1
                    if equals > AttributeBound.maxAttributes {
                        tooManyAttributes = true
                        break
                    }
                }
                continue
            }
            if byte == 0x3C {
                if run > limit {
                    tooLong = true
                    break
                }
                run = 0
                equals = 0
                continue
            }
            run &+= 1
            if byte == 0x0A {
                lines += 1
            } else if byte < 0x20, byte != 0x09, byte != 0x0D, byte != 0x00 {
                bytes[offset] = 0x20
                replaced += 1
            }
        }
        if tooManyAttributes {
            // The lines before the break are counted: the line of the `=` past the bound.
            failure = .tooManyAttributes(line: line + lines, limit: AttributeBound.maxAttributes)
            return -1
        }
        if tooLong || run > limit {
            failure = .attributeTooLong(line: lineWhereRunPassesLimit(bytes, count: count), limit: limit)
            return -1
        }
        bytesSinceMarkup = run
        equalsSinceMarkup = equals
        line += lines
        controlCharactersReplaced += replaced
        return Int32(count)
    }

    /// The line on which the run without markup passes the limit in this piece (the slow path).
    private func lineWhereRunPassesLimit(_ bytes: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        var run = bytesSinceMarkup
        var line = self.line
        for offset in 0..<count {
            let byte = bytes[offset]
            if byte == 0x3C {
                run = 0
                continue
            }
            run += 1
            if byte == 0x0A { line += 1 }
            if run > limits.maxBytesWithoutMarkup { return line }
        }
        return line
    }

    /// `head` with the DOCTYPE's bytes replaced by its line breaks.
    private static func hiding(_ doctype: Range<Int>?, in head: [UInt8]) -> [UInt8] {
        guard let doctype else { return head }
        var result = Array(head[..<doctype.lowerBound])
        result.append(contentsOf: head[doctype].lazy.filter { $0 == 0x0A })
        result.append(contentsOf: head[doctype.upperBound...])
        return result
    }
}
