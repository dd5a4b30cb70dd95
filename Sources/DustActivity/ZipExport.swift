import DustKit
import Foundation
import ZIPFoundation

/// Apple Health's `export.zip`, read as a zip: its directory is checked first, then the entries
/// FineDust needs are inflated one piece at a time into the readers. Nothing is ever written to
/// disk, and no entry is held whole in memory.
///
/// ZIPFoundation reads the directory and inflates (zlib). Its `extract(_:consumer:)` pushes
/// pieces while the readers pull them (`ByteStream`), so each entry is inflated on a
/// helper thread that hands over at most two 64 KiB pieces at a time (`ZipEntryPipe`); the
/// reader's thread is never more than two pieces behind. Every entry's size is bounded twice, in
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
    private let archive: Archive
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
        self.limits = limits
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw .unreadableZip(reason: Self.describe(error))
        }
        self.archive = archive
        var entries: [String: Entry] = [:]
        var count = 0
        for entry in archive {
            count += 1
            guard count <= limits.maxZipEntries else { throw .tooManyZipEntries(limit: limits.maxZipEntries) }
            let name = entry.path
            guard Self.isSafe(name) else { throw .unsafeZipEntry(name: String(TerminalSafeText.sanitized(name).prefix(200))) }
            if entry.type == .file { entries[name] = entry }
        }
        entriesByPath = entries
        let readable = min(entries.values.reduce(Int64(0)) { $0 &+ Int64(clamping: $1.compressedSize) }, Self.fileSize(path))
        budget = ArchiveBudget(compressedBytes: readable, limits: limits)
        let exportPath = try Self.findExport(in: entries, archive: archive, budget: budget, limits: limits)
        let folder = exportPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().map { "\($0)/" }.joined()
        let routesFolder = folder + "workout-routes/"
        func item(_ entry: Entry) throws(ActivityFileError) -> Item {
            let declared = Int64(clamping: entry.uncompressedSize)
            let compressed = Int64(clamping: entry.compressedSize)
            guard declared <= Self.bound(compressed: compressed, limits: limits) else {
                throw .zipEntryTooLarge(
                    name: TerminalSafeText.sanitized(entry.path), limit: limits.maxZipEntryBytes,
                    ratio: limits.maxCompressionRatio)
            }
            return Item(path: entry.path, declaredSize: declared, compressedSize: compressed)
        }
        export = try item(entries[exportPath]!)
        var routes: [Item] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(routesFolder) && name.lowercased().hasSuffix(".gpx")
            && !name.dropFirst(routesFolder.count).contains("/")
        {
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
        in entries: [String: Entry], archive: Archive, budget: ArchiveBudget,
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
                let head = try peek(entries[name]!, archive: archive, budget: budget, limits: limits)
                if try ActivityFileFormat.sniff(head) == .healthXML { exports.append(name) }
            } catch {
                switch error {
                case .unrecognizedFormat, .emptyFile, .unsupportedEncoding: break
                // The archive's own bounds end the search: nothing else may be inflated. So does
                // damaged data: its helper thread may be left inside ZIPFoundation, which must not
                // then read another entry beside it.
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
            throw .severalHealthExports(names: exports.map { String(TerminalSafeText.sanitized($0).prefix(200)) })
        }
    }

    /// The start of `entry`, inflated until its prolog ends (its root element is named) or
    /// `ActivityFileFormat.sniffLength` bytes; the helper thread is stopped after.
    private static func peek(
        _ entry: Entry, archive: Archive, budget: ArchiveBudget,
        limits: ActivityReaderLimits
    ) throws(ActivityFileError) -> [UInt8] {
        let compressed = Int64(clamping: entry.compressedSize)
        let pipe = ZipEntryPipe(
            name: TerminalSafeText.sanitized(entry.path), bound: bound(compressed: compressed, limits: limits),
            limits: limits, budget: budget)
        pipe.start(archive: ArchiveBox(archive: archive), entry: entry)
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

    /// The size of the file at `path`, or `Int64.max` when it cannot be known.
    private static func fileSize(_ path: String) -> Int64 {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber
        return size?.int64Value ?? Int64.max
    }

    /// Inflates `item` into `body` as a `ByteStream`; the helper thread has ended (or
    /// been told to stop) when this returns.
    public func read<T>(_ item: Item, _ body: (ZipEntryByteStream) throws(ActivityFileError) -> T) throws(ActivityFileError) -> T {
        guard let entry = entriesByPath[item.path] else { throw .noHealthExportInZip }
        let pipe = ZipEntryPipe(
            name: TerminalSafeText.sanitized(item.path),
            bound: Self.bound(compressed: item.compressedSize, limits: limits),
            limits: limits, budget: budget)
        pipe.start(archive: ArchiveBox(archive: archive), entry: entry)
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

    /// False for an absolute name, a drive letter, a backslash, or any `..` component.
    static func isSafe(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        if name.count >= 2, name.dropFirst().first == ":" { return false }
        return !name.split(separator: "/", omittingEmptySubsequences: false).contains("..")
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case let archiveError as Archive.ArchiveError: "\(archiveError)"
        default: TerminalSafeText.sanitized(String(describing: error))
        }
    }
}

