import DustKit
import Foundation
import ZIPFoundation

/// Apple Health's `export.zip`, read as a zip: its directory is checked first, then the entries
/// FineDust needs are inflated one piece at a time into the readers. Nothing is ever written to
/// disk, and no entry is held whole in memory.
///
/// ZIPFoundation reads the directory and inflates (zlib). Its `extract(_:consumer:)` pushes
/// pieces while the readers pull them (`ActivityByteSource`), so each entry is inflated on a
/// helper thread that hands over at most two 64 KiB pieces at a time (`ZipEntryPipe`); the
/// reader's thread is never more than two pieces behind. Every entry's size is bounded twice, in
/// absolute bytes and as a ratio to its compressed size (a zip bomb stops within one piece past
/// the bound).
public struct HealthExportArchive {
    /// The entry holding the export. A zip without it is still read when exactly one other
    /// top-level folder holds an `export.xml` (a renamed or localised folder).
    public static let exportPath = "apple_health_export/export.xml"

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
    /// `apple_health_export/export.xml`.
    public let export: Item
    /// Every `apple_health_export/workout-routes/*.gpx`, by path.
    public let routes: [Item]

    /// Opens the zip at `path` and checks its directory: every entry's name (none absolute, none
    /// with a `..` component), the number of entries, and the declared sizes.
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
        let candidates = entries.keys.filter { name in
            let parts = name.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && parts[1] == "export.xml"
        }
        let exportPath = entries[Self.exportPath] != nil ? Self.exportPath : (candidates.count == 1 ? candidates[0] : nil)
        guard let exportPath, let exportEntry = entries[exportPath] else { throw .noHealthExportInZip }
        let routesFolder = String(exportPath.dropLast("export.xml".count)) + "workout-routes/"
        entriesByPath = entries
        func item(_ entry: Entry) throws(ActivityFileError) -> Item {
            let declared = Int64(clamping: entry.uncompressedSize)
            let compressed = Int64(clamping: entry.compressedSize)
            guard declared <= Self.bound(compressed: compressed, limits: limits) else {
                throw .zipEntryTooLarge(name: TerminalSafeText.sanitized(entry.path), limit: limits.maxZipEntryBytes,
                                        ratio: limits.maxCompressionRatio)
            }
            return Item(path: entry.path, declaredSize: declared, compressedSize: compressed)
        }
        export = try item(exportEntry)
        var routes: [Item] = []
        for (name, entry) in entries.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(routesFolder) && name.lowercased().hasSuffix(".gpx")
            && !name.dropFirst(routesFolder.count).contains("/") {
            routes.append(try item(entry))
        }
        self.routes = routes
    }

    /// Inflates `item` into `body` as an `ActivityByteSource`; the helper thread has ended (or
    /// been told to stop) when this returns.
    public func read<T>(_ item: Item, _ body: (ZipEntryByteSource) throws(ActivityFileError) -> T) throws(ActivityFileError) -> T {
        guard let entry = entriesByPath[item.path] else { throw .noHealthExportInZip }
        let pipe = ZipEntryPipe(name: TerminalSafeText.sanitized(item.path),
                                bound: Self.bound(compressed: item.compressedSize, limits: limits),
                                limits: limits)
        pipe.start(archive: ArchiveBox(archive: archive), entry: entry)
        defer { pipe.stopAndWait() }
        let result = try body(ZipEntryByteSource(pipe: pipe))
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
public struct ZipEntryByteSource: ActivityByteSource {
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
    private let capacity = 2
    private var pieces: [Data] = []
    private var offset = 0
    private var produced: Int64 = 0
    private var finished = false
    private var stopped = false
    private var failure: ActivityFileError?

    /// Stopped on purpose: ends `extract` from inside its consumer.
    private struct Stop: Error {}

    init(name: String, bound: Int64, limits: ActivityReaderLimits) {
        self.name = name
        self.bound = bound
        self.limits = limits
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
                throw .damagedZipEntry(name: name, reason: "its compressed data gave nothing for \(Int(limits.zipStallTimeout)) s; it never ends")
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
