import Foundation

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
