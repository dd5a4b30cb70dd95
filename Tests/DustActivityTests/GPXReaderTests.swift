import DustActivity
import DustKit
import Foundation
import TestSupport
import Testing

@Suite("GPXReader", .timeLimit(.minutes(10)))
struct GPXReaderTests {
    /// A GPX 1.1 track, one `<trkseg>` per element of `segments`, each point `(lat, lon, time?)`.
    private func track(_ segments: [[(Double, Double, String?)]]) -> String {
        let body = segments.map { points in
            "  <trkseg>\n"
                + points.map { point in
                    let time = point.2.map { "<time>\($0)</time>" } ?? ""
                    return "   <trkpt lat=\"\(point.0)\" lon=\"\(point.1)\"><ele>38.0</ele>\(time)</trkpt>\n"
                }.joined() + "  </trkseg>\n"
        }.joined()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="FineDust tests" xmlns="http://www.topografix.com/GPX/1/1">
             <trk>
            \(body) </trk>
            </gpx>
            """
    }

    @Test("Three points: 111.195 m north, then 88.133 m east")
    func handComputed() throws {
        // Haversine, R = 6,371,008.8 m, 1° = π/180 = 0.017453292519943295 rad.
        // Step 1, (37.570, 126.980) → (37.571, 126.980), along a meridian: d = R × Δφ
        //   = 6,371,008.8 × 0.001 × 0.017453292519943295 = 111.1950802 m, in 60 s.
        // Step 2, (37.571, 126.980) → (37.571, 126.981), along a parallel:
        //   d = 2R × asin(cos φ × sin(Δλ/2)); cos 37.571° = 0.7925983641,
        //   sin(0.0005°) = sin(8.726646260e-6 rad) = 8.726646259e-6,
        //   d = 2 × 6,371,008.8 × asin(6.916624e-6) = 88.1330387 m, in 60 s.
        // Total 199.3281189 m.
        let xml = try String(contentsOf: TestFixtures.url("activity/route_2024-01-01_8.20am.gpx"), encoding: .utf8)
        let result = try readGPX(xml, fileName: "route_2024-01-01_8.20am.gpx")
        #expect(result.samples.count == 2)
        #expect(abs(result.samples[0].metres - 111.1950802) < 1e-6)
        #expect(abs(result.samples[1].metres - 88.1330387) < 1e-6)
        #expect(result.samples.allSatisfy { $0.source == "gpx:route_2024-01-01_8.20am.gpx" })
        // A file's name of 1,000 bytes (a zip entry's may be 64 KiB) names the source by its first 256.
        let long = try readGPX(xml, fileName: String(repeating: "r", count: 996) + ".gpx")
        #expect(long.samples.allSatisfy { $0.source == "gpx:" + String(repeating: "r", count: 256) })
        #expect(result.samples.map(\.start) == [instant("2023-12-31T23:20:00Z"), instant("2023-12-31T23:21:00Z")])
        #expect(result.samples.map(\.end) == [instant("2023-12-31T23:21:00Z"), instant("2023-12-31T23:22:00Z")])
        #expect(result.summary.points == 3 && result.summary.steps == 2 && result.summary.segments == 1)
        var apportioner = SlotApportioner()
        for item in result.samples { apportioner.add(item) }
        let total = try #require(apportioner.metresBySource["gpx:route_2024-01-01_8.20am.gpx"]?[slot("2023-12-31T23:00:00Z")])
        #expect(abs(total - 199.3281189) < 1e-6)
    }

    @Test("A GPS jump is dropped; the next step starts from where it landed, and the walking after it counts")
    func gpsJump() throws {
        // A → B: 111.195 m in 60 s (1.9 m/s) counts.
        // B → C: 0.045° north, 5,003.78 m in 10 s (500 m/s): a jump, dropped.
        // C → D: 5,003.78 m back south in 10 s: a jump too, dropped (each step is judged alone).
        // D → E: 111.195 m in 60 s counts. Counted: 222.390 m; dropped: 10,007.56 m.
        let xml = track([
            [
                (37.570, 126.98, "2024-01-01T08:20:00+09:00"),
                (37.571, 126.98, "2024-01-01T08:21:00+09:00"),
                (37.616, 126.98, "2024-01-01T08:21:10+09:00"),
                (37.571, 126.98, "2024-01-01T08:21:20+09:00"),
                (37.572, 126.98, "2024-01-01T08:22:20+09:00"),
            ]
        ])
        let result = try readGPX(xml)
        #expect(result.summary.jumpsDropped == 2)
        #expect(abs(result.summary.metresDropped - 10_007.557221) < 1e-3)
        #expect(result.samples.count == 2)
        #expect(abs(result.samples.map(\.metres).reduce(0, +) - 222.3901605) < 1e-6)
        #expect(result.samples.map(\.start) == [instant("2024-01-01T08:20:00+09:00"), instant("2024-01-01T08:21:20+09:00")])
    }

    @Test("No step crosses a segment gap: two segments of one step each give two steps")
    func segmentGap() throws {
        // The gap from (37.571, 126.98) to (37.580, 126.98) would be 1,000.76 m in 9 minutes —
        // walkable, but the receiver stopped recording in between, so it is not counted.
        let xml = track([
            [(37.570, 126.98, "2024-01-01T08:20:00Z"), (37.571, 126.98, "2024-01-01T08:21:00Z")],
            [(37.580, 126.98, "2024-01-01T08:30:00Z"), (37.581, 126.98, "2024-01-01T08:31:00Z")],
        ])
        let result = try readGPX(xml)
        #expect(result.summary.segments == 2)
        #expect(result.samples.count == 2)
        #expect(abs(result.samples.map(\.metres).reduce(0, +) - 222.3901605) < 1e-6)
        #expect(result.summary.jumpsDropped == 0)
    }

    @Test(
        "A leap second (23:59:60Z, 08:59:60+09:00) is the next day's first instant, as the indoor CSV takes it; another :60 or :61 is no time"
    )
    func leapSecond() throws {
        for leap in ["2016-12-31T23:59:60Z", "2017-01-01T08:59:60+09:00", "2016-12-31T23:59:60.000Z"] {
            let result = try readGPX(track([[(37.570, 126.98, "2016-12-31T23:59:00Z"), (37.571, 126.98, leap)]]))
            #expect(result.samples.count == 1, "\(leap)")
            #expect(result.samples.first?.start.timeIntervalSince1970 == 1_483_228_740, "\(leap)")
            #expect(result.samples.first?.end.timeIntervalSince1970 == 1_483_228_800, "\(leap)")
        }
        for bad in ["2016-12-31T23:59:61Z", "2016-12-31T23:58:60Z", "2016-12-31T23:59:60+09:00"] {
            let result = try readGPX(track([[(37.570, 126.98, "2016-12-31T23:58:00Z"), (37.571, 126.98, bad)]]))
            #expect(result.samples.isEmpty, "\(bad)")
            #expect(result.summary.timesUnreadable == 1, "\(bad)")
        }
    }

    @Test("A file whose declared encoding does not decode (UTF-7 with a byte 0x90) is refused without a line libxml2 does not know")
    func undecodableEncoding() throws {
        let bytes =
            Array("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<gpx version=\"1.1\" creator=\"Fine".utf8) + [0x90]
            + Array("\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n <trk><trkseg/></trk>\n</gpx>\n".utf8)
        do {
            _ = try GPXReader(now: Date()).read(MemoryByteStream(bytes), fileName: "walk.gpx") { _ in }
            Issue.record("a file that does not decode was read")
        } catch {
            // It said "line 0: the file is not well-formed XML (input conversion failed …)".
            #expect(!error.description.contains("line 0"), "\(error.description)")
            #expect(error.description.contains("not well-formed XML"), "\(error.description)")
        }
    }

    @Test("Route points and waypoints are counted, never walked: a file of them alone gives no step and says why")
    func routesAndWaypoints() throws {
        let xml = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="37.57" lon="126.98"><time>2026-11-20T01:00:00Z</time></wpt>
            <rte><rtept lat="37.57" lon="126.98"><time>2026-11-20T01:00:00Z</time></rtept>
            <rtept lat="37.58" lon="126.98"><time>2026-11-20T01:20:00Z</time></rtept></rte>
            <trk><trkseg><trkpt lat="37.570" lon="126.98"><time>2026-11-20T02:00:00Z</time></trkpt>
            <trkpt lat="37.571" lon="126.98"><time>2026-11-20T02:01:00Z</time></trkpt></trkseg></trk>
            </gpx>
            """
        let result = try readGPX(xml)
        #expect(result.summary.plannedPoints == 3)
        #expect(result.summary.points == 2 && result.summary.steps == 1)
        #expect(result.samples.map(\.start) == [instant("2026-11-20T02:00:00Z")])
    }

