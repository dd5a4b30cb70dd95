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
        var count = 0
        for entry in archive {
            count += 1
            guard count <= limits.maxZipEntries else { throw .tooManyZipEntries(limit: limits.maxZipEntries) }
            let name = entry.path
            guard Self.isSafe(name) else { throw .unsafeZipEntry(name: String(TerminalSafeText.sanitized(name).prefix(200))) }
            if entry.type == .file { entries[name] = entry }
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
            throw .severalHealthExports(names: exports.map { String(TerminalSafeText.sanitized($0).prefix(200)) })
        }
    }

    /// The start of `entry`, inflated until its prolog ends (its root element is named) or
    /// `ActivityFileFormat.sniffLength` bytes; the helper thread is stopped after.
    private static func peek(
        _ entry: Entry, file: RegularFile, budget: ArchiveBudget,
        limits: ActivityReaderLimits
    ) throws(ActivityFileError) -> [UInt8] {
        let compressed = Int64(clamping: entry.compressedSize)
        let pipe = ZipEntryPipe(
            name: TerminalSafeText.sanitized(entry.path), bound: bound(compressed: compressed, limits: limits),
            limits: limits, budget: budget)
        pipe.start(try ZipEntryData.locate(entry, in: file, name: TerminalSafeText.sanitized(entry.path)))
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
        let pipe = ZipEntryPipe(
            name: TerminalSafeText.sanitized(item.path),
            bound: Self.bound(compressed: item.compressedSize, limits: limits),
            limits: limits, budget: budget)
        pipe.start(try ZipEntryData.locate(entry, in: file, name: TerminalSafeText.sanitized(item.path)))
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

/// Where one entry's compressed bytes lie in the zip, and how to inflate them, never past the
/// entry's compressed size.
///
/// ZIPFoundation 0.9.20 (pinned exactly in Package.swift) inflates with a provider that reads on
/// past the entry into the rest of the file and, at the file's end, keeps asking for more: a deflate
/// stream that never ends (a stored block longer than the file) spun its thread forever. So the
/// library lists the entries and this reads and inflates them, with zlib.
struct ZipEntryData: Sendable {
    let file: RegularFile
    /// The entry's name, safe for a terminal.
    let name: String
    let dataOffset: UInt64
    let compressedSize: UInt64
    let isDeflated: Bool
    let checksum: UInt32

    /// Finds `entry`'s data in `file`. Its size, checksum and local header's offset are the central
    /// directory's (ZIPFoundation reads them but keeps them internal, so they are read by reflection,
    /// the ZIP64 extra field parsed here; a data descriptor, which ZIPFoundation would prefer, is
    /// only a copy the directory is the authority over). Then the local header itself is read and
    /// checked (its signature, not encrypted, stored or deflated) before anything after it is trusted,
    /// and the data must lie inside the file.
    static func locate(_ entry: Entry, in file: RegularFile, name: String) throws(ActivityFileError) -> ZipEntryData {
        guard let directory = Mirror(reflecting: entry).descendant("centralDirectoryStructure").map(Mirror.init(reflecting:)),
            let offset32 = directory.descendant("relativeOffsetOfLocalHeader") as? UInt32,
            let compressed32 = directory.descendant("compressedSize") as? UInt32,
            let uncompressed32 = directory.descendant("uncompressedSize") as? UInt32,
            let checksum = directory.descendant("crc32") as? UInt32,
            let extra = directory.descendant("extraFieldData") as? Data
        else {
            throw .unreadableZip(reason: "this build's zip library does not say where entries start")
        }
        // ZIP64: the 8-byte values stand in the extra field for the fields that hold 0xFFFFFFFF, in
        // the order uncompressed size, compressed size, offset.
        var wide = zip64Values(extra: [UInt8](extra))
        func value(_ narrow: UInt32) throws(ActivityFileError) -> UInt64 {
            guard narrow == 0xFFFF_FFFF else { return UInt64(narrow) }
            guard !wide.isEmpty else { throw .damagedZipEntry(name: name, reason: "its ZIP64 extra field is missing or short") }
            return wide.removeFirst()
        }
        _ = try value(uncompressed32)
        let compressedSize = try value(compressed32)
        let headerOffset = try value(offset32)
        let header = try file.bytes(30, at: headerOffset)
        func le(_ at: Int, _ count: Int) -> UInt64 { header.littleEndian(at: at, bytes: count) }
        guard header.count == 30, le(0, 4) == 0x0403_4B50 else {
            throw .damagedZipEntry(name: name, reason: "no local header where the directory says it starts")
        }
        guard le(6, 2) & 1 == 0 else { throw .damagedZipEntry(name: name, reason: "it is encrypted") }
        let method = le(8, 2)
        guard method == 0 || method == 8 else {
            throw .damagedZipEntry(name: name, reason: "compression method \(method), neither stored nor deflated")
        }
        let dataOffset = headerOffset + 30 + le(26, 2) + le(28, 2)
        guard dataOffset <= file.size, compressedSize <= file.size - dataOffset else {
            throw .damagedZipEntry(name: name, reason: "its compressed data would end past the end of the file")
        }
        return ZipEntryData(
            file: file, name: name, dataOffset: dataOffset, compressedSize: compressedSize, isDeflated: method == 8,
            checksum: checksum)
    }

    /// The 8-byte values of a ZIP64 extra field (header 0x0001), in order; none without one.
    static func zip64Values(extra: [UInt8]) -> [UInt64] {
        guard let field = ZipDirectoryCheck.zip64Field(in: extra) else { return [] }
        return stride(from: field.lowerBound, to: field.upperBound - 7, by: 8).map { extra.littleEndian(at: $0, bytes: 8) }
    }

    /// Hands the entry's inflated bytes to `consumer` in pieces of at most `bufferSize` and checks
    /// its checksum. Throws `.damagedZipEntry` when the compressed bytes end before the deflate
    /// stream does, when the deflated data is corrupt, or when the checksum differs; `stop` is asked
    /// before every read, and what it throws ends the inflate.
    func inflate(bufferSize: Int, stop: () throws -> Void, consumer: (Data) throws -> Void) throws {
        let input = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        defer { input.deallocate() }
        var position = dataOffset
        let end = dataOffset + compressedSize
        /// The next piece of compressed bytes into `input`: how many (0 at the entry's end).
        func next() throws -> Int {
            try stop()
            let wanted = Int(min(UInt64(bufferSize), end - position))
            guard wanted > 0 else { return 0 }
            let got = try file.read(wanted, at: position, into: input)
            guard got == wanted else {
                throw ActivityFileError.damagedZipEntry(name: name, reason: "the file ends inside its compressed data")
            }
            position += UInt64(got)
            return got
        }
        var crc = crc32(0, nil, 0)
        func hand(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) throws {
            crc = CZlibInflate.crc32(crc, bytes, uInt(count))
            try consumer(Data(bytes: bytes, count: count))
        }
        if isDeflated {
            try inflateDeflated(bufferSize: bufferSize, input: input, next: next, hand: hand)
        } else {
            while position < end {
                let count = try next()
                try hand(input, count)
            }
        }
        guard crc == checksum else {
            throw ActivityFileError.damagedZipEntry(name: name, reason: "its checksum does not match its data")
        }
    }

    /// zlib's raw inflate over the pieces `next` reads into `input` (`avail_in` is what was read,
    /// never more), until the stream's end. Every call of `inflate` either takes input or gives
    /// output, and both are bounded (the entry's size; the consumer's bound), so this ends.
    private func inflateDeflated(
        bufferSize: Int, input: UnsafeMutablePointer<UInt8>, next: () throws -> Int,
        hand: (UnsafeMutablePointer<UInt8>, Int) throws -> Void
    ) throws {
        // On the heap: zlib checks that every call passes the stream it was started with.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard inflateInit2_(stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ActivityFileError.damagedZipEntry(name: name, reason: "zlib could not start inflating")
        }
        defer { inflateEnd(stream) }
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        defer { output.deallocate() }
        var inputLeft = true
        while true {
            // More input only once zlib has taken all it had: with the last byte taken and the
            // output full, the stream may still end on the next call without any.
            if stream.pointee.avail_in == 0, inputLeft {
                let count = try next()
                inputLeft = count > 0
                stream.pointee.next_in = input
                stream.pointee.avail_in = uInt(count)
            }
            stream.pointee.next_out = output
            stream.pointee.avail_out = uInt(bufferSize)
            let status = CZlibInflate.inflate(stream, Z_NO_FLUSH)
            let produced = bufferSize - Int(stream.pointee.avail_out)
            if produced > 0 { try hand(output, produced) }
            switch status {
            case Z_STREAM_END: return
            case Z_OK: continue
            // No progress was possible: more input is wanted, and there is none.
            case Z_BUF_ERROR where stream.pointee.avail_in == 0 && !inputLeft:
                throw ActivityFileError.damagedZipEntry(name: name, reason: "its compressed data ends before its deflate stream does")
            case Z_BUF_ERROR where stream.pointee.avail_in == 0: continue
            case Z_MEM_ERROR:
                throw ActivityFileError.damagedZipEntry(name: name, reason: "zlib ran out of memory inflating it")
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw ActivityFileError.damagedZipEntry(
                    name: name, reason: "its deflated data is corrupt: \(TerminalSafeText.sanitized(message))")
            }
        }
    }
}

