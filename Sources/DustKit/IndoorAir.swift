import Foundation

// Indoor air (docs/REFERENCE.md §21): what a home's own monitor measured, and the slot's indoor value
// a person's dose uses for the time they are at home and indoors.

/// One stored indoor sample: a sensor's PM values for one minute (the last answer of that minute).
public struct IndoorSample: Sendable, Hashable {
    /// The sensor's configured name (`[a-z0-9_-]{1,32}`).
    public var sensor: String
    /// The minute the sample was taken, a whole minute.
    public var at: Date
    /// µg/m³; nil where the sensor gave no plausible value of that pollutant.
    public var value: DustPair<Double?>
    /// How long the value stands for when no later sample follows: 5 minutes for a sampled monitor
    /// or an imported row, 60 for a Home Assistant state (which changes only when the value does).
    public var holdSeconds: Int

    public init(sensor: String, at: Date, value: DustPair<Double?>, holdSeconds: Int = IndoorSample.sampledHoldSeconds) {
        self.sensor = sensor
        self.at = IndoorSample.minute(containing: at)
        self.value = value
        self.holdSeconds = holdSeconds
    }

    /// A polled or imported sample stands for at most 5 minutes.
    public static let sampledHoldSeconds = 300
    /// A Home Assistant state stands until the next change, at most 60 minutes.
    public static let stateHoldSeconds = 3600
    /// Above this a value is implausible (docs/REFERENCE.md §21) and stored as unknown.
    public static let implausibleAbove = 1000.0

    /// The whole minute containing `instant`.
    public static func minute(containing instant: Date) -> Date {
        let seconds = wholeSeconds(instant)
        return Date(timeIntervalSince1970: TimeInterval(seconds - ((seconds % 60) + 60) % 60))
    }

    /// A sensor's number as a concentration: finite, not negative, at most 1,000 µg/m³; else nil.
    public static func plausible(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0, value <= implausibleAbove else { return nil }
        // `-0.0` passes `>= 0`, and the metrics printed it so.
        return value + 0.0
    }
}

/// The indoor value of one slot, over the samples of one person's sensors.
public struct IndoorSlotValue: Sendable, Hashable {
    /// The time-weighted mean per pollutant; nil unless at least 30 minutes of the slot hold a value of it.
    public var value: DustPair<Double?>
    /// Minutes of the slot that a sample of either pollutant covers.
    public var minutesCovered: Int
    /// The sensors whose samples cover part of the slot, by name.
    public var sensors: [String]

    public init(value: DustPair<Double?>, minutesCovered: Int, sensors: [String]) {
        self.value = value
        self.minutesCovered = minutesCovered
        self.sensors = sensors
    }

    /// A value is known when at least this many minutes of its slot are covered.
    public static let minimumMinutes = 30
    /// A tracked minute within this of `home` is time at home (docs/REFERENCE.md §21); farther, away.
    public static let homeRadiusMetres = 300.0

    /// The indoor value of `slot` from `samples` (any order; those of other slots are skipped): each
    /// sample holds until its sensor's next sample, at most its `holdSeconds`; in each minute the
    /// sensors holding a value are averaged; the slot's value is the mean over the minutes covered.
    /// Nil when no sample covers any minute of the slot.
    public static func of(_ slot: Slot, samples: [IndoorSample]) -> IndoorSlotValue? {
        let series = Dictionary(grouping: samples, by: \.sensor).sorted { $0.key < $1.key }.map { sensor, samples in
            IndoorSeries(sensor: sensor, samples: samples.sorted { $0.at < $1.at })
        }
        var minutes = MinuteBins()
        var starts = [Int](repeating: 0, count: series.count)
        return of(slot, series: series, starts: &starts, bins: &minutes)
    }