    @Test("Points without time are ignored: the step joins the timed points around them")
    func pointsWithoutTime() throws {
        let xml = track([
            [
                (37.570, 126.98, "2024-01-01T08:20:00Z"),
                (37.5705, 126.99, nil),
                (37.571, 126.98, "2024-01-01T08:21:00Z"),
                (37.572, 126.98, nil),
            ]
        ])
        let result = try readGPX(xml)
        #expect(result.summary.points == 4 && result.summary.pointsWithoutTime == 2)
        #expect(result.samples.count == 1)
        #expect(abs(result.samples[0].metres - 111.1950802) < 1e-6)
    }

    @Test("GPX 1.0 without a prefix and GPX 1.1 with a prefix, extensions and their own <time> give the same step")
    func versionsAndPrefixes() throws {
        let gpx10 = """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <gpx version="1.0" creator="an old logger" xmlns="http://www.topografix.com/GPX/1/0">
            <time>2024-01-01T00:00:00Z</time>
            <trk><name>Caf\u{E9}</name><trkseg>
            <trkpt lat="37.570" lon="126.980"><time>2024-01-01T08:20:00.000+09:00</time><speed>1.8</speed></trkpt>
            <trkpt lat="37.571" lon="126.980"><time>2024-01-01T08:21:00.500+0900</time></trkpt>
            </trkseg></trk>
            </gpx>
            """
        let gpx11 = """
            <?xml version="1.0" encoding="UTF-8"?>
            <g:gpx version="1.1" creator="a watch" xmlns:g="http://www.topografix.com/GPX/1/1" xmlns:tp="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
             <g:metadata><g:time>2024-01-01T08:19:00Z</g:time></g:metadata>
             <g:trk><g:trkseg>
              <g:trkpt lat="37.570" lon="126.980"><g:time>2024-01-01T08:20:00+09:00</g:time>
               <g:extensions><tp:TrackPointExtension><tp:hr>92</tp:hr><tp:time>1999-01-01T00:00:00Z</tp:time></tp:TrackPointExtension></g:extensions></g:trkpt>
              <g:trkpt lat="37.571" lon="126.980"><g:time>2024-01-01T08:21:00.5+09:00</g:time></g:trkpt>
             </g:trkseg></g:trk>
            </g:gpx>
            """
        let latin1 = try #require(gpx10.data(using: .isoLatin1))
        var old: [DistanceSample] = []
        _ = try GPXReader(now: Date()).read(MemoryByteStream(Array(latin1)), fileName: "old.gpx") { old.append($0) }
        let new = try readGPX(gpx11, fileName: "new.gpx").samples
        for samples in [old, new] {
            #expect(samples.count == 1)
            #expect(abs(samples[0].metres - 111.1950802) < 1e-6)
            #expect(samples[0].start == instant("2024-01-01T08:20:00+09:00"))
            #expect(samples[0].end == instant("2024-01-01T08:21:00+09:00").addingTimeInterval(0.5))
        }
    }

