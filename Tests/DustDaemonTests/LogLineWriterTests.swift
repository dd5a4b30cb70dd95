import DustDaemon
import Foundation
import Testing

/// A log reader that stops reading (journald stalled on a slow SD card, `dustd 2>&1 | less` left
/// open) used to block the thread that logged, and so polling and the stop with it.
@Suite("dustd's log lines are written by a thread of their own", .timeLimit(.minutes(10)))
struct LogLineWriterTests {
    @Test("A reader that stops reading: lines past the capacity are dropped and counted, no write waits, drain gives up at its deadline")
    func readerNotReading() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        // The pipe filled to the brim first, as by a reader that stopped long ago.
        let writeFlags = fcntl(ends[1], F_GETFL)
        _ = fcntl(ends[1], F_SETFL, writeFlags | O_NONBLOCK)
        let filler = [UInt8](repeating: UInt8(ascii: "f"), count: 4096)
        while write(ends[1], filler, filler.count) > 0 {}
        _ = fcntl(ends[1], F_SETFL, writeFlags)
        let writer = LogLineWriter(descriptor: ends[1], capacity: 16 << 10)
        let line = String(repeating: "x", count: 99) + "\n"
        // 1,000 lines of 100 bytes: the writer queues 16 KiB of them (163 lines) and drops the rest.
        // No write waits for the reader: were one to, this loop would never end (the reader reads nothing).
        for _ in 0..<1_000 { writer.write(line) }
        // Nor does the drain: it gives up at its deadline (the writer is still blocked), not before it.
        let drainStarted = Date()
        writer.drain(within: 0.5)
        let waited = Date().timeIntervalSince(drainStarted)
        #expect(waited >= 0.4, "\(waited)")
        // The reader reads again: what was kept arrives, then the count of what was dropped with the next line.
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let flags = fcntl(ends[0], F_GETFL)
        _ = fcntl(ends[0], F_SETFL, flags | O_NONBLOCK)
        func readAvailable() {
            while true {
                let count = read(ends[0], &buffer, buffer.count)
                guard count > 0 else { return }
                received.append(contentsOf: buffer[..<count])
            }
        }
        // The count may come in two lines: the writing thread can take the first drops with the
        // queued lines (and so report them) while the pipe still refuses, and count the rest anew.
        let dropNotice = /(\d+) log lines? (?:was|were) dropped: the log's reader \(the journal, a pipe\) was not reading\n/
        func keptAndDropped() -> (kept: Int, dropped: Int) {
            let text = String(decoding: received, as: UTF8.self)
            let dropped = text.matches(of: dropNotice).reduce(0) { $0 + (Int($1.1) ?? 0) }
            return (text.components(separatedBy: line).count - 1, dropped)
        }
        let deadline = Date(timeIntervalSinceNow: 10)
        while Date() < deadline {
            readAvailable()
            writer.write("after\n")
            writer.drain(within: 0.2)
            readAvailable()
            let counts = keptAndDropped()
            if counts.kept + counts.dropped >= 1_000 { break }
        }
        let (kept, dropped) = keptAndDropped()
        // 163 queued, and those the writing thread had taken before the pipe refused them.
        #expect((163..<400).contains(kept), "\(kept)")
        #expect(dropped > 0)
        #expect(dropped == 1_000 - kept)
    }

    @Test("A reader that reads gets every line, in order")
    func everyLineInOrder() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let writer = LogLineWriter(descriptor: ends[1])
        for number in 0..<500 { writer.write("line \(number)\n") }
        writer.drain(within: 10)
        close(ends[1])
        let text = String(decoding: FileHandle(fileDescriptor: ends[0]).readDataToEndOfFile(), as: UTF8.self)
        #expect(text == (0..<500).map { "line \($0)\n" }.joined())
    }
}
