import DustActivity
import DustKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why one activity file was not imported. Nothing of that file was stored.
public enum ActivityImportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file cannot be opened or is not a regular file.
    case cannotOpen(reason: String)
    /// The Health export, GPX track or zip is unusable or hostile.
    case file(ActivityFileError)
    /// A CSV line cannot be used.
    case csv(ActivityCSVError)
    /// The database failed; the file itself may be fine.
    case storage(StorageFailure)
    /// The person is not configured (docs/REFERENCE.md §18); nothing was read.
    case unknownPerson(UnknownPerson)

    public var description: String {
        switch self {
        case .cannotOpen(let reason): reason
        case .file(let error): error.description
        case .csv(let error): error.description
        case .storage(let failure): failure.description
        case .unknownPerson(let unknown): unknown.description
        }
    }
}

/// Why `forget` removed nothing.
public struct UnknownActivitySource: Error, Sendable, Hashable, CustomStringConvertible {
    public var source: String
    /// The sources that are stored, to name in the message.
    public var known: [String]

    public var description: String {
        let name = TerminalSafeText.sanitized(source)
        if known.isEmpty { return "no activity is stored, so there is no source \"\(name)\" to forget" }
        return "no activity is stored from the source \"\(name)\"; stored sources: "
            + known.map { TerminalSafeText.sanitized($0) }.joined(separator: ", ")
    }
}

/// What one imported file held and what was stored from it.
public struct ActivityImportSummary: Sendable, Hashable {
    public var format: ActivityFileFormat
    /// Health distance records or CSV rows that gave distance.
    public var recordsUsed = 0
    /// GPX track steps that gave distance (a GPX file's, or the workout routes' in a zip).
    public var trackSteps = 0
    /// Health records of other types, skipped, by type.
    public var skippedByType: [String: Int] = [:]
    /// GPX steps dropped as GPS jumps, and points without a time.
    public var jumpsDropped = 0
    public var pointsWithoutTime = 0
    /// Health distance records that cannot be placed in time (no duration for their distance,
    /// faster than 30 m/s, ending before they start), skipped like GPS jumps.
    public var recordsDropped = 0
    /// CSV rows, Health records and GPX points dated before 2000 or more than a day after the import, skipped.
    public var datedOutsidePeriod = 0
    /// Distinct slots given a distance by any source of the file.
    public var slotsTouched = 0
    /// The sources stored, by name.
    public var sources: [String] = []
    /// Metres stored per source, summed over its slots.
    public var metresBySource: [String: Double] = [:]
    /// Bytes read (inflated bytes for a zip).
    public var bytesRead: Int64 = 0
    /// Heart-rate samples, resting rates and asleep intervals stored from a Health export, as the
    /// source `health` (docs/REFERENCE.md §18).
    public var heartRateSamples = 0
    public var restingRates = 0
    public var sleepIntervals = 0
    /// Seconds asleep the stored intervals hold.
    public var asleepSeconds = 0
    /// Heart-rate and resting-rate records outside 25–250 beats/min, dropped.
    public var heartRateOutOfRange = 0
    /// Asleep records longer than 24 h, clipped to their first 24.
    public var sleepClipped = 0
    /// Asleep records ending at or before their start, dropped.
    public var sleepDropped = 0
    /// Asleep records overlapping time already asleep, merged into it.
    public var sleepOverlapsMerged = 0
    /// Sleep records that are not sleep (in bed, awake, or a value FineDust does not know).
    public var notAsleepRecords = 0
    /// Minutes given a position by the file's tracks, over all its sources (docs/REFERENCE.md §19).
    public var trackedMinutes = 0
    /// GPX points whose time is not a time, points dated before the one they follow (both dropped),
    /// and pauses too long for a step (docs/REFERENCE.md §12).
    public var timesUnreadable = 0
    public var timesBackwards = 0
    public var trackGaps = 0
    /// GPX route points and waypoints, which are not read (a plan, not a walk).
    public var plannedPoints = 0
    /// What the rules of one source's walking took away: time covered twice, steps of no duration
    /// outside any timed step, more than 30 m/s over the time covered (docs/REFERENCE.md §12).
    public var walkingCorrections = WalkingCorrections()

    public init(format: ActivityFileFormat) {
        self.format = format
    }
}

