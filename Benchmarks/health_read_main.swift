// FineDust's Apple Health reader alone, as one process, for Benchmarks/heart-rate-import.sh: the
// sources of DustKit and DustActivity (without the zip reader) compiled with this file, reading an
// export.xml with its heart rate, resting rates and sleep (docs/REFERENCE.md §18) into a
// HealthPhysiology, and distances into hours as `dustctl activity import` does. Prints the counts.
import Foundation

@main
struct HealthRead {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: health-read export.xml\n".utf8))
            exit(64)
        }
        let descriptor = open(arguments[1], O_RDONLY)
        guard descriptor >= 0 else {
            FileHandle.standardError.write(Data("health-read: cannot open \(arguments[1])\n".utf8))
            exit(66)
        }
        defer { close(descriptor) }
        var physiology = HealthPhysiology()
        var apportioner = SlotApportioner()
        do {
            let summary = try HealthExportReader(now: Date()).read(
                FileDescriptorByteStream(fileDescriptor: descriptor), physiology: &physiology
            ) {
                apportioner.add($0)
            }
            print(
                "\(summary.distanceRecords) distance records in \(apportioner.metresBySource.values.map(\.count).reduce(0, +)) source hours, "
                    + "\(physiology.heartRate.count) heart-rate samples (\(physiology.heartRateOutOfRange) out of range, "
                    + "\(physiology.heartRate.storageBytes / 1_048_576) MiB), \(physiology.restingHeartRates.count) resting rates, "
                    + "\(physiology.sleep.count) sleep intervals from \(physiology.asleepRecords) asleep records "
                    + "(\(physiology.sleepOverlapsMerged) overlaps merged), \(summary.skippedRecordsByType.values.reduce(0, +)) other records"
            )
        } catch {
            FileHandle.standardError.write(Data("health-read: \(error)\n".utf8))
            exit(65)
        }
    }
}
