import DustKit
import DustServices
import Foundation

extension MemoryStore {
    public func saveAdvisories(_ advisories: [Advisory], fetchedAt: Date) throws(StorageFailure) -> Int {
        advisoryTable.withLock { table in
            var changed = 0
            for advisory in advisories {
                let key = "\(advisory.pollutant.rawValue)\u{1F}\(advisory.key)"
                guard table[key] != advisory else { continue }
                table[key] = advisory
                changed += 1
            }
            return changed
        }
    }

    public func advisories(from start: Date, to end: Date) throws(StorageFailure) -> [Advisory] {
        sorted { ($0.issuedAt >= start && $0.issuedAt < end) || ($0.issuedAt < start && $0.isActive(at: start)) }
    }

    public func activeAdvisories(at now: Date) throws(StorageFailure) -> [Advisory] {
        sorted { $0.isActive(at: now) }
    }

    /// Newest issue first, then pollutant and key, as the SQLite store orders them.
    private func sorted(where included: (Advisory) -> Bool) -> [Advisory] {
        advisoryTable.withLock { Array($0.values) }.filter(included).sorted {
            ($0.issuedAt, $1.pollutant.rawValue, $1.key) > ($1.issuedAt, $0.pollutant.rawValue, $0.key)
        }
    }
}