    @Test("A point without lat, or with lat in hex (0x25) or inf, is a typed error naming its line")
    func invalidPoints() {
        let noLatitude = track([[(37.570, 126.98, "2024-01-01T08:20:00Z")]]).replacingOccurrences(of: "lat=", with: "latitude=")
        #expect(throws: ActivityFileError.invalidTrackPoint(line: 5, problem: "has no lat from -90 to 90 or no lon from -180 to 180")) {
            try readGPX(noLatitude)
        }
        for written in ["0x25", "inf", "37.5.1", "+-37"] {
            let odd = track([[(37.570, 126.98, "2024-01-01T08:20:00Z")]]).replacingOccurrences(
                of: "lat=\"37.57\"", with: "lat=\"\(written)\"")
            #expect(odd.contains(written))
            #expect(throws: ActivityFileError.invalidTrackPoint(line: 5, problem: "has no lat from -90 to 90 or no lon from -180 to 180")) {
                try readGPX(odd)
            }
        }
    }

    @Test("A glitched time costs its point, not the track: unreadable, dated before the point before, or days after it")
    func glitchedTimes() throws {
        // 37.570 → 37.571 along a meridian is 111.195 m; each good step one minute.
        let walk = track([
            [
                (37.570, 126.98, "2024-01-01T08:20:00Z"), (37.571, 126.98, "yesterday"), (37.571, 126.98, "2024-01-01T08:21:00Z"),
                (37.572, 126.98, "2024-01-01T07:00:00Z"), (37.572, 126.98, "2024-01-01T08:22:00Z"),
                (37.573, 126.98, "2024-01-20T08:22:00Z"), (37.574, 126.98, "2024-01-20T08:23:00Z"),
            ]
        ])
        let result = try readGPX(walk)
        #expect(result.summary.timesUnreadable == 1)
        #expect(result.summary.timesBackwards == 1)
        #expect(result.summary.gaps == 1)
        #expect(
            result.samples.map(\.start) == [
                instant("2024-01-01T08:20:00Z"), instant("2024-01-01T08:21:00Z"), instant("2024-01-20T08:22:00Z"),
            ])
        #expect(result.samples.allSatisfy { abs($0.metres - 111.19508) < 1e-3 })

        // One point dated a day ahead: the points after it are not all lost; the track goes on
        // from the second that follows the first in time.
        let ahead = track([
            [
                (37.570, 126.98, "2024-01-01T08:20:00Z"), (37.571, 126.98, "2024-01-02T08:21:00Z"),
                (37.572, 126.98, "2024-01-01T08:22:00Z"),
                (37.573, 126.98, "2024-01-01T08:23:00Z"), (37.574, 126.98, "2024-01-01T08:24:00Z"),
                (37.575, 126.98, "2024-01-01T08:25:00Z"),
            ]
        ])
        let resumed = try readGPX(ahead)
        #expect(resumed.summary.timesBackwards == 2)
        #expect(
            resumed.samples.suffix(2).map(\.start) == [instant("2024-01-01T08:23:00Z"), instant("2024-01-01T08:24:00Z")])
    }

    @Test("A control character before the root is white space, as libxml2 sees it: the track is read, and sniffed as GPX")
    func controlCharacterBeforeRoot() throws {
        // Found by scripts/fuzz.sh gpx (minimised): the reader counted the step while sniffing took
        // U+0017 for the root element and refused the file. 37° → 31° along a meridian:
        // R × 6 × π/180 = 6,371,008.8 × 0.10471975512 = 667,170.4814 m in 32,460 s (20.6 m/s).
        let xml =
            "\u{17}<gpx><trk><trkseg><trkpt lat=\"37\" lon=\"126\"><time>2024-01-01T08:20:00+0900</time></trkpt>"
            + "<trkpt lat=\"31\" lon=\"126\"><time>2024-01-01T08:21:00</time></trkpt></trkseg></trk></gpx>"
        let result = try readGPX(xml)
        #expect(result.samples.count == 1 && result.summary.controlCharactersReplaced == 1)
        #expect(abs(result.samples[0].metres - 667_170.4814012) < 1e-6)
        #expect(result.samples[0].start == instant("2023-12-31T23:20:00Z") && result.samples[0].end == instant("2024-01-01T08:21:00Z"))
        #expect(try ActivityFileFormat.sniff(Array(xml.utf8)) == .gpx)
        // A control character after the root's name ends the name, as a space does.
        #expect(try ActivityFileFormat.sniff(Array("<?xml version=\"1.0\"?>\n<gpx\u{0B}version=\"1.1\"/>".utf8)) == .gpx)
    }

    @Test("A DOCTYPE before a root shorter than 9 bytes is hidden like any other: <gpx/> is an empty track, not an entity")
    func doctypeBeforeShortRoot() throws {
        // The guard waited for 9 bytes after the DOCTYPE; at the end of the file it handed libxml2
        // the DOCTYPE unhidden, and the driver refused it as an entity.
        let xml = "<!DOCTYPE gpx [<!ELEMENT gpx ANY>]>\n<gpx/>\n"
        let result = try readGPX(xml)
        #expect(result.samples.isEmpty && result.summary.points == 0 && result.summary.segments == 0)
        #expect(try ActivityFileFormat.sniff(Array(xml.utf8)) == .gpx)
    }

    @Test("A second DOCTYPE is malformed, refused by the guard on its line; libxml2 never sees the first")
    func secondDoctype() {
        // Found by scripts/fuzz.sh gpx: the guard hid only the last DOCTYPE, libxml2 read the first,
        // and the driver refused the file as declaring an entity. Minimised: <!DOCTYPEg><!DOCTYPE>\n<tr>
        #expect(throws: ActivityFileError.malformedXML(line: 1, reason: "the file has a second DOCTYPE declaration")) {
            try readGPX("<!DOCTYPEg><!DOCTYPE>\n<tr>")
        }
        let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [\n<!ELEMENT gpx ANY>\n]>\n<!DOCTYPE gpx>\n<gpx version=\"1.1\"/>\n"
        #expect(throws: ActivityFileError.malformedXML(line: 5, reason: "the file has a second DOCTYPE declaration")) { try readGPX(xml) }
        #expect(throws: ActivityFileError.malformedXML(line: 5, reason: "the file has a second DOCTYPE declaration")) {
            try ActivityFileFormat.sniff(Array(xml.utf8))
        }
    }

    @Test("Text before the root is malformed, refused by the guard: libxml2 dropped a byte of a UT-F8 file and read the track")
    func textBeforeRoot() {
        // Found by scripts/fuzz.sh gpx (minimised): glibc's iconv takes "UT-F8" for UTF-8, and
        // libxml2, converting through it, skipped the undecodable 0xA6 and read two steps, while
        // sniffing took 0xA6 for the root element and refused the file.
        let xml =
            Array("<?xml version=\"1.\" encoding=\"UT-F8\"?>".utf8) + [0xA6]
            + Array(
                ("<gpx><trk><trkseg><trkpt lat=\"37\" lon=\"126\"><time>2024-01-01T08:20:10</time></trkpt>"
                    + "<trkpt lat=\"32\" lon=\"128\"><time>2024-01-01T17:20:20</time></trkpt></trkseg></trk></gpx>").utf8)
        let error = ActivityFileError.malformedXML(line: 1, reason: "the file has text before its root element")
        #expect(throws: error) { try GPXReader(now: Date()).read(MemoryByteStream(xml), fileName: "walk.gpx") { _ in } }
        #expect(throws: error) { try ActivityFileFormat.sniff(xml) }
    }

    @Test("A GPX file declaring an entity is refused; a Health export is not a GPX file")
    func hostile() {
        let entity = """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [
            <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <gpx version="1.1"><trk><name>&xxe;</name></trk></gpx>
            """
        #expect(throws: ActivityFileError.entityInDocumentType(line: 3)) { try readGPX(entity) }
        #expect(throws: ActivityFileError.notAGPXFile(root: "HealthData")) { try readGPX(healthExport("")) }
    }
}