/// How far an import has read: `bytesRead` of `totalBytes` (inflated bytes for a zip, as its
/// directory declares them; 0 when unknown).
public struct ActivityImportProgress: Sendable, Hashable {
    public var bytesRead: Int64
    public var totalBytes: Int64

    public init(bytesRead: Int64, totalBytes: Int64) {
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
    }
}

/// Imports activity files: each file read whole (in bounded memory) first, then every source it
/// holds stored in one transaction; a file that fails stores nothing.
///
/// Re-importing a file replaces what that file's sources stored over the span of slots it covers
/// (docs/REFERENCE.md §12): a Health source's or GPX track's rows from its first to its last slot in the file
/// are deleted, then the file's distances written. Slots outside that span stay, so a shorter
/// export (a new phone holding only recent months) never erases older history, while a record
/// deleted in Health inside the span disappears. CSV keeps its documented rule: an hour imported
/// again is replaced, and other hours of the `csv` source stay.
public struct ActivityService: Sendable {
    private let store: any ActivityStore & PhysiologyStore & PositionStore
    private let parser: ActivityCSVParser
    private let clock: any WallClock
    private let limits: ActivityReaderLimits
    /// The configured people's names; the first is the one an import without a person is for.
    public let people: [String]

    public init(
        store: any ActivityStore & PhysiologyStore & PositionStore, calendar: DayCalendar, clock: any WallClock = SystemClock(),
        limits: ActivityReaderLimits = ActivityReaderLimits(), people: [String] = [Person.defaultName]
    ) {
        self.store = store
        self.parser = ActivityCSVParser(calendar: calendar)
        self.clock = clock
        self.limits = limits
        self.people = people.isEmpty ? [Person.defaultName] : people
    }

    /// The configured person `name` names (in any Unicode form: the configured spelling is returned,
    /// the one the database holds), the first person when nil; else `UnknownPerson` naming the configured ones.
    public func person(_ name: String?) throws(UnknownPerson) -> String {
        guard let name else { return people[0] }
        let composed = NameForm.given(name)
        guard let configured = people.first(where: { $0 == composed }) else { throw UnknownPerson(name: name, configured: people) }
        return configured
    }

