import DustKit
import Foundation

/// The lines of a CSV file a person imports (`dustctl activity import`, docs/REFERENCE.md §4;
/// `dustctl indoor import`, §21), read as bytes in place: the one place that says what a line may
/// cost. A line is at most `maxLineBytes`, measured before it is decoded, so a line of a hundred
/// million commas is refused after reading 1 KiB of it, not split into a hundred million fields
/// first (docs/RELIABILITY.md, "Indoor monitors"); of a line within the bound at most one field more
/// than the file's columns is made a `String`.
struct CSVLines {
    /// The longest line read, without its line end: a row of either file is under 80 bytes, and a
    /// header or a row padded with blanks fits many times over.
    static let maxLineBytes = 1024

    /// A line that is not blank.
    enum Line {
        /// The fields, each trimmed of blanks and then of double quotes; at most `maxFields + 1`
        /// of them, with `count` the number the line has.
        case fields([String], count: Int)
        /// Why the line cannot be read: FineDust's words, quoting at most 40 characters of it.
        case problem(String)
    }

    private let raw: UnsafeRawBufferPointer
    private let maxFields: Int
    private var start: Int
    /// The number of the line `next()` returned last, from 1.
    private(set) var lineNumber = 0

    /// The lines of `raw` (a UTF-8 byte-order mark skipped), of which at most `maxFields + 1`
    /// fields are made.
    init(_ raw: UnsafeRawBufferPointer, maxFields: Int) {
        self.raw = raw
        self.maxFields = maxFields
        start = raw.count >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF ? 3 : 0
    }

    /// The next line that is not blank (only spaces and tabs), nil at the end of the file.
    mutating func next() -> Line? {
        while start < raw.count {
            lineNumber += 1
            // Looks at most one byte past the bound and its CR: a longer line is refused without finding its end.
            let scanLimit = min(raw.count, start + Self.maxLineBytes + 2)
            var end = start
            while end < scanLimit, raw[end] != 0x0A { end += 1 }
            var lineEnd = end
            if lineEnd > start, raw[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: raw[start..<lineEnd])
            if lineEnd - start > Self.maxLineBytes || (end == scanLimit && end < raw.count) {
                return .problem("longer than \(Self.maxLineBytes) bytes, which no row is: \(Self.quotedStart(line))")
            }
            start = end + 1
            guard String(validating: line, as: UTF8.self) != nil else { return .problem("the line is not UTF-8 text") }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return .fields(fields(line), count: line.reduce(1) { $0 + ($1 == 0x2C ? 1 : 0) })
        }
        return nil
    }

    /// The line's first `maxFields + 1` fields, split at commas.
    private func fields(_ line: UnsafeRawBufferPointer) -> [String] {
        var fields: [String] = []
        var fieldStart = 0
        for index in 0...line.count where fields.count <= maxFields && (index == line.count || line[index] == 0x2C) {
            fields.append(Self.trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<index])))
            fieldStart = index + 1
        }
        return fields
    }

    /// A field without the blanks (space, tab) and then the double quotes at either end.
    private static func trimmed(_ field: UnsafeRawBufferPointer) -> String {
        var (first, last) = (0, field.count)
        for trimmed: Set<UInt8> in [[0x20, 0x09], [0x22]] {
            while first < last, trimmed.contains(field[first]) { first += 1 }
            while last > first, trimmed.contains(field[last - 1]) { last -= 1 }
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: field[first..<last]), as: UTF8.self)
    }

    /// The start of a line too long to read, as an error quotes it: its first 40 characters (of at
    /// most its first 640 bytes, decoded with any broken character replaced), marked as cut.
    static func quotedStart(_ line: UnsafeRawBufferPointer) -> String {
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: line.prefix(640)), as: UTF8.self)
        let (shown, _) = TerminalSafeText.prefix(TerminalSafeText.sanitized(head), characters: 40)
        return "\"\(shown)…\""
    }
}
