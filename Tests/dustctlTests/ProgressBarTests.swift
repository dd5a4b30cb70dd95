import DustServices
import Foundation
import Testing

@testable import dustctl

@Suite("Import progress bar", .timeLimit(.minutes(10)))
struct ProgressBarTests {
    /// A clock the test moves by hand.
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_000_000)
    }

    @Test("Nothing in the first second; then at most one redraw per 0.1 s; cleared at the end")
    func throttled() {
        let clock = Clock()
        var written: [String] = []
        let bar = ProgressBar(label: "export.zip", enabled: true, clock: { clock.now }, write: { written.append($0) })
        let start = clock.now
        for (seconds, bytes) in [
            (0.5, 10_000_000), (0.99, 20_000_000), (1.0, 50_000_000), (1.05, 51_000_000), (1.2, 55_000_000), (1.25, 56_000_000),
        ] {
            clock.now = start.addingTimeInterval(seconds)
            bar.update(ActivityImportProgress(bytesRead: Int64(bytes), totalBytes: 100_000_000))
        }
        // Drawn at 1.0 s and 1.2 s only: 50 MB in 1 s is 50 MB/s, the other 50 MB take 1 s more;
        // 55 MB in 1.2 s is 45.8 MB/s, 45 MB left take 0.98 s, shown as 1.
        #expect(
            written == [
                "\rexport.zip [##########          ]  50% 50.0/100.0 MB  50.0 MB/s  1 s left\u{1B}[K",
                "\rexport.zip [###########         ]  55% 55.0/100.0 MB  45.8 MB/s  1 s left\u{1B}[K",
            ])
        bar.finish()
        #expect(written.last == "\r\u{1B}[K")
        #expect(written.count == 3)
    }

    @Test("Not on a terminal (or --quiet, --json): never drawn, nothing to clear")
    func disabled() {
        let clock = Clock()
        var written: [String] = []
        let bar = ProgressBar(label: "export.zip", enabled: false, clock: { clock.now }, write: { written.append($0) })
        clock.now = clock.now.addingTimeInterval(5)
        bar.update(ActivityImportProgress(bytesRead: 1, totalBytes: 2))
        bar.finish()
        #expect(written.isEmpty)
    }

    @Test("The line: 3 of 12 GB after 60 s is 50 MB/s and 180 s left")
    func line() {
        #expect(
            ProgressBar.line(label: "export.zip", ActivityImportProgress(bytesRead: 3_000_000_000, totalBytes: 12_000_000_000), elapsed: 60)
                == "export.zip [#####               ]  25% 3000.0/12000.0 MB  50.0 MB/s  180 s left")
    }
}
