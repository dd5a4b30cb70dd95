import CLibXML2
import DustKit
import Foundation

/// What one GPX file held, besides the steps handed out one by one.
public struct GPXSummary: Sendable, Hashable {
    /// `trkseg`s read (each starts afresh: no step crosses from one segment to the next).
    public var segments = 0
    /// `trkpt`s read, with and without time.
    public var points = 0
    /// Points without a `time`, ignored.
    public var pointsWithoutTime = 0
    /// Points dated before 2000 or more than a day after the import (`SupportedPeriod.isPlausible`),
    /// ignored like points without a time.
    public var pointsOutsidePeriod = 0
    /// Steps handed out as samples.
    public var steps = 0
    /// Steps dropped as GPS jumps (`DistanceSample.isPlausible`: faster than 30 m/s, more than
    /// 30 m at one instant, or back in time).
    public var jumpsDropped = 0
    /// The distance of the dropped steps, not counted anywhere.
    public var metresDropped = 0.0
    /// Points whose `time` is not a time (a receiver's glitch), ignored like points without one.
    public var timesUnreadable = 0
    /// Points dated before the point they follow, dropped; the track goes on from the one before.
    public var timesBackwards = 0
    /// Pauses longer than `ActivityReaderLimits.maxSampleDuration`: no step across them.
    public var gaps = 0
    /// Bytes read from the input.
    public var bytesRead: Int64 = 0
    /// C0 control characters XML forbids, replaced by spaces.
    public var controlCharactersReplaced = 0
    /// Route points (`rte/rtept`) and waypoints (`wpt`): a plan, or places marked, not where the person
    /// went, so not read; counted so that a file of them alone says why it gave no walking.
    public var plannedPoints = 0

    public init() {}
}

/// Streams a GPX 1.0 or 1.1 track and hands out one `DistanceSample` per step between
/// consecutive timed points of a segment (source `gpx:<file name>`).
///
/// Elements are matched by local name under their GPX parents (`gpx/trk/trkseg/trkpt/time`), so
/// any namespace prefix works and extensions (nested deeper) are ignored, even their own `time`s.
/// Distance is `GreatCircle.metres`, the haversine distance on a sphere of the mean Earth radius.
///
/// GPS jumps: each step is judged alone. A step implying more than 30 m/s (or going back in time,
/// or covering more than 30 m at one instant) is dropped — its distance counts nowhere — and the
/// next step starts from the point the jump landed on. A lone spike A→B→C therefore costs its two
/// steps, and a train ride costs only its own steps; the walking after either still counts. The
/// alternative, keeping A as the anchor until a plausible point appears, would lose every step
/// after a real fast move (the train), since nothing is plausibly reachable from A again. Apple
/// writes route points to the second, so two points a few metres apart often share a time: such a
/// step of at most 30 m is kept, its distance given to that instant's hour.
public struct GPXReader: Sendable {
    /// Above this speed (m/s) a step is a GPS jump.
    public static let maxSpeed = DistanceSample.maxSpeed

    public let limits: ActivityReaderLimits
    /// The time of the import: points dated more than a day after it are ignored.
    public let now: Date

    public init(limits: ActivityReaderLimits = ActivityReaderLimits(), now: Date) {
        self.limits = limits
        self.now = now
    }

    /// Reads the whole track; `fileName` (no directories) names the activity source (`gpx:<file name>`).
    /// `onPosition` receives every timed point the jump rule keeps: the first of each segment and
    /// each one a plausible step reaches (a point a dropped step lands on is no position;
    /// docs/REFERENCE.md §19).
    public func read(
        _ input: some ByteStream, fileName: String, onProgress: (Int64) -> Void = { _ in },
        onPosition: (TrackPoint) -> Void = { _ in }, onSample: (DistanceSample) -> Void
    ) throws(ActivityFileError) -> GPXSummary {
        var state: State?
        var summary = GPXSummary()
        let sourceName = "gpx:\(DistanceSample.sourceName(fileName.utf8))"
        let totals = try ActivityXMLDriver(limits: limits).run(input, documentName: "track.gpx", onProgress: onProgress) {
            reader throws(ActivityFileError) in
            if state == nil { state = State(reader: reader, maxDepth: limits.maxDepth, now: now) }
            try state!.handleNode(
                reader, source: sourceName, limits: limits, summary: &summary, onPosition: onPosition, onSample: onSample)
        }
        summary.bytesRead = totals.bytesRead
        summary.controlCharactersReplaced = totals.controlCharactersReplaced
        return summary
    }