    /// The same from each sensor's series in time order, the work of a week of slots without an
    /// allocation: `starts` holds, per series, the first sample that may still reach a slot (slots
    /// come in time order), `bins` the slot's minutes, cleared here.
    public static func of(_ slot: Slot, series: [IndoorSeries], starts: inout [Int], bins: inout MinuteBins) -> IndoorSlotValue? {
        bins.clear()
        let slotStart = slot.startEpochSeconds
        let slotEnd = slotStart + 3600
        var sensors: [String] = []
        for (index, one) in series.enumerated() {
            let minutes = one.minutes
            var first = starts[index]
            while first < minutes.count, minutes[first] < slotStart - Int64(IndoorSample.stateHoldSeconds) { first += 1 }
            starts[index] = first
            var used = false
            var position = first
            while position < minutes.count, minutes[position] < slotEnd {
                let start = minutes[position]
                var end = start + Int64(max(60, one.holds[position]))
                if position + 1 < minutes.count { end = min(end, minutes[position + 1]) }
                let (from, to) = (max(start, slotStart), min(end, slotEnd))
                let (pm25, pm10) = (one.pm25[position], one.pm10[position])
                if from < to, !(pm25.isNaN && pm10.isNaN) {
                    used = true
                    for minute in Int((from - slotStart) / 60)..<Int((to - slotStart + 59) / 60) {
                        bins.add(minute: minute, pm25: pm25, pm10: pm10)
                    }
                }
                position += 1
            }
            if used { sensors.append(one.sensor) }
        }
        let covered = bins.coveredMinutes
        guard covered > 0 else { return nil }
        return IndoorSlotValue(
            value: DustPair(fineDust: bins.mean(\.pm10), ultraFineDust: bins.mean(\.pm25)), minutesCovered: covered,
            sensors: sensors.sorted())
    }
}

/// The 60 minutes of a slot: per minute the sum and count of the sensors' values of each pollutant.
public struct MinuteBins: Sendable {
    struct Sums {
        var sum = 0.0
        var count = 0
    }
    private var pm25Bins = [Sums](repeating: Sums(), count: 60)
    private var pm10Bins = [Sums](repeating: Sums(), count: 60)
    var pm25: [Sums] { pm25Bins }
    var pm10: [Sums] { pm10Bins }

    public init() {}

    mutating func clear() {
        for minute in 0..<60 {
            pm25Bins[minute] = Sums()
            pm10Bins[minute] = Sums()
        }
    }

    mutating func add(minute: Int, pm25: Double, pm10: Double) {
        if !pm25.isNaN {
            pm25Bins[minute].sum += pm25
            pm25Bins[minute].count += 1
        }
        if !pm10.isNaN {
            pm10Bins[minute].sum += pm10
            pm10Bins[minute].count += 1
        }
    }

    /// Minutes a value of either pollutant covers.
    var coveredMinutes: Int { (0..<60).reduce(0) { $0 + (pm25Bins[$1].count > 0 || pm10Bins[$1].count > 0 ? 1 : 0) } }

    /// The mean over the minutes covered of the per-minute means; nil under `IndoorSlotValue.minimumMinutes`.
    func mean(_ pollutant: KeyPath<MinuteBins, [Sums]>) -> Double? {
        var total = 0.0
        var minutes = 0
        for bin in self[keyPath: pollutant] where bin.count > 0 {
            total += bin.sum / Double(bin.count)
            minutes += 1
        }
        return minutes >= IndoorSlotValue.minimumMinutes ? total / Double(minutes) : nil
    }
}

/// What the dose of one slot used for the time at home indoors (`indoorSource` of docs/REFERENCE.md §21).
public enum IndoorSource: String, Sendable, Hashable {
    /// The measured indoor value replaced `F × C_out` for at least one pollutant.
    case sensor
    /// §4's estimate: no sensor value known, or the person away.
    case infiltration
}

/// An hour's indoor facts for a person with sensors: what the sensors measured, whether the dose used
/// it, and the dose the estimate alone would have given (to say what the sensor changed).
public struct IndoorHour: Sendable, Hashable {
    /// Nil when no sample of the person's sensors covers the slot.
    public var measured: IndoorSlotValue?
    /// Whether the person was at home for the indoor part of the slot (schedule `at: home`).
    public var atHome: Bool
    public var source: IndoorSource
    /// The intake §4/§18/§19 give without the sensor.
    public var estimatedIntake: DustPair<Double?>

    public init(measured: IndoorSlotValue?, atHome: Bool, source: IndoorSource, estimatedIntake: DustPair<Double?>) {
        self.measured = measured
        self.atHome = atHome
        self.source = source
        self.estimatedIntake = estimatedIntake
    }

    /// The indoor value the dose may use per pollutant: the measured one while at home, else nil.
    public var usable: DustPair<Double?> {
        guard atHome, let measured else { return DustPair(repeating: nil) }
        return measured.value
    }
}

