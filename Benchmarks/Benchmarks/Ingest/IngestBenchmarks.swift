import AirKorea
import Benchmark
import BenchmarkFixtures
import CBaselines
import DustKit
import DustServices
import DustStore
import Foundation

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("finedust-bench-\(getpid())")

/// A new, migrated, empty database for one iteration (not measured).
func freshDatabase(_ label: String, _ iteration: Int) -> String {
    try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    let path = scratch.appendingPathComponent("\(label)-\(iteration).sqlite").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    _ = try! SQLiteStore(path: path)
    return path
}

/// Numbers the databases of successive samples.
final class Counter: @unchecked Sendable {
    private var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 2, maxDuration: .seconds(5), maxIterations: 200)
    for response in responses {
        // Each sample inserts into a new empty database; only parse + upsert is measured.
        let fineDustIteration = Counter()
        // IngestService is async (the store protocols are); the upsert runs on GRDB's writer queue, awaited.
        Benchmark("ingest \(response.name) FineDust parse+upsert") { benchmark async throws in
            let store = try SQLiteStore(path: freshDatabase("finedust", fineDustIteration.next()))
            let ingest = IngestService(store: store)
            benchmark.startMeasurement()
            let report = try await ingest.ingest(response.body, requestedStation: nil)
            benchmark.stopMeasurement()
            precondition(report.stored.inserted == response.items)
        }
        let floorIteration = Counter()
        Benchmark("ingest \(response.name) C prepared INSERT floor") { benchmark in
            // The floor gets its rows already extracted: only the SQLite work is measured.
            let page = try AirKoreaResponseParser().parseMeasurements(response.body)
            var items = page.readings.map { reading -> fd_item in
                var item = fd_item()
                withUnsafeMutableBytes(of: &item.stationName) { buffer in
                    buffer.copyBytes(from: Array(reading.station.utf8.prefix(63)) + [0])
                }
                item.pm10 = reading.concentration.fineDust ?? -1
                item.pm25 = reading.concentration.ultraFineDust ?? -1
                return item
            }
            let slots = page.readings.map(\.slot.startEpochSeconds)
            let path = freshDatabase("floor", floorIteration.next())
            benchmark.startMeasurement()
            let status = fd_sqlite_floor(path, &items, slots, items.count)
            benchmark.stopMeasurement()
            precondition(status == 0)
        }
    }
}