    private enum Kind { case gpx, trk, trkseg, trkpt, time, rte, other }

    private struct Point {
        var latitude: Double
        var longitude: Double
        var time: Date?
        /// Its `time` was there but not a time.
        var unreadableTime = false
    }

    private struct State {
        let names:
            (
                gpx: UnsafePointer<xmlChar>?, trk: UnsafePointer<xmlChar>?, trkseg: UnsafePointer<xmlChar>?,
                trkpt: UnsafePointer<xmlChar>?, time: UnsafePointer<xmlChar>?, lat: UnsafePointer<xmlChar>?,
                lon: UnsafePointer<xmlChar>?, rte: UnsafePointer<xmlChar>?, rtept: UnsafePointer<xmlChar>?,
                wpt: UnsafePointer<xmlChar>?
            )
        /// The kind of the open element at each depth.
        var path: [Kind]
        var point: Point?
        /// The last timed point of the current segment.
        var previous: Point?
        /// The time of a point just dropped as dated before the one before it.
        var droppedBackwards: Date?
        var timeText: [UInt8] = []
        let now: Date

        init(reader: xmlTextReaderPtr, maxDepth: Int, now: Date) {
            self.now = now
            func intern(_ text: String) -> UnsafePointer<xmlChar>? { xmlTextReaderConstString(reader, text) }
            names = (
                intern("gpx"), intern("trk"), intern("trkseg"), intern("trkpt"), intern("time"), intern("lat"), intern("lon"),
                intern("rte"), intern("rtept"), intern("wpt")
            )
            path = Array(repeating: .other, count: maxDepth + 1)
        }

        mutating func handleNode(
            _ reader: xmlTextReaderPtr, source: String, limits: ActivityReaderLimits,
            summary: inout GPXSummary, onPosition: (TrackPoint) -> Void, onSample: (DistanceSample) -> Void
        ) throws(ActivityFileError) {
            let depth = Int(xmlTextReaderDepth(reader))
            switch UInt32(xmlTextReaderNodeType(reader)) {
            case XML_READER_TYPE_ELEMENT.rawValue:
                let name = xmlTextReaderConstLocalName(reader)
                let parent: Kind = depth == 0 ? .other : path[depth - 1]
                let kind: Kind
                switch parent {
                case _ where depth == 0:
                    guard name == names.gpx else { throw .notAGPXFile(root: XMLText.string(name)) }
                    kind = .gpx
                case .gpx where name == names.trk: kind = .trk
                case .trk where name == names.trkseg: kind = .trkseg
                case .trkseg where name == names.trkpt: kind = .trkpt
                case .trkpt where name == names.time: kind = .time
                case .gpx where name == names.rte: kind = .rte
                case .gpx where name == names.wpt, .rte where name == names.rtept:
                    summary.plannedPoints += 1
                    kind = .other
                default: kind = .other
                }
                path[depth] = kind
                let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
                switch kind {
                case .trkseg:
                    summary.segments += 1
                    previous = nil
                case .trkpt:
                    point = try trackPoint(reader)
                    if isEmpty {
                        try endPoint(reader, source: source, limits: limits, summary: &summary, onPosition: onPosition, onSample: onSample)
                    }
                case .time:
                    timeText.removeAll(keepingCapacity: true)
                default:
                    break
                }
            case XML_READER_TYPE_TEXT.rawValue, XML_READER_TYPE_CDATA.rawValue:
                guard depth > 0, path[depth - 1] == .time, let value = xmlTextReaderConstValue(reader) else { return }
                let bytes = XMLText.bytes(value)
                guard timeText.count + bytes.count <= 64 else {
                    throw .invalidTrackPoint(line: XMLText.line(reader), problem: "has a time longer than 64 characters")
                }
                timeText.append(contentsOf: bytes)
            case XML_READER_TYPE_END_ELEMENT.rawValue:
                switch path[depth] {
                case .time:
                    let text = timeText.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
                    // One glitched time (a receiver's `2024-13-45T99:99:99Z`) costs that point, not the track.
                    if let time = text.withUnsafeBufferPointer({ ActivityTime.iso8601($0) }) {
                        point?.time = time
                    } else {
                        point?.unreadableTime = true
                    }
                case .trkpt:
                    try endPoint(reader, source: source, limits: limits, summary: &summary, onPosition: onPosition, onSample: onSample)
                case .trkseg:
                    previous = nil
                default:
                    break
                }
                path[depth] = .other
            default:
                break
            }
        }

