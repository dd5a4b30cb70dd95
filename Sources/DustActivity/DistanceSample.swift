import Foundation

/// A distance walked or run between two instants, as one source recorded it.
///
/// `source` is the key a slot's distance is stored and merged under (SPEC §12):
/// `health:<sourceName>` for an Apple Health record, `gpx:<file name>` for a GPX track step.
public struct DistanceSample: Sendable, Hashable {
    public var source: String
    public var start: Date
    /// Never before `start`; equal to it for an instantaneous sample.
    public var end: Date
    public var metres: Double

    public init(source: String, start: Date, end: Date, metres: Double) {
        self.source = source
        self.start = start
        self.end = end
        self.metres = metres
    }
}

/// The bounds every activity reader keeps, so hostile input fails in bounded time and memory.
public struct ActivityReaderLimits: Sendable, Hashable {
    /// Bytes before the root element (XML declaration, comments, the DOCTYPE with its internal
    /// subset). Apple's subset is about 10 KB.
    public var maxPrologBytes: Int
    /// Bytes in a row without a `<`: bounds every attribute value and every text node before
    /// libxml2 buffers it. A Health `Record` start tag is well under 1 KB.
    public var maxBytesWithoutMarkup: Int
    /// Element nesting; a Health export nests 4 deep, a GPX track with extensions about 7.
    public var maxDepth: Int
    /// A record or track step longer than this is refused: apportioning it would touch every hour
    /// it spans.
    public var maxSampleDuration: TimeInterval
    /// `FileReference` paths collected from one export.
    public var maxWorkoutRoutes: Int
    /// Distinct record types named in the summary; the rest are counted under `otherTypesKey`.
    public var maxSkippedTypesNamed: Int
    /// Bytes one zip entry may inflate to: real exports reach a few GB.
    public var maxZipEntryBytes: Int64
    /// How many times its compressed size a zip entry may inflate to (past the first
    /// `zipRatioAllowance` bytes, which small entries may exceed it by). Health XML deflates about
    /// 10–20 times; a zip bomb, a thousand or more.
    public var maxCompressionRatio: Int64
    /// Inflated bytes always allowed, whatever the ratio.
    public var zipRatioAllowance: Int64
    /// Entries in one zip: an export holds export.xml, export_cda.xml and one file per route.
    public var maxZipEntries: Int
    /// (source, hour) pairs one file may give distance to: 20 years of every hour from five sources
    /// is 876,000, and people walk in a few hours a day; past this the file is refused rather than
    /// held in memory (2 M pairs are about 45 MB).
    public var maxSourceSlots: Int
    /// Seconds a zip entry may go without giving a byte: a deflate stream that never ends (cut off
    /// with the zip's directory intact) would otherwise keep the inflater reading at the file's end.
    public var zipStallTimeout: TimeInterval

    public init(maxPrologBytes: Int = 1 << 20, maxBytesWithoutMarkup: Int = 1 << 20, maxDepth: Int = 64,
                maxSampleDuration: TimeInterval = 7 * 86_400, maxWorkoutRoutes: Int = 100_000,
                maxSkippedTypesNamed: Int = 512, maxZipEntryBytes: Int64 = 32 << 30, maxCompressionRatio: Int64 = 200,
                zipRatioAllowance: Int64 = 1 << 20, maxZipEntries: Int = 200_000, zipStallTimeout: TimeInterval = 10,
                maxSourceSlots: Int = 2_000_000) {
        self.maxSourceSlots = maxSourceSlots
        self.zipStallTimeout = zipStallTimeout
        self.maxZipEntryBytes = maxZipEntryBytes
        self.maxCompressionRatio = maxCompressionRatio
        self.zipRatioAllowance = zipRatioAllowance
        self.maxZipEntries = maxZipEntries
        self.maxPrologBytes = maxPrologBytes
        self.maxBytesWithoutMarkup = maxBytesWithoutMarkup
        self.maxDepth = maxDepth
        self.maxSampleDuration = maxSampleDuration
        self.maxWorkoutRoutes = maxWorkoutRoutes
        self.maxSkippedTypesNamed = maxSkippedTypesNamed
    }
}