extension GPXReaderTests {
    @Test("Points sharing a second, as Apple writes routes: steps of 0.18 m and 0.24 m are both kept, 0.42 m in all, no jump")
    func sameSecondSteps() throws {
        // A → B: 0.0000016° north, 0.177912 m in 1 s; B → C: 0.0000022° more, 0.244629 m in 0 s.
        // Dropping B → C as a jump lost 0.24 m of a real route's 0.42 m.
        let xml = track([
            [
                (37.5665, 126.978, "2024-01-01T08:20:00Z"),
                (37.5665016, 126.978, "2024-01-01T08:20:01Z"),
                (37.5665038, 126.978, "2024-01-01T08:20:01Z"),
            ]
        ])
        let result = try readGPX(xml)
        #expect(result.summary.jumpsDropped == 0)
        #expect(result.summary.steps == 2)
        #expect(abs(result.samples.map(\.metres).reduce(0, +) - 0.422541305) < 1e-6)
        // The same-second step is an instant, and its hour gets all of it.
        #expect(result.samples[1].start == instant("2024-01-01T08:20:01Z") && result.samples[1].end == instant("2024-01-01T08:20:01Z"))
        var apportioner = SlotApportioner()
        for item in result.samples { apportioner.add(item) }
        #expect(abs(apportioner.metresBySource["gpx:walk.gpx"]![slot("2024-01-01T08:00:00Z")]! - 0.422541305) < 1e-6)
    }

