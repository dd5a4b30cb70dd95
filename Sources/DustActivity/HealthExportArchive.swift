import CZlibInflate
import DustKit
import Foundation
import ZIPFoundation

/// Apple Health's `export.zip`, read as a zip: its directory is checked first, then the entries
/// FineDust needs are inflated one piece at a time into the readers. Nothing is ever written to
/// disk, and no entry is held whole in memory.
///
/// ZIPFoundation reads the directory; each entry's compressed bytes are read and inflated (zlib)
/// here, never past the entry's end (`ZipEntryData`). Inflating pushes pieces while the readers
/// pull them (`ByteStream`), so each entry is inflated on a helper thread that hands over at most
/// two 64 KiB pieces at a time (`ZipEntryPipe`); the reader's thread is never more than two pieces
/// behind. Every entry's size is bounded twice, in
/// absolute bytes and as a ratio to its compressed size, and all the entries read together are
/// bounded the same two ways (`ArchiveBudget`): a zip of thousands of small entries, each inside
/// its own allowance, must not add up to gigabytes (a zip bomb stops within a piece past a bound).
///
/// The export is found by its content, not its name: localised iPhones name it `exportar.xml`
/// (Spanish) or `eksport.xml` (Norwegian), and a zip re-made by hand may hold it at its root. Each
/// `.xml` entry at the top or one folder down, outside `workout-routes/`, is a candidate; only the
/// start of each is inflated, up to its root element, and the one whose root is `HealthData` is
/// the export (docs/ARCHITECTURE.md, the DustActivity row).
public struct HealthExportArchive {
    /// Where the Health app of an English-language iPhone puts the export.
    public static let exportPath = "apple_health_export/export.xml"
    /// Candidate `.xml` entries whose start is inflated at most; a Health export has two
    /// (`export.xml` and `export_cda.xml`).
    public static let maxExportCandidates = 32

    /// What the directory says about one entry FineDust reads.
    public struct Item: Sendable, Hashable {
        public var path: String
        /// The size the directory declares once inflated (the reader never trusts it as a bound).
        public var declaredSize: Int64
        public var compressedSize: Int64
    }

    public let limits: ActivityReaderLimits
    /// The zip file, opened once.
    private let file: RegularFile
    private let entriesByPath: [String: Entry]
    /// What the entries read so far have inflated to, against the whole archive's bounds.
    private let budget: ArchiveBudget
    /// The Health export: `apple_health_export/export.xml`, or however this iPhone named it.
    public let export: Item
    /// Every `workout-routes/*.gpx` beside the export, by path.
    public let routes: [Item]

    /// Opens the zip at `path` and checks its directory: every entry's name (none absolute, none
    /// with a `..` component), the number of entries, and the declared sizes, each entry's and
    /// their sum; then finds the export by peeking at the candidates.
    public init(path: String, limits: ActivityReaderLimits = ActivityReaderLimits()) throws(ActivityFileError) {
        try self.init(file: .zip(path: path), path: path, limits: limits)
    }

    /// The same for the zip already open at `descriptor` (opened from `path`): what was checked and
    /// sniffed there is what is read. The descriptor is duplicated; the caller keeps its own.
    public init(
        openFile descriptor: Int32, path: String, limits: ActivityReaderLimits = ActivityReaderLimits()
    ) throws(ActivityFileError) {
        try self.init(file: .zip(duplicating: descriptor), path: path, limits: limits)
    }