/// Lets the archive cross to the helper thread; only one thread uses it at a time (the caller
/// waits in `read` until the helper has ended).
struct ArchiveBox: @unchecked Sendable {
    let archive: Archive
}

/// Lets the entry cross to the helper thread.
struct EntryBox: @unchecked Sendable {
    let entry: Entry
}

/// One zip entry's bytes, inflated on a helper thread and read here in order.
public struct ZipEntryByteStream: ByteStream {
    let pipe: ZipEntryPipe

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        try pipe.read(into: buffer)
    }
}

/// The hand-over between ZIPFoundation's inflating thread and the reader: at most `capacity`
/// pieces queued, both sides blocking on one condition.
final class ZipEntryPipe: @unchecked Sendable {
    private let condition = NSCondition()
    private let name: String
    private let bound: Int64
    private let limits: ActivityReaderLimits
    private let budget: ArchiveBudget
    private let capacity = 2
    private var pieces: [Data] = []
    private var offset = 0
    private var produced: Int64 = 0
    private var finished = false
    private var stopped = false
    private var failure: ActivityFileError?

    /// Stopped on purpose: ends `extract` from inside its consumer.
    private struct Stop: Error {}

    init(name: String, bound: Int64, limits: ActivityReaderLimits, budget: ArchiveBudget) {
        self.name = name
        self.bound = bound
        self.limits = limits
        self.budget = budget
    }