/// One zip entry's bytes, inflated on a helper thread and read here in order.
public struct ZipEntryByteStream: ByteStream {
    let pipe: ZipEntryPipe

    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws(ActivityFileError) -> Int {
        try pipe.read(into: buffer)
    }
}

/// The hand-over between the inflating helper thread and the reader: at most `capacity`
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

    /// Stopped on purpose: ends the inflate from inside its consumer or before its next read.
    private struct Stop: Error {}

    init(name: String, bound: Int64, limits: ActivityReaderLimits, budget: ArchiveBudget) {
        self.name = name
        self.bound = bound
        self.limits = limits
        self.budget = budget
    }

    func start(_ entry: ZipEntryData) {
        do {
            try OwnThread.start(stackSize: 1 << 20) { [self] in
                do {
                    try entry.inflate(bufferSize: 64 * 1024, stop: checkStopped, consumer: push)
                    finish(nil)
                } catch is Stop {
                    finish(nil)
                } catch let error as ActivityFileError {
                    finish(error)
                } catch {
                    finish(.damagedZipEntry(name: name, reason: HealthExportArchive.describe(error)))
                }
            }
        } catch {
            // No thread, no inflate: the reader is told at once instead of waiting for a piece for good.
            finish(.damagedZipEntry(name: name, reason: error.description))
        }
    }

    /// Called on the helper thread before each read of compressed bytes.
    private func checkStopped() throws {
        condition.lock()
        defer { condition.unlock() }
        if stopped { throw Stop() }
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
        while pieces.isEmpty, !finished { condition.wait() }
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

    /// Tells the helper to stop and waits until it has: it asks before every read of compressed
    /// bytes and every hand-over, so it ends within one piece's inflate.
    func stopAndWait() {
        condition.lock()
        stopped = true
        pieces = []
        condition.broadcast()
        while !finished { condition.wait() }
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
