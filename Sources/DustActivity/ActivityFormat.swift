import Foundation

/// The kinds of activity file FineDust reads, told apart by their content, never their name.
public enum ActivityFileFormat: String, Sendable, Hashable, CaseIterable {
    /// A zip (`PK\u{3}\u{4}`): the Health app's `export.zip`.
    case healthZip = "health-zip"
    /// XML whose root element is `HealthData`: a bare `export.xml`.
    case healthXML = "health-xml"
    /// XML whose root element is `gpx`.
    case gpx
    /// Text whose first line is the header `start,distance_m`.
    case csv

    /// How many bytes of the start of a file `sniff` may need: the longest prolog allowed, and a
    /// root element's name.
    public static let sniffLength = ActivityReaderLimits().maxPrologBytes + 4096

    /// The format of a file starting with `head` (at most `sniffLength` bytes of it). A prolog
    /// that declares entities or names an outside resource is refused here already.
    public static func sniff(_ head: [UInt8]) throws(ActivityFileError) -> ActivityFileFormat {
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .healthZip }
        var content = head[...]
        if content.starts(with: [0xEF, 0xBB, 0xBF]) { content = content.dropFirst(3) }
        if isCSVHeader(content) { return .csv }
        let start = content.firstIndex { !PrologGuard.isSpace($0) }
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) { throw .unsupportedEncoding }
        guard let start, content[start] == UInt8(ascii: "<") else { throw .unrecognizedFormat }
        switch try PrologGuard.scan(head) {
        case .needMore:
            throw head.count >= sniffLength ? .prologTooLong(limit: ActivityReaderLimits().maxPrologBytes) : .unrecognizedFormat
        case .complete(_, let rootStart):
            var index = rootStart + 1
            var name: [UInt8] = []
            while index < head.count, name.count < 64 {
                let byte = head[index]
                if PrologGuard.isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                    break
                }
                name.append(byte)
                index += 1
            }
            if let colon = name.lastIndex(of: UInt8(ascii: ":")) { name = Array(name[(colon + 1)...]) }
            switch String(decoding: name, as: UTF8.self) {
            case "HealthData": return .healthXML
            case "gpx": return .gpx
            default: throw .unrecognizedFormat
            }
        }
    }

    /// True when the first line is `start,distance_m` (spaces and quotes around the names allowed).
    private static func isCSVHeader(_ bytes: ArraySlice<UInt8>) -> Bool {
        let line = bytes.prefix { $0 != 0x0A }
        let kept = line.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != UInt8(ascii: "\"") }
        return kept.elementsEqual("start,distance_m".utf8)
    }
}
