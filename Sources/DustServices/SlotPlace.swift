import DustKit
import Foundation

/// What §19's weighting found for one person in one slot (docs/REFERENCE.md §19): the value at home,
/// the weighted value at each position of the track, the stations used and why a value fell back.
/// It depends only on the person's positions, the stations' values for the slot, the station list,
/// `home` and the radius; the home station's values, the body records and the schedule, which the
/// slot's intake also needs, are applied afresh at each read (`StatisticsService`). So it can be kept
/// (`SlotPlaceStore`) and a year read without weighing it again.
public struct SlotPlace: Sendable, Hashable {
    /// The weighting at home, per pollutant.
    public struct Home: Sendable, Hashable {
        /// The weighted value; nil where it fell back to the home station's.
        public var values: DustPair<Double?>
        /// The stations used, nearest first.
        public var stations: DustPair<[SlotPlaceSummary.UsedStation]>
        /// Why a value fell back (PM10's reason, else PM2.5's), as the hour says it.
        public var fallback: WeightingFallback?

        public init(values: DustPair<Double?>, stations: DustPair<[SlotPlaceSummary.UsedStation]>, fallback: WeightingFallback?) {
            self.values = values
            self.stations = stations
            self.fallback = fallback
        }
    }

    /// The weighting along the track.
    public struct Track: Sendable, Hashable {
        /// The instants of the positions that may cover part of the slot (from a minute before its
        /// start to its end), in time order.
        public var positions: [Date] = []
        /// Per position, its weighted values; nil where no station with a value stood within the
        /// radius (the position takes `C_home`) or where the position covers none of the slot.
        public var values: [DustPair<Double?>] = []
        /// The stations used at any position, each at its nearest, nearest first.
        public var stations = DustPair<[SlotPlaceSummary.UsedStation]>(repeating: [])
        /// Why a position's value fell back (the first such position's, PM10's before PM2.5's), as the hour says it.
        public var fallback: WeightingFallback?
    }

    /// How far back dustd keeps places after each poll (and a station list that moved a station
    /// has them weighed again): a year and a day, what an export of a year reads.
    public static let daysKept = 366

    /// The `daysKept` days through `today`, whose places dustd keeps.
    public static func keptDays(through today: LocalDate) -> (first: LocalDate, last: LocalDate) {
        (today.adding(days: 1 - daysKept), today)
    }

    /// nil for a person without `home`.
    public var home: Home?
    public var track: Track
    /// Whether a placed station near the slot's points (home and positions) had a value for it:
    /// without one, a track without national data or station positions leaves the hour as without §19.
    public var hasPlacedValue: Bool

    /// What a kept place was computed with besides the stored rows: the weighting's version, the
    /// radius and `home`. A place kept with other inputs is weighed again.
    public static func inputs(radiusKilometres: Double, home: GeoPoint?) -> String {
        let at = home.map { "\($0.latitude),\($0.longitude)" } ?? "none"
        return "v\(formatVersion) radius=\(radiusKilometres) home=\(at)"
    }

    // MARK: - Bytes

    /// The layout's version, the first byte; a change of layout or of the weighting raises it.
    static let formatVersion: UInt8 = 1