/// A day's indoor summary: the measured indoor/outdoor ratio beside `F`, and what the sensors changed.
public struct IndoorDaySummary: Sendable, Hashable {
    /// The median of `C_in / C_out` over the hours at home with both known (and `C_out` > 0).
    public var ratio: DustPair<Double?>
    /// The configured `F`.
    public var infiltration: Double
    /// Σ intake − Σ estimated intake over the hours whose intake is known, µg; nil when no hour used a sensor.
    public var intakeChange: DustPair<Double?>
    /// Hours whose dose used a sensor's value.
    public var sensorHours: Int

    public init(_ hours: [HourlyExposure], infiltration: Double) {
        self.infiltration = infiltration
        var sensorHours = 0
        for hour in hours where hour.indoor?.source == .sensor { sensorHours += 1 }
        self.sensorHours = sensorHours
        ratio = DustPair(byPollutant: { pollutant in
            let ratios = hours.compactMap { hour -> Double? in
                guard let indoor = hour.indoor, let inside = indoor.usable[pollutant],
                    let outside = hour.concentration[pollutant], outside > 0
                else { return nil }
                return inside / outside
            }.sorted()
            guard !ratios.isEmpty else { return nil }
            let middle = ratios.count / 2
            return ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
        })
        intakeChange = DustPair(byPollutant: { pollutant in
            guard sensorHours > 0 else { return nil }
            var change = 0.0
            for hour in hours {
                guard let indoor = hour.indoor, let intake = hour.intake[pollutant], let estimate = indoor.estimatedIntake[pollutant]
                else { continue }
                change += intake - estimate
            }
            return change
        })
    }
}

/// PurpleAir's two laser channels (docs/REFERENCE.md §21).
public enum PurpleAirChannels {
    /// The channels' mean; nil when they disagree: `|A − B| > 5 µg/m³` and `|A − B| / ((A + B) / 2) > 0.7`.
    /// One channel alone (a single-laser sensor) is its own value.
    public static func agreed(_ a: Double?, _ b: Double?) -> (value: Double?, disagreed: Bool) {
        switch (IndoorSample.plausible(a), IndoorSample.plausible(b)) {
        case (let a?, let b?):
            let difference = abs(a - b)
            let mean = (a + b) / 2
            if difference > 5 && mean > 0 && difference / mean > 0.7 { return (nil, true) }
            return (mean, false)
        case (let a?, nil): return (b == nil ? a : nil, b != nil)
        case (nil, let b?): return (a == nil ? b : nil, a != nil)
        case (nil, nil): return (nil, false)
        }
    }

    /// EPA's US-wide correction (Barkjohn et al. 2021): `0.524 × cf1 − 0.0862 × RH + 5.75`, never below 0.
    public static func epa2021(cf1: Double, humidity: Double) -> Double {
        max(0, 0.524 * cf1 - 0.0862 * humidity + 5.75)
    }
}

/// One sensor's samples in columns (docs/REFERENCE.md §21): what an import of a year of minutes holds,
/// and what a report reads, 28 bytes a sample instead of an `IndoorSample`'s 64, in time order.
public struct IndoorSeries: Sendable {
    public let sensor: String
    /// The hold of samples appended (`append`).
    public let holdSeconds: Int
    /// Whole minutes, seconds since 1970.
    public private(set) var minutes: [Int64] = []
    /// µg/m³; NaN where unknown.
    public private(set) var pm25: [Double] = []
    public private(set) var pm10: [Double] = []
    /// Each sample's hold, seconds.
    public private(set) var holds: [Int32] = []

    public init(sensor: String, holdSeconds: Int = IndoorSample.sampledHoldSeconds) {
        self.sensor = sensor
        self.holdSeconds = holdSeconds
    }

    /// A series of `samples` of one sensor, in the order given.
    public init(sensor: String, samples: some Sequence<IndoorSample>) {
        self.init(sensor: sensor)
        for sample in samples { append(minute: Int64(sample.at.timeIntervalSince1970), value: sample.value, hold: sample.holdSeconds) }
    }