    /// Imports one file of any format FineDust reads, told from its content, as `person`'s
    /// (nil: the first configured person).
    public func importFile(
        atPath path: String, person name: String? = nil, onProgress: (ActivityImportProgress) -> Void = { _ in }
    )
        async throws(ActivityImportFailure) -> ActivityImportSummary
    {
        let person: String
        do { person = try self.person(name) } catch { throw .unknownPerson(error) }
        let file: RegularFile
        do { file = try RegularFile(path: path) } catch {
            guard case .unreadable(let reason) = error else { throw .file(error) }
            throw .cannotOpen(reason: reason)
        }
        let head: [UInt8]
        do { head = try file.bytes(ActivityFileFormat.sniffLength, at: 0) } catch { throw .file(error) }
        let format: ActivityFileFormat
        do { format = try ActivityFileFormat.sniff(head) } catch { throw .file(error) }
        var summary = ActivityImportSummary(format: format)
        let batches: [ActivitySourceBatch]
        var body: [PhysiologyBatch] = []
        var positions: [PositionBatch] = []
        if format == .csv {
            guard file.size <= UInt64(ActivityCSVParser.maxBytes) else {
                throw .csv(
                    ActivityCSVError(line: 1, problem: "the file is larger than \(ActivityCSVParser.maxBytes / (1024 * 1024)) MiB"))
            }
            let data: Data
            // One byte past the size it had when opened: a file still being written is refused, not read torn.
            do { data = Data(try file.bytes(Int(file.size) + 1, at: 0)) } catch { throw .file(error) }
            guard data.count <= file.size else {
                throw .file(.unreadable(reason: "it grew while it was read; import it once it is complete"))
            }
            let rows: ActivityCSVRows
            do { rows = try parser.parse(data, now: clock.now) } catch { throw .csv(error) }
            let distances = rows.distances
            summary.recordsUsed = distances.count
            summary.datedOutsidePeriod = rows.datedOutsidePeriod
            summary.bytesRead = Int64(data.count)
            onProgress(ActivityImportProgress(bytesRead: Int64(data.count), totalBytes: Int64(file.size)))
            // A CSV is the person's walking log for the hours it spans: its rows replace the person's `csv`
            // hours from its first to its last, so a row deleted from a corrected file disappears.
            let span = distances.keys.min().flatMap { first in distances.keys.max().map { first...$0 } }
            batches = [ActivitySourceBatch(person: person, source: ActivitySourceBatch.csvSource, distances: distances, replacing: span)]
        } else {
            var physiology = HealthPhysiology()
            var tracks = TrackCollector(maxMinutes: limits.maxTrackedMinutes)
            let samples: SlotApportioner
            do {
                samples = try read(
                    format, file: file, path: path, summary: &summary, physiology: &physiology, tracks: &tracks, onProgress: onProgress)
            } catch {
                throw .file(error)
            }
            // A Health source's rows are replaced from its first to its last instant in the file (a record
            // deleted in Health disappears); a track's only where it has them: tracks are named by their
            // file's name, and two walks of one name (`route.gpx` of two apps, in two folders) both stay
            // (the second's envelope erased the first's walk between its own two).
            positions = tracks.bySource.sorted { $0.key < $1.key }.map { source, minutes in
                PositionBatch(person: person, source: source, minutes: minutes, replacing: Self.isTrack(source) ? nil : minutes.span)
            }
            tracks = TrackCollector(maxMinutes: 0)  // the batches hold the only reference to the minutes
            let walking = samples.resolved()
            summary.walkingCorrections = walking.corrections
            batches = walking.metresBySource.sorted { $0.key < $1.key }.map { source, slots in
                ActivitySourceBatch(
                    person: person, source: source, distances: slots,
                    replacing: Self.isTrack(source) ? nil : slots.keys.min()!...slots.keys.max()!)
            }
            summary.add(physiology)
            var batch = PhysiologyBatch(
                person: person, source: PhysiologyBatch.healthSource, heartRate: physiology.heartRate,
                restingHeartRate: physiology.restingHeartRates, sleep: physiology.sleep)
            physiology = HealthPhysiology()  // the batch holds the only reference to the samples
            batch.replacing = batch.span
            if batch.replacing != nil { body.append(batch) }
        }
        do {
            try await store.saveImport(walking: batches, body: body, positions: positions, importedAt: clock.now)
        } catch {
            throw .storage(error)
        }
        // Minutes of several tracks (a zip's routes) that overlap are one minute tracked.
        summary.trackedMinutes =
            positions.count < 2
            ? positions.reduce(0) { $0 + $1.minutes.count }
            : Set(positions.flatMap { $0.minutes.map { UInt32(clamping: Int64($0.at.timeIntervalSince1970 / 60)) } }).count
        summary.sources = batches.map(\.source)
        // Summed in time order: a dictionary's order changes from run to run, and with it the last digits.
        summary.metresBySource = Dictionary(
            uniqueKeysWithValues: batches.map { batch in
                (batch.source, batch.distances.sorted { $0.key < $1.key }.reduce(0) { $0 + $1.value })
            })
        summary.slotsTouched = Set(batches.flatMap(\.distances.keys)).count
        return summary
    }