    func start(archive: ArchiveBox, entry: Entry) {
        let entry = EntryBox(entry: entry)
        let thread = Thread { [self] in
            do {
                _ = try archive.archive.extract(entry.entry, bufferSize: 64 * 1024, skipCRC32: false) { data in
                    try self.push(data)
                }
                finish(nil)
            } catch is Stop {
                finish(nil)
            } catch let error as ActivityFileError {
                finish(error)
            } catch {
                finish(.damagedZipEntry(name: name, reason: HealthExportArchive.describe(error)))
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Called on the helper thread with each inflated piece.
    private func push(_ data: Data) throws {
        condition.lock()
        defer { condition.unlock() }
        produced += Int64(data.count)
        guard produced <= bound else {
            throw ActivityFileError.zipEntryTooLarge(name: name, limit: limits.maxZipEntryBytes, ratio: limits.maxCompressionRatio)
        }
        try budget.add(Int64(data.count))
        while pieces.count >= capacity, !stopped { condition.wait() }
        if stopped { throw Stop() }
        if !data.isEmpty { pieces.append(data) }
        condition.broadcast()
    }

    private func finish(_ error: ActivityFileError?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the reader: the next bytes, 0 at the end, the helper's failure once it is reached.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        condition.lock()
        defer { condition.unlock() }
        // Two quiet half-windows in a row, with nothing inflated in between, is a stall; one is
        // not (the process may just have been stopped and continued).
        var quietWindows = 0
        var producedBefore = produced
        while pieces.isEmpty, !finished {
            if condition.wait(until: Date().addingTimeInterval(limits.zipStallTimeout / 2)) { continue }
            if produced != producedBefore || !pieces.isEmpty || finished {
                producedBefore = produced
                quietWindows = 0
                continue
            }
            quietWindows += 1
            if quietWindows >= 2 {
                // ZIPFoundation keeps reading at the end of the file when a deflate stream never
                // ends; the helper is told to stop, and left behind if it cannot.
                stopped = true
                throw .damagedZipEntry(
                    name: name, reason: "its compressed data gave nothing for \(Int(limits.zipStallTimeout)) s; it never ends")
            }
        }
        if let piece = pieces.first {
            let count = min(buffer.count, piece.count - offset)
            piece.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
            }
            offset += count
            if offset == piece.count {
                pieces.removeFirst()
                offset = 0
                condition.broadcast()
            }
            return count
        }
        if let failure { throw failure }
        return 0
    }

    /// Reads whatever the reader left, so the entry's checksum is checked; throws its failure.
    func drain() throws(ActivityFileError) {
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let result = scratch.withUnsafeMutableBytes { buffer -> Result<Int, ActivityFileError> in
                do throws(ActivityFileError) { return .success(try read(into: buffer)) } catch { return .failure(error) }
            }
            if try result.get() == 0 { return }
        }
    }

    /// Tells the helper to stop and waits until it has — at most a second: a helper stuck inside
    /// ZIPFoundation's inflate loop (a stream that never ends) never comes back, and is left.
    func stopAndWait() {
        condition.lock()
        stopped = true
        pieces = []
        condition.broadcast()
        let deadline = Date().addingTimeInterval(1)
        while !finished, condition.wait(until: deadline) {}
        condition.unlock()
    }
}

/// The bounds of a whole archive: the bytes all its entries read (or peeked at) inflate to, at
/// most `ActivityReaderLimits.maxArchiveInflatedBytes` and at most
/// `maxArchiveCompressionRatio` times the compressed bytes the zip holds (plus one
/// `zipRatioAllowance` for the archive, not one per entry: per entry, 3,000 small routes were
/// allowed 3 GB).
final class ArchiveBudget: @unchecked Sendable {
    private let lock = NSLock()
    private let byteLimit: Int64
    private let ratio: Int64
    private let ratioBound: Int64
    private var inflated: Int64 = 0

    init(compressedBytes: Int64, limits: ActivityReaderLimits) {
        byteLimit = limits.maxArchiveInflatedBytes
        ratio = limits.maxArchiveCompressionRatio
        let (byRatio, overflow) = compressedBytes.multipliedReportingOverflow(by: limits.maxArchiveCompressionRatio)
        ratioBound = overflow ? Int64.max : byRatio.addingReportingOverflow(limits.zipRatioAllowance).partialValue
    }

    /// Throws when `total` inflated bytes would break either bound, naming the one it breaks.
    func check(total: Int64) throws(ActivityFileError) {
        if total > byteLimit { throw .zipArchiveTooLarge(.inflatedBytes(byteLimit)) }
        if total > ratioBound { throw .zipArchiveTooLarge(.compressionRatio(ratio)) }
    }

    /// Counts `count` more inflated bytes; throws once the archive's bounds are broken.
    func add(_ count: Int64) throws(ActivityFileError) {
        lock.lock()
        defer { lock.unlock() }
        inflated = inflated.addingReportingOverflow(count).overflow ? Int64.max : inflated + count
        try check(total: inflated)
    }
}