    public var count: Int { minutes.count }
    public var first: Date? { minutes.min().map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    public var last: Date? { minutes.max().map { Date(timeIntervalSince1970: TimeInterval($0)) } }

    /// Adds the sample of `at`'s minute; a sample of the same minute as the one before it replaces
    /// that one (returns true then). A minute given again after others is replaced by
    /// `keepLastOfEachMinute`, which an import calls before it counts or stores.
    @discardableResult
    public mutating func append(at: Date, value: DustPair<Double?>) -> Bool {
        append(minute: Int64(IndoorSample.minute(containing: at).timeIntervalSince1970), value: value, hold: holdSeconds)
    }

    /// Adds a sample of a whole minute (as stored), with its hold.
    @discardableResult
    public mutating func append(minute: Int64, value: DustPair<Double?>, hold: Int) -> Bool {
        let (ultraFine, fine) = (value.ultraFineDust ?? .nan, value.fineDust ?? .nan)
        if minutes.last == minute {
            pm25[pm25.count - 1] = ultraFine
            pm10[pm10.count - 1] = fine
            holds[holds.count - 1] = Int32(clamping: hold)
            return true
        }
        minutes.append(minute)
        pm25.append(ultraFine)
        pm10.append(fine)
        holds.append(Int32(clamping: hold))
        return false
    }

    /// Puts the samples in time order, keeping of a minute given more than once the sample appended
    /// last: an import's rows in any order become one sample a minute, so what it counts and reports
    /// is what the store keeps (docs/REFERENCE.md §21). Nothing is copied when the samples are in
    /// order already, as a monitor's export is.
    public mutating func keepLastOfEachMinute() {
        guard zip(minutes, minutes.dropFirst()).contains(where: { $0 >= $1 }) else { return }
        // By minute, then by the order appended: the last index of each minute is the one kept.
        let order = minutes.indices.sorted { (minutes[$0], $0) < (minutes[$1], $1) }
        var kept = IndoorSeries(sensor: sensor, holdSeconds: holdSeconds)
        kept.reserveCapacity(order.count)
        for (position, index) in order.enumerated() where position + 1 == order.count || minutes[order[position + 1]] != minutes[index] {
            kept.appendStored(minute: minutes[index], pm25: pm25[index], pm10: pm10[index], hold: Int(holds[index]))
        }
        self = kept
    }

    /// Adds a stored sample, NaN for unknown, after the ones before it (a read's fast path).
    mutating func appendStored(minute: Int64, pm25 ultraFine: Double, pm10 fine: Double, hold: Int) {
        minutes.append(minute)
        pm25.append(ultraFine)
        pm10.append(fine)
        holds.append(Int32(clamping: hold))
    }

    /// Gives every sample the hold of the series' usual step (the median time from one sample to the
    /// next), from 5 to 60 minutes: what an imported file's rows stand for. A monitor's export of a
    /// row a minute keeps 5; an export of 15-minute or hourly means covers its hours, where each row
    /// held 5 minutes and an hourly export covered no hour (docs/REFERENCE.md §21). In time order.
    public mutating func holdForUsualStep() {
        guard minutes.count > 1 else { return }
        var steps = zip(minutes, minutes.dropFirst()).map { $1 - $0 }
        steps.sort()
        let usual = steps[steps.count / 2]
        let hold = Int32(min(max(usual, Int64(IndoorSample.sampledHoldSeconds)), Int64(IndoorSample.stateHoldSeconds)))
        holds = [Int32](repeating: hold, count: holds.count)
    }

    /// How many hours the samples with a value cover for at least `IndoorSlotValue.minimumMinutes`:
    /// the hours this series alone gives an indoor value (each sample holding until the next, at most
    /// its hold, as `IndoorSlotValue.of` counts). In time order.
    public var hoursCovered: Int {
        var covered: [Int64: Int64] = [:]
        for index in minutes.indices where !(pm25[index].isNaN && pm10[index].isNaN) {
            var start = minutes[index]
            var end = start + Int64(max(60, holds[index]))
            if index + 1 < minutes.count { end = min(end, minutes[index + 1]) }
            while start < end {
                let hour = start - ((start % 3600) + 3600) % 3600
                let stop = min(end, hour + 3600)
                covered[hour, default: 0] += stop - start
                start = stop
            }
        }
        return covered.values.count { $0 >= Int64(IndoorSlotValue.minimumMinutes * 60) }
    }

    /// Room for `count` samples, so a read's columns grow once.
    public mutating func reserveCapacity(_ count: Int) {
        minutes.reserveCapacity(count)
        pm25.reserveCapacity(count)
        pm10.reserveCapacity(count)
        holds.reserveCapacity(count)
    }

    /// The sample at `index`.
    public func sample(_ index: Int) -> IndoorSample {
        IndoorSample(
            sensor: sensor, at: Date(timeIntervalSince1970: TimeInterval(minutes[index])),
            value: DustPair(fineDust: pm10[index].isNaN ? nil : pm10[index], ultraFineDust: pm25[index].isNaN ? nil : pm25[index]),
            holdSeconds: Int(holds[index]))
    }

    /// Every sample, for a small series (a test, the demo's evening).
    public var samples: [IndoorSample] { minutes.indices.map(sample) }
}

/// How a sensor's samples of one hour are stored (docs/REFERENCE.md §21, `indoor_hour.samples`): one
/// record a sample in minute order, 19 bytes each — the minute of the hour (1 byte), the hold in seconds
/// (2), PM2.5 and PM10 as IEEE doubles (8 + 8, NaN for unknown), little-endian. A week of two monitors is
/// 336 rows to read, not 20,000 (docs/PERFORMANCE.md, issue 39).
public enum IndoorHourRecord {
    public static let recordBytes = 19