    @Test("A step with no elapsed time is kept up to 30 m (28.91 m) and a jump past it (31.13 m)")
    func sameSecondBound() throws {
        let xml = track([
            [
                (37.5665038, 126.978, "2024-01-01T08:20:01Z"),
                (37.5667638, 126.978, "2024-01-01T08:20:01Z"),  // 28.910721 m at the same second: kept
                (37.5670438, 126.978, "2024-01-01T08:20:01Z"),  // 31.134622 m at the same second: a jump
            ]
        ])
        let result = try readGPX(xml)
        #expect(result.summary.steps == 1)
        #expect(abs(result.samples[0].metres - 28.910720860) < 1e-6)
        #expect(result.summary.jumpsDropped == 1)
        #expect(abs(result.summary.metresDropped - 31.134622466) < 1e-6)
    }

    @Test("Points dated before 2000 or more than a day after now are skipped and counted; the step joins the points around them")
    func pointsOutsidePeriod() throws {
        let now = instant("2024-01-01T12:00:00Z")
        let xml = track([
            [
                (37.570, 126.98, "2024-01-01T08:20:00Z"),
                (37.590, 126.98, "0001-01-01T08:20:30Z"),
                (37.590, 126.98, "9999-12-31T08:20:30Z"),
                (37.590, 126.98, "1999-12-31T09:59:59Z"),
                (37.590, 126.98, "2024-01-02T12:00:01Z"),  // a day and a second after now
                (37.571, 126.98, "2024-01-01T08:21:00Z"),
                (37.572, 126.98, "2024-01-02T11:59:59Z"),  // within a day of now: kept
            ]
        ])
        var samples: [DistanceSample] = []
        let summary = try GPXReader(now: now).read(MemoryByteStream(xml), fileName: "walk.gpx") { samples.append($0) }
        #expect(summary.pointsOutsidePeriod == 4)
        #expect(summary.points == 7)
        #expect(summary.jumpsDropped == 0)
        #expect(samples.map(\.start) == [instant("2024-01-01T08:20:00Z"), instant("2024-01-01T08:21:00Z")])
        #expect(abs(samples.map(\.metres).reduce(0, +) - 222.3901605) < 1e-6)
    }
}
