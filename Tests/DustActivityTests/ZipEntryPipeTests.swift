import Foundation
import Testing

@testable import DustActivity

@Suite("Zip entry hand-over")
struct ZipEntryPipeTests {
    @Test("An inflater that never hands over a byte is given up after two quiet half-windows, and not waited for")
    func stall() {
        let limits = ActivityReaderLimits(zipStallTimeout: 0.4)
        let pipe = ZipEntryPipe(
            name: "apple_health_export/export.xml", bound: 1 << 20, limits: limits,
            budget: ArchiveBudget(compressedBytes: 1 << 20, limits: limits))
        var buffer = [UInt8](repeating: 0, count: 16)
        let started = Date()
        #expect(
            throws: ActivityFileError.damagedZipEntry(
                name: "apple_health_export/export.xml",
                reason: "its compressed data gave nothing for 0 s; it never ends")
        ) {
            _ = try buffer.withUnsafeMutableBytes { try pipe.read(into: $0) }
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.4 && waited < 3, "waited \(waited) s")
        pipe.stopAndWait()  // the helper never finishes: given a second, then left
        #expect(Date().timeIntervalSince(started) < 4)
    }
}