    /// Reads a Health export, zip or GPX track whole and apportions its distances to slots; a
    /// Health export's heart rate, resting rates and sleep go to `physiology`.
    private func read(
        _ format: ActivityFileFormat, file: RegularFile, path: String, summary: inout ActivityImportSummary,
        physiology: inout HealthPhysiology, tracks: inout TrackCollector, onProgress: (ActivityImportProgress) -> Void
    ) throws(ActivityFileError) -> SlotApportioner {
        var apportioner = SlotApportioner(maxEntries: limits.maxSourceSlots)
        let now = clock.now
        switch format {
        case .csv:
            break
        case .healthXML:
            try file.rewind()
            let health = try HealthExportReader(limits: limits, now: now).read(
                FileDescriptorByteStream(fileDescriptor: file.descriptor),
                onProgress: { onProgress(ActivityImportProgress(bytesRead: $0, totalBytes: Int64(file.size))) }, physiology: &physiology,
                onSample: { apportioner.add($0) })
            summary.add(health)
        case .gpx:
            try file.rewind()
            let name = DistanceSample.sourceName(FilePaths.lastComponent(of: path).utf8)
            var minutes = TrackMinutes()
            let gpx = try GPXReader(limits: limits, now: now).read(
                FileDescriptorByteStream(fileDescriptor: file.descriptor), fileName: name,
                onProgress: { onProgress(ActivityImportProgress(bytesRead: $0, totalBytes: Int64(file.size))) },
                onPosition: { tracks.keep($0, in: &minutes) }, onSample: { apportioner.add($0) })
            tracks.add(minutes, source: Self.trackPrefix + name)
            summary.add(gpx)
        case .healthZip:
            let archive = try HealthExportArchive(openFile: file.descriptor, path: path, limits: limits)
            let total = archive.routes.reduce(archive.export.declaredSize) { $0 + $1.declaredSize }
            var done: Int64 = 0
            var read = HealthPhysiology()
            let health = try archive.read(archive.export) { source throws(ActivityFileError) in
                try HealthExportReader(limits: limits, now: now).read(
                    source,
                    onProgress: { onProgress(ActivityImportProgress(bytesRead: $0, totalBytes: total)) }, physiology: &read,
                    onSample: { apportioner.add($0) })
            }
            physiology = read
            read = HealthPhysiology()
            summary.add(health)
            done += health.bytesRead
            for route in archive.routes {
                let name = DistanceSample.sourceName((route.path.split(separator: "/").last ?? "").utf8)
                let base = done
                var minutes = TrackMinutes()
                let gpx: GPXSummary
                do {
                    gpx = try archive.read(route) { source throws(ActivityFileError) in
                        try GPXReader(limits: limits, now: now).read(
                            source, fileName: name,
                            onProgress: { onProgress(ActivityImportProgress(bytesRead: base + $0, totalBytes: total)) },
                            onPosition: { tracks.keep($0, in: &minutes) }, onSample: { apportioner.add($0) })
                    }
                } catch {
                    throw ActivityFileError.naming(route: route.path, error)
                }
                tracks.add(minutes, source: Self.trackPrefix + name)
                summary.add(gpx)
                done += gpx.bytesRead
            }
        }
        if apportioner.overflowed { throw .tooManySourceHours(limit: limits.maxSourceSlots) }
        if tracks.overflowed { throw .tooManyTrackedMinutes(limit: limits.maxTrackedMinutes) }
        return apportioner
    }

    /// The source of a GPX track (a file's, or a workout route's in a zip): `gpx:` and its file's name.
    static let trackPrefix = "gpx:"

    /// Whether `source` is a track's (replaced only where the file has rows, never over its envelope).
    static func isTrack(_ source: String) -> Bool { source.hasPrefix(trackPrefix) }

    /// What is stored, per source.
    public func sources() async throws(StorageFailure) -> [ActivitySourceSummary] {
        try await store.activitySources()
    }

    /// What is stored of people's bodies (heart rate, resting rates, sleep), per person and source.
    public func physiologySummaries() async throws(StorageFailure) -> [PhysiologySummary] {
        try await store.physiologySummaries()
    }

    /// What is stored of people's tracks (minutes with a position), per person and source.
    public func positionSummaries() async throws(StorageFailure) -> [PositionSummary] {
        try await store.positionSummaries()
    }

    /// Removes `person`'s walking, body records and positions of `source` (nil: all of them); returns
    /// what was removed, or throws `UnknownPerson`, or `UnknownActivitySource` when nothing matched.
    public func forget(person name: String?, source: String?) async throws -> ForgottenActivity {
        let person = try self.person(name)
        var removed = ForgottenActivity(walkingHours: 0, bodyRecords: 0, positions: 0)
        // The source composed, as every name is stored now, and decomposed, as a Mac's file name was
        // stored before (with the person's name likewise; docs/RELIABILITY.md, "The identity of names").
        let sources: [String?] = source.map { NameForm.storedForms(of: $0) } ?? [nil]
        for person in NameForm.storedForms(of: person) {
            for source in sources {
                removed.walkingHours += try await store.forgetActivity(person: person, source: source)
                removed.bodyRecords += try await store.forgetPhysiology(person: person, source: source)
                removed.positions += try await store.forgetPositions(person: person, source: source)
            }
        }
        guard removed.walkingHours + removed.bodyRecords + removed.positions > 0 else {
            let walking = try await store.activitySources().filter { $0.person == person }.map(\.source)
            let body = try await store.physiologySummaries().filter { $0.person == person }.map(\.source)
            let tracks = try await store.positionSummaries().filter { $0.person == person }.map(\.source)
            throw UnknownActivitySource(source: source ?? "(any)", known: Array(Set(walking + body + tracks)).sorted())
        }
        return removed
    }

