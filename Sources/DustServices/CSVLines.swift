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
        /// The fields, split at the commas outside double quotes (RFC 4180, as a spreadsheet writes
        /// `"1,200"`), each trimmed of blanks and then of its enclosing double quotes (a doubled `""`
        /// inside them is one `"`); at most `maxFields + 1` of them, with `count` the number the line has.
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
            return split(line)
        }
        return nil
    }

    /// The line's first `maxFields + 1` fields and how many it has, split at the commas outside
    /// double quotes; a quote left open at the end of the line is a problem (a field is never read
    /// across lines).
    private func split(_ line: UnsafeRawBufferPointer) -> Line {
        var fields: [String] = []
        var (fieldStart, count, quoted) = (0, 1, false)
        for index in 0..<line.count {
            if line[index] == 0x22 {
                quoted.toggle()
            } else if line[index] == 0x2C, !quoted {
                if fields.count <= maxFields { fields.append(Self.trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart..<index]))) }
                fieldStart = index + 1
                count += 1
            }
        }
        guard !quoted else { return .problem("a double quote opened on this line is not closed: \(Self.quotedStart(line))") }
        if fields.count <= maxFields { fields.append(Self.trimmed(UnsafeRawBufferPointer(rebasing: line[fieldStart...]))) }
        return .fields(fields, count: count)
    }

    /// A field without the blanks (space, tab) at either end, then without the double quotes that
    /// enclose it, a doubled `""` inside them read as one; a field that is not enclosed loses any
    /// quotes at its ends, as before quoting was read.
    private static func trimmed(_ field: UnsafeRawBufferPointer) -> String {
        var (first, last) = (0, field.count)
        while first < last, field[first] == 0x20 || field[first] == 0x09 { first += 1 }
        while last > first, field[last - 1] == 0x20 || field[last - 1] == 0x09 { last -= 1 }
        if last - first >= 2, field[first] == 0x22, field[last - 1] == 0x22 {
            let inner = String(decoding: UnsafeRawBufferPointer(rebasing: field[(first + 1)..<(last - 1)]), as: UTF8.self)
            return inner.replacing("\"\"", with: "\"")
        }
        while first < last, field[first] == 0x22 { first += 1 }
        while last > first, field[last - 1] == 0x22 { last -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: field[first..<last]), as: UTF8.self)
    }

    /// A field's number: a plain decimal (`DecimalText`), or one whose whole part a spreadsheet grouped
    /// by thousands with commas (`1,200`, `12,345.5`, read from a quoted field); nil for anything else
    /// (`1,2`, `1,2000`, `,100`, `0,500`, a comma after the point as in `1.234,5`), so a decimal comma is
    /// never read as a thousands separator.
    static func number(_ text: String) -> Double? {
        guard text.utf8.contains(0x2C) else { return DecimalText.parse(text) }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 1 || !parts[1].utf8.contains(0x2C) else { return nil }
        let groups = parts[0].split(separator: ",", omittingEmptySubsequences: false)
        let digitsOnly = { (group: Substring) in group.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard let first = groups.first, (1...3).contains(first.utf8.count), digitsOnly(first), first.first != "0",
            groups.dropFirst().allSatisfy({ $0.utf8.count == 3 && digitsOnly($0) })
        else { return nil }
        return DecimalText.parse(text.replacing(",", with: ""))
    }

    /// The start of a line too long to read, as an error quotes it: its first 40 characters (of at
    /// most its first 640 bytes, decoded with any broken character replaced), marked as cut.
    static func quotedStart(_ line: UnsafeRawBufferPointer) -> String {
        let head = String(decoding: UnsafeRawBufferPointer(rebasing: line.prefix(640)), as: UTF8.self)
        let (shown, _) = TerminalSafeText.prefix(TerminalSafeText.sanitized(head), characters: 40)
        return "\"\(shown)…\""
    }
}