    /// Little-endian: version; flags (1: home, 2: a placed value); with home its two values (NaN for
    /// none), fallback and stations; the track's fallback, positions (seconds from the slot's start,
    /// then the two values) and stations. A fallback is 0 for none, else its place in `WeightingFallback`.
    public func bytes(slot: Slot) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(Self.formatVersion)
        writer.byte((home == nil ? 0 : 1) | (hasPlacedValue ? 2 : 0))
        if let home {
            writer.value(home.values.fineDust)
            writer.value(home.values.ultraFineDust)
            writer.fallback(home.fallback)
            writer.stations(home.stations.fineDust)
            writer.stations(home.stations.ultraFineDust)
        }
        writer.fallback(track.fallback)
        writer.count(track.positions.count)
        for (instant, values) in zip(track.positions, track.values) {
            writer.integer(Int32(instant.timeIntervalSince(slot.start)))
            writer.value(values.fineDust)
            writer.value(values.ultraFineDust)
        }
        writer.stations(track.stations.fineDust)
        writer.stations(track.stations.ultraFineDust)
        return writer.bytes
    }

    /// The place `bytes(slot:)` wrote; nil for bytes of another version or that do not parse (the
    /// place is then weighed again).
    public init?(bytes: [UInt8], slot: Slot) {
        var reader = ByteReader(bytes)
        guard reader.byte() == Self.formatVersion, let flags = reader.byte() else { return nil }
        if flags & 1 != 0 {
            guard let fine = reader.value(), let ultraFine = reader.value(), let fallback = reader.fallback(),
                let fineStations = reader.stations(), let ultraFineStations = reader.stations()
            else { return nil }
            home = Home(
                values: DustPair(fineDust: fine, ultraFineDust: ultraFine),
                stations: DustPair(fineDust: fineStations, ultraFineDust: ultraFineStations), fallback: fallback)
        }
        hasPlacedValue = flags & 2 != 0
        track = Track()
        guard let trackFallback = reader.fallback(), let count = reader.count() else { return nil }
        track.fallback = trackFallback
        track.positions.reserveCapacity(count)
        track.values.reserveCapacity(count)
        for _ in 0..<count {
            guard let offset = reader.integer(), let fine = reader.value(), let ultraFine = reader.value() else { return nil }
            track.positions.append(slot.start.addingTimeInterval(TimeInterval(offset)))
            track.values.append(DustPair(fineDust: fine, ultraFineDust: ultraFine))
        }
        guard let fineStations = reader.stations(), let ultraFineStations = reader.stations(), reader.isAtEnd else { return nil }
        track.stations = DustPair(fineDust: fineStations, ultraFineDust: ultraFineStations)
    }

    init(home: Home?, track: Track, hasPlacedValue: Bool) {
        self.home = home
        self.track = track
        self.hasPlacedValue = hasPlacedValue
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func integer(_ value: Int32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A count, at most 65,535 (a slot has at most 61 positions, a pollutant a few stations).
    mutating func count(_ value: Int) {
        precondition(value <= Int(UInt16.max), "a place's list is short")
        withUnsafeBytes(of: UInt16(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A value's bits; NaN for none (a weighted value is always finite).
    mutating func value(_ value: Double?) {
        withUnsafeBytes(of: (value ?? .nan).bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fallback(_ fallback: WeightingFallback?) {
        byte(fallback.map { UInt8(WeightingFallback.allCases.firstIndex(of: $0)! + 1) } ?? 0)
    }

    mutating func stations(_ stations: [SlotPlaceSummary.UsedStation]) {
        count(stations.count)
        for station in stations {
            let name = Array(station.station.utf8)
            count(name.count)
            bytes.append(contentsOf: name)
            value(station.kilometres)
        }
    }
}

private struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    private mutating func little<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { return nil }
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Integer.self) }
        offset += size
        return Integer(littleEndian: value)
    }

    mutating func integer() -> Int32? { little(UInt32.self).map { Int32(bitPattern: $0) } }

    mutating func count() -> Int? { little(UInt16.self).map(Int.init) }

    /// `.some(nil)` for NaN (none), nil past the end.
    mutating func value() -> Double?? {
        guard let bits = little(UInt64.self) else { return nil }
        let value = Double(bitPattern: bits)
        return .some(value.isNaN ? nil : value)
    }

    /// `.some(nil)` for none, nil for a code that names no fallback or past the end.
    mutating func fallback() -> WeightingFallback?? {
        guard let code = byte() else { return nil }
        if code == 0 { return .some(nil) }
        guard Int(code) <= WeightingFallback.allCases.count else { return nil }
        return .some(WeightingFallback.allCases[Int(code) - 1])
    }

    mutating func stations() -> [SlotPlaceSummary.UsedStation]? {
        guard let count = count() else { return nil }
        var stations: [SlotPlaceSummary.UsedStation] = []
        for _ in 0..<count {
            guard let length = self.count(), bytes.count - offset >= length else { return nil }
            let name = String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
            offset += length
            guard let kilometres = value(), let kilometres else { return nil }
            stations.append(SlotPlaceSummary.UsedStation(station: name, kilometres: kilometres))
        }
        return stations
    }
}