    /// When the first configured person is not `me` and no one is, hands what was stored for `me`
    /// (before `people:` was configured) to the first person, once; returns the rows moved
    /// (docs/REFERENCE.md §18). dustd runs it at start, dustctl before an activity command.
    public func giveStoredHistoryToFirstPerson() async throws(StorageFailure) -> Int {
        guard !people.contains(Person.defaultName) else { return 0 }
        return try await store.movePerson(from: Person.defaultName, to: people[0])
    }
}

/// What `forget` removed: hours of walking, heart-rate, resting-rate and sleep records, and positions.
public struct ForgottenActivity: Sendable, Hashable {
    public var walkingHours: Int
    public var bodyRecords: Int
    /// Minutes with a position (docs/REFERENCE.md §19).
    public var positions: Int

    public init(walkingHours: Int, bodyRecords: Int, positions: Int = 0) {
        self.walkingHours = walkingHours
        self.bodyRecords = bodyRecords
        self.positions = positions
    }
}

/// The positions of one file's tracks, per source, at most `maxMinutes` in all: past it the file is
/// refused rather than held in memory (docs/REFERENCE.md §12).
struct TrackCollector {
    let maxMinutes: Int
    private(set) var bySource: [String: TrackMinutes] = [:]
    /// Minutes kept by the sources added so far.
    private var total = 0
    private(set) var overflowed = false

    init(maxMinutes: Int) {
        self.maxMinutes = maxMinutes
    }

    /// Keeps `point` in the track being read, unless the file already holds too many minutes.
    func keep(_ point: TrackPoint, in minutes: inout TrackMinutes) {
        guard total + minutes.count <= maxMinutes else { return }
        minutes.append(point)
    }

    /// Adds one read track as `source` (merged into a track of the same name read before).
    mutating func add(_ minutes: TrackMinutes, source: String) {
        var merged = minutes
        if let before = bySource.removeValue(forKey: source) {
            total -= before.count
            merged = before
            for point in minutes { merged.append(point) }
        }
        merged.sort()
        if total + merged.count > maxMinutes { overflowed = true }
        total += merged.count
        if !merged.isEmpty { bySource[source] = merged }
    }
}

/// Why an import or a forget for a person was refused: no such person is configured.
public struct UnknownPerson: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var configured: [String]

    public init(name: String, configured: [String]) {
        self.name = name
        self.configured = configured
    }

    public var description: String {
        "no person \"\(TerminalSafeText.shown(name, characters: 80))\" is configured; configured people: \(configured.joined(separator: ", "))"
    }

    /// The sentence in Korean, as dustctl under a Korean locale and the Korean dashboard say it.
    public var korean: String {
        "\"\(TerminalSafeText.shown(name, characters: 80))\"(이)라는 구성원은 설정되어 있지 않습니다. 설정된 구성원: \(configured.joined(separator: ", "))."
    }
}

extension ActivityImportSummary {
    mutating func add(_ health: HealthExportSummary) {
        recordsUsed += health.distanceRecords
        recordsDropped += health.recordsDropped
        datedOutsidePeriod += health.recordsOutsidePeriod
        skippedByType.merge(health.skippedRecordsByType, uniquingKeysWith: +)
        bytesRead += health.bytesRead
    }

    mutating func add(_ physiology: HealthPhysiology) {
        heartRateSamples += physiology.heartRate.count
        restingRates += physiology.restingHeartRates.count
        sleepIntervals += physiology.sleep.count
        asleepSeconds += physiology.sleep.reduce(0) { $0 + Int($1.end.timeIntervalSince($1.start)) }
        heartRateOutOfRange += physiology.heartRateOutOfRange
        sleepClipped += physiology.sleepClipped
        sleepDropped += physiology.sleepDropped
        sleepOverlapsMerged += physiology.sleepOverlapsMerged
        notAsleepRecords += physiology.notAsleepRecords
        datedOutsidePeriod += physiology.recordsOutsidePeriod
    }

    mutating func add(_ gpx: GPXSummary) {
        trackSteps += gpx.steps
        jumpsDropped += gpx.jumpsDropped
        pointsWithoutTime += gpx.pointsWithoutTime
        datedOutsidePeriod += gpx.pointsOutsidePeriod
        timesUnreadable += gpx.timesUnreadable
        timesBackwards += gpx.timesBackwards
        trackGaps += gpx.gaps
        plannedPoints += gpx.plannedPoints
        bytesRead += gpx.bytesRead
    }
}
