import DustKit
import Foundation

/// A distance walked or run between two instants, as one source recorded it.
///
/// `source` is the key a slot's distance is stored and merged under (docs/REFERENCE.md §12):
/// `health:<sourceName>` for an Apple Health record, `gpx:<file name>` for a GPX track step.
public struct DistanceSample: Sendable, Hashable {
    public var source: String
    public var start: Date
    /// Never before `start`; equal to it for an instantaneous sample.
    public var end: Date
    public var metres: Double

    /// The most bytes of a device's or file's name a source keeps (`health:` or `gpx:` before them):
    /// real names are a few dozen, and a file's attribute may hold a MiB that would be stored in every
    /// row of the source (hours and tracked minutes alike).
    public static let maxSourceNameBytes = 256

    /// A device's or file's name (UTF-8) as its source keeps it: stored, shown and typed back
    /// (`activity forget`), so control characters and bidirectional overrides are written as escapes
    /// (`TerminalSafeText.escaped`), then cut after the last whole Unicode scalar that fits in
    /// `maxSourceNameBytes`. The same name gives the same source however often it passes here, and
    /// in whichever Unicode form it came (`NameForm`: a Mac names files in decomposed Hangul).
    public static func sourceName(_ name: some Collection<UInt8>) -> String {
        // Only the first bytes are decoded and escaped: the rest cannot be kept. (A decomposed name is
        // up to three times its composed bytes; the bytes decoded cover the longest that can be kept.)
        let decoded = String(decoding: name.prefix(3 * maxSourceNameBytes + 4), as: UTF8.self)
        let escaped = TerminalSafeText.escaped(NameForm.composed(decoded))
        guard escaped.utf8.count > maxSourceNameBytes else { return escaped }
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in escaped.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maxSourceNameBytes else { break }
            kept.append(scalar)
        }
        return String(kept)
    }

    public init(source: String, start: Date, end: Date, metres: Double) {
        self.source = source
        self.start = start
        self.end = end
        self.metres = metres
    }
}

extension DistanceSample {
    /// Above this speed (m/s) a track step or a Health record is taken for a GPS jump or a wrong
    /// entry: faster than anyone walks or runs, and than most trains.
    public static let maxSpeed = 30.0

    /// Whether covering `metres` in `seconds` is believable: at most `maxSpeed`, and with no time
    /// elapsed at most what `maxSpeed` covers in one second, the resolution of Apple's timestamps
    /// (two route points a few metres apart often share a second). Going back in time never is.
    public static func isPlausible(metres: Double, seconds: TimeInterval) -> Bool {
        guard seconds >= 0, metres.isFinite, seconds.isFinite else { return false }
        return seconds == 0 ? metres <= maxSpeed : metres / seconds <= maxSpeed
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
    /// `FileReference` paths collected from one export, and `workout-routes/*.gpx` read from one
    /// zip: one a workout, so 20,000 is ten years of five a day.
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
    /// Bytes all the entries read from one zip may inflate to together (`activity.maxInflatedBytes`):
    /// a real export.zip of 300 MB inflates to about 4 GB.
    public var maxArchiveInflatedBytes: Int64
    /// How many times the compressed bytes of the whole zip its entries may inflate to together
    /// (past one `zipRatioAllowance` for the archive). Real exports inflate 10–20 times.
    public var maxArchiveCompressionRatio: Int64
    /// (source, hour) pairs one file may give distance to: 20 years of every hour from five sources
    /// is 876,000, and people walk in a few hours a day; past this the file is refused rather than
    /// held in memory (2 M pairs are about 45 MB).
    public var maxSourceSlots: Int
    /// Minutes one file's tracks may give a position to, over all its sources (12 bytes each while
    /// read): 2 M is nearly four years of every minute; past this the file is refused rather than
    /// held in memory (docs/REFERENCE.md §19).
    public var maxTrackedMinutes: Int
    /// Distinct `sourceName`s one Health export may give walking distance under: a real export has a
    /// handful (an iPhone, a Watch, a few apps), and each source costs its own dictionaries while the
    /// file is read and its own rows after; past this the export is refused (docs/REFERENCE.md §12).
    public var maxHealthSources: Int

    public init(
        maxPrologBytes: Int = 1 << 20, maxBytesWithoutMarkup: Int = 1 << 20, maxDepth: Int = 64,
        maxSampleDuration: TimeInterval = 7 * 86_400, maxWorkoutRoutes: Int = 20_000,
        maxSkippedTypesNamed: Int = 512, maxZipEntryBytes: Int64 = 32 << 30, maxCompressionRatio: Int64 = 200,
        zipRatioAllowance: Int64 = 1 << 20, maxZipEntries: Int = 200_000,
        maxSourceSlots: Int = 2_000_000, maxArchiveInflatedBytes: Int64 = ActivityReaderLimits.defaultMaxArchiveInflatedBytes,
        maxArchiveCompressionRatio: Int64 = 100, maxTrackedMinutes: Int = 2_000_000, maxHealthSources: Int = 500
    ) {
        self.maxHealthSources = maxHealthSources
        self.maxTrackedMinutes = maxTrackedMinutes
        self.maxArchiveInflatedBytes = maxArchiveInflatedBytes
        self.maxArchiveCompressionRatio = maxArchiveCompressionRatio
        self.maxSourceSlots = maxSourceSlots
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

    /// 64 GiB: sixteen times the 4 GB a real 300 MB export.zip inflates to.
    public static let defaultMaxArchiveInflatedBytes: Int64 = 64 << 30
}