    /// One sample of the hour.
    public struct Entry: Sendable, Hashable {
        /// 0…59.
        public var minute: Int
        public var hold: Int
        /// µg/m³, NaN for unknown.
        public var pm25: Double
        public var pm10: Double

        public init(minute: Int, hold: Int, pm25: Double, pm10: Double) {
            self.minute = minute
            self.hold = hold
            self.pm25 = pm25
            self.pm10 = pm10
        }
    }

    /// The bytes of `entries` (one per minute, the last of a minute given twice kept), in minute order.
    public static func encode(_ entries: [Entry]) -> [UInt8] {
        var byMinute = [Entry?](repeating: nil, count: 60)
        for entry in entries where (0..<60).contains(entry.minute) { byMinute[entry.minute] = entry }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * recordBytes)
        for entry in byMinute.compactMap({ $0 }) {
            bytes.append(UInt8(entry.minute))
            let hold = UInt16(clamping: entry.hold)
            bytes.append(UInt8(hold & 0xFF))
            bytes.append(UInt8(hold >> 8))
            for value in [entry.pm25, entry.pm10] {
                let bits = value.bitPattern
                for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
            }
        }
        return bytes
    }

    /// Appends the samples of the hour starting at `slot` whose minute lies in `[from, to)` to
    /// `series`, read in place; false when `bytes` are not records of this shape (a damaged row).
    public static func append(_ bytes: [UInt8], slot: Int64, from: Int64, to: Int64, to series: inout IndoorSeries) -> Bool {
        bytes.withUnsafeBytes { append($0, slot: slot, from: from, to: to, to: &series) }
    }

    /// The same from bytes read in place (a column of a row being stepped).
    public static func append(_ raw: UnsafeRawBufferPointer, slot: Int64, from: Int64, to: Int64, to series: inout IndoorSeries) -> Bool {
        forEach(raw) { entry in
            let at = slot + Int64(entry.minute * 60)
            if at >= from && at < to { series.appendStored(minute: at, pm25: entry.pm25, pm10: entry.pm10, hold: entry.hold) }
        }
    }

    /// Calls `body` with each record of `raw`, in order; false (having stopped) when `raw` is not records
    /// of this shape: a length that is not a whole number of records, or minutes not rising within 0…59.
    private static func forEach(_ raw: UnsafeRawBufferPointer, _ body: (Entry) -> Void) -> Bool {
        guard raw.count % recordBytes == 0 else { return false }
        var previous = -1
        var offset = 0
        while offset < raw.count {
            let minute = Int(raw[offset])
            guard minute < 60, minute > previous else { return false }
            previous = minute
            body(
                Entry(
                    minute: minute, hold: Int(raw[offset + 1]) | Int(raw[offset + 2]) << 8,
                    pm25: Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 3, as: UInt64.self))),
                    pm10: Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 11, as: UInt64.self)))))
            offset += recordBytes
        }
        return true
    }

    /// The entries of `bytes`; nil when they are not records of this shape (a damaged row).
    public static func decode(_ bytes: [UInt8]) -> [Entry]? {
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / recordBytes)
        return bytes.withUnsafeBytes { forEach($0) { entries.append($0) } } ? entries : nil
    }
}