    private init(file: RegularFile, path: String, limits: ActivityReaderLimits) throws(ActivityFileError) {
        self.limits = limits
        try ZipDirectoryCheck.check(file, maxEntries: limits.maxZipEntries)
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: file.pathForLibrary(path)), accessMode: .read)
        } catch {
            throw .unreadableZip(reason: Self.describe(error))
        }
        self.file = file
        var entries: [String: Entry] = [:]
        var repeated: Set<String> = []
        var count = 0
        for entry in archive {
            count += 1
            guard count <= limits.maxZipEntries else { throw .tooManyZipEntries(limit: limits.maxZipEntries) }
            let name = Self.name(of: entry)
            guard Self.isSafe(name) else { throw .unsafeZipEntry(name: ActivityFileError.entryName(name)) }
            if entry.type == .file, entries.updateValue(entry, forKey: name) != nil { repeated.insert(name) }
        }
        entriesByPath = entries
        let readable = min(entries.values.reduce(Int64(0)) { $0 &+ Int64(clamping: $1.compressedSize) }, Int64(clamping: file.size))
        budget = ArchiveBudget(compressedBytes: readable, limits: limits)
        let exportPath = try Self.findExport(in: entries, file: file, budget: budget, limits: limits)
        let folder = exportPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map { "\($0)/" }.joined()
        let routesFolder = folder + "workout-routes/"
        func item(_ entry: Entry) throws(ActivityFileError) -> Item {
            let declared = Int64(clamping: entry.uncompressedSize)
            let compressed = Int64(clamping: entry.compressedSize)
            guard declared <= Self.bound(compressed: compressed, limits: limits) else {
                throw .zipEntryTooLarge(
                    name: ActivityFileError.entryName(Self.name(of: entry)), limit: limits.maxZipEntryBytes,
                    ratio: limits.maxCompressionRatio)
            }
            return Item(path: Self.name(of: entry), declaredSize: declared, compressedSize: compressed)
        }
        // The second of two entries with one name was silently the one read: a zip whose viewer and FineDust
        // read different files. Refused when the name is one FineDust reads (the export, a route); a file it
        // never reads may repeat.
        if repeated.contains(exportPath) { throw .duplicateZipEntry(name: ActivityFileError.entryName(exportPath)) }
        export = try item(entries[exportPath]!)
        var routes: [Item] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(routesFolder) && name.lowercased().hasSuffix(".gpx")
            && !name.dropFirst(routesFolder.count).contains("/")
        {
            // The Health app writes one route a workout: a zip holding more is not its export, and
            // reading each of 199,000 tiny routes took a minute and hundreds of MiB.
            guard routes.count < limits.maxWorkoutRoutes else { throw .tooManyWorkoutRoutes(limit: limits.maxWorkoutRoutes) }
            if repeated.contains(name) { throw .duplicateZipEntry(name: ActivityFileError.entryName(name)) }
            routes.append(try item(entry))
        }
        self.routes = routes
        // What the directory declares is checked before anything but the candidates' starts is
        // inflated; `ArchiveBudget` then holds the entries to it as they inflate, whatever they declared.
        let declared = routes.reduce(export.declaredSize) {
            $0.addingReportingOverflow($1.declaredSize).overflow ? Int64.max : $0 + $1.declaredSize
        }
        try budget.check(total: declared)
    }

    /// The path of the one entry whose root element is `HealthData`, among the `.xml` entries at
    /// the top or one folder down (never under `workout-routes/`). A candidate is inflated only
    /// until its root element is seen.
    private static func findExport(
        in entries: [String: Entry], file: RegularFile, budget: ArchiveBudget,
        limits: ActivityReaderLimits
    ) throws(ActivityFileError) -> String {
        let candidates = entries.keys.filter { name in
            let parts = name.lowercased().split(separator: "/", omittingEmptySubsequences: false)
            return parts.count <= 2 && parts.last!.hasSuffix(".xml") && parts.last! != ".xml" && !parts.contains("workout-routes")
        }.sorted()
        guard candidates.count <= maxExportCandidates else {
            throw .tooManyExportCandidates(limit: maxExportCandidates)
        }
        var exports: [String] = []
        var failures: [ActivityFileError] = []
        for name in candidates {
            do throws(ActivityFileError) {
                let head = try peek(entries[name]!, file: file, budget: budget, limits: limits)
                if try ActivityFileFormat.sniff(head) == .healthXML { exports.append(name) }
            } catch {
                switch error {
                case .unrecognizedFormat, .emptyFile, .unsupportedEncoding: break
                // The archive's own bounds end the search: nothing else may be inflated. So does
                // damaged data: a zip damaged in one place is not read further.
                case .zipArchiveTooLarge, .damagedZipEntry: throw error
                default: failures.append(error)
                }
            }
        }
        switch exports.count {
        case 1: return exports[0]
        case 0:
            // The one candidate that could not be read (a hostile prolog, damaged data) was most
            // likely the export: its own error says more than "no export".
            if failures.count == 1 { throw failures[0] }
            throw .noHealthExportInZip
        default:
            throw .severalHealthExports(names: exports.map(ActivityFileError.entryName))
        }
    }

    /// The start of `entry`, inflated until its prolog ends (its root element is named) or
    /// `ActivityFileFormat.sniffLength` bytes; the helper thread is stopped after.
    private static func peek(
        _ entry: Entry, file: RegularFile, budget: ArchiveBudget,
        limits: ActivityReaderLimits
    ) throws(ActivityFileError) -> [UInt8] {
        let compressed = Int64(clamping: entry.compressedSize)
        let name = ActivityFileError.entryName(Self.name(of: entry))
        let pipe = ZipEntryPipe(name: name, bound: bound(compressed: compressed, limits: limits), limits: limits, budget: budget)
        pipe.start(try ZipEntryData.locate(entry, in: file, name: name))
        defer { pipe.stopAndWait() }
        var head: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 16 * 1024)
        while head.count < ActivityFileFormat.sniffLength {
            let wanted = min(piece.count, ActivityFileFormat.sniffLength - head.count)
            let result = piece.withUnsafeMutableBytes { buffer -> Result<Int, ActivityFileError> in
                do throws(ActivityFileError) {
                    return .success(try pipe.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<wanted])))
                } catch { return .failure(error) }
            }
            let count = try result.get()
            if count == 0 { break }
            head += piece[..<count]
            if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { break }
            if case .complete = try PrologGuard.scan(head) { break }
        }
        return head
    }

    /// Inflates `item` into `body` as a `ByteStream`; the helper thread has ended (or
    /// been told to stop) when this returns.
    public func read<T>(_ item: Item, _ body: (ZipEntryByteStream) throws(ActivityFileError) -> T) throws(ActivityFileError) -> T {
        guard let entry = entriesByPath[item.path] else { throw .noHealthExportInZip }
        let name = ActivityFileError.entryName(item.path)
        let pipe = ZipEntryPipe(
            name: name, bound: Self.bound(compressed: item.compressedSize, limits: limits), limits: limits, budget: budget)
        pipe.start(try ZipEntryData.locate(entry, in: file, name: name))
        defer { pipe.stopAndWait() }
        let result = try body(ZipEntryByteStream(pipe: pipe))
        // The reader may stop at the end of the XML before the zip's checksum was checked.
        try pipe.drain()
        return result
    }

    /// The most bytes an entry of `compressed` bytes may inflate to.
    static func bound(compressed: Int64, limits: ActivityReaderLimits) -> Int64 {
        let (byRatio, overflow) = compressed.multipliedReportingOverflow(by: limits.maxCompressionRatio)
        let ratioBound = overflow ? Int64.max : byRatio.addingReportingOverflow(limits.zipRatioAllowance).partialValue
        return min(limits.maxZipEntryBytes, max(ratioBound, limits.zipRatioAllowance))
    }

    /// The entry's name: UTF-8 whenever its bytes are, whatever the flag says. macOS's Archive Utility and
    /// Windows re-zip Hangul names in UTF-8 without setting the flag (bit 11), and ZIPFoundation then reads
    /// them as code page 437: `route_2026-11-18_산책.gpx` became `route_2026-11-18_∞ÿñφ¢ä.gpx`, another source
    /// than the same walk from the phone's own zip. Bytes that are not UTF-8 are read as code page 437.
    static func name(of entry: Entry) -> String {
        let utf8 = entry.path(using: .utf8)
        return utf8.isEmpty ? entry.path : utf8
    }

    /// False for an absolute name, a drive letter, a backslash, or any `..` component. Judged byte by byte,
    /// as a file system reads a name: compared as characters, `/` or `..` followed by a combining mark
    /// (`/\u{301}etc`, `../\u{301}x`) was a character that is neither.
    static func isSafe(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let slash = UInt8(ascii: "/")
        guard let first = bytes.first, first != slash, !bytes.contains(UInt8(ascii: "\\")), !bytes.contains(0) else { return false }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":") { return false }
        return !bytes.split(separator: slash, omittingEmptySubsequences: false).contains { $0.elementsEqual("..".utf8) }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let archiveError as Archive.ArchiveError: "\(archiveError)"
        default: TerminalSafeText.sanitized(String(describing: error))
        }
    }
}

/// The zip file, opened once: ZIPFoundation reads its directory through `/proc/self/fd`, and every
/// entry's bytes are read from this descriptor at absolute offsets. The import hands over the
/// descriptor it sniffed the file through, or the path is opened once.
extension RegularFile {
    /// The zip at `path`; a failure is the zip's.
    static func zip(path: String) throws(ActivityFileError) -> RegularFile {
        try RegularFile(path: path, failure: { .unreadableZip(reason: $0) })
    }

    /// The zip open at `descriptor`, through a descriptor of its own.
    static func zip(duplicating descriptor: Int32) throws(ActivityFileError) -> RegularFile {
        try RegularFile(duplicating: descriptor, failure: { .unreadableZip(reason: $0) })
    }

    /// The path ZIPFoundation opens: this very file, through the descriptor; the path itself where
    /// /proc is not mounted.
    func pathForLibrary(_ path: String) -> String {
        let throughDescriptor = "/proc/self/fd/\(descriptor)"
        return access(throughDescriptor, R_OK) == 0 ? throughDescriptor : path
    }
}