        private func trackPoint(_ reader: xmlTextReaderPtr) throws(ActivityFileError) -> Point {
            let line = XMLText.line(reader)
            guard let latitude = number(reader, names.lat), (-90...90).contains(latitude),
                let longitude = number(reader, names.lon), (-180...180).contains(longitude)
            else {
                throw .invalidTrackPoint(line: line, problem: "has no lat from -90 to 90 or no lon from -180 to 180")
            }
            return Point(latitude: latitude, longitude: longitude)
        }

        private mutating func endPoint(
            _ reader: xmlTextReaderPtr, source: String, limits: ActivityReaderLimits,
            summary: inout GPXSummary, onPosition: (TrackPoint) -> Void, onSample: (DistanceSample) -> Void
        ) throws(ActivityFileError) {
            guard let current = point else { return }
            point = nil
            summary.points += 1
            guard let time = current.time else {
                if current.unreadableTime { summary.timesUnreadable += 1 } else { summary.pointsWithoutTime += 1 }
                return
            }
            guard SupportedPeriod.isPlausible(time, now: now) else {
                summary.pointsOutsidePeriod += 1
                return
            }
            guard let previous, let previousTime = previous.time else {
                self.previous = current
                onPosition(TrackPoint(at: time, latitude: current.latitude, longitude: current.longitude))
                return
            }
            // A point dated before the one it follows is a glitched clock, not a step: it is dropped
            // and the track goes on from the last good point. A second in a row that goes on from the
            // first says the glitch was the point before them (dated ahead): the track goes on from here.
            guard time >= previousTime else {
                summary.timesBackwards += 1
                if let dropped = droppedBackwards, time >= dropped {
                    droppedBackwards = nil
                    self.previous = current
                    onPosition(TrackPoint(at: time, latitude: current.latitude, longitude: current.longitude))
                } else {
                    droppedBackwards = time
                }
                return
            }
            droppedBackwards = nil
            defer { self.previous = current }
            let metres = GreatCircle.metres(
                latitude1: previous.latitude, longitude1: previous.longitude,
                latitude2: current.latitude, longitude2: current.longitude)
            let seconds = time.timeIntervalSince(previousTime)
            // Standing still at one instant is no step, but still where the track is.
            if seconds == 0, metres == 0 {
                onPosition(TrackPoint(at: time, latitude: current.latitude, longitude: current.longitude))
                return
            }
            guard DistanceSample.isPlausible(metres: metres, seconds: seconds) else {
                summary.jumpsDropped += 1
                summary.metresDropped += metres
                return
            }
            // A pause longer than any step (the receiver off for days) starts the track afresh there.
            guard seconds <= limits.maxSampleDuration else {
                summary.gaps += 1
                onPosition(TrackPoint(at: time, latitude: current.latitude, longitude: current.longitude))
                return
            }
            summary.steps += 1
            onPosition(TrackPoint(at: time, latitude: current.latitude, longitude: current.longitude))
            onSample(DistanceSample(source: source, start: previousTime, end: time, metres: metres))
        }

        private func number(_ reader: xmlTextReaderPtr, _ name: UnsafePointer<xmlChar>?) -> Double? {
            guard let name else { return nil }
            defer { xmlTextReaderMoveToElement(reader) }
            guard xmlTextReaderMoveToFirstAttribute(reader) == 1 else { return nil }
            repeat {
                if xmlTextReaderConstLocalName(reader) == name, let value = xmlTextReaderConstValue(reader) {
                    let text = String(decoding: XMLText.bytes(value), as: UTF8.self).trimmingCharacters(in: .whitespaces)
                    guard let number = DecimalText.parse(text) else { return nil }
                    return number
                }
            } while xmlTextReaderMoveToNextAttribute(reader) == 1
            return nil
        }
    }
}
