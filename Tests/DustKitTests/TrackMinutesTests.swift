import DustKit
import Foundation
import Testing

private let start = Date(timeIntervalSince1970: 1_795_129_200)  // 2026-11-20 08:00 KST

private func point(_ seconds: Double, _ latitude: Double, _ longitude: Double = 127) -> TrackPoint {
    TrackPoint(at: start.addingTimeInterval(seconds), latitude: latitude, longitude: longitude)
}

@Suite("Track minutes: the last point of each minute, 12 bytes each (docs/REFERENCE.md §19)", .timeLimit(.minutes(10)))
struct TrackMinutesTests {
    @Test("In order: each minute keeps its last point, at the minute's start, coordinates to 1e-7 degrees")
    func lastPointOfEachMinute() {
        var minutes = TrackMinutes()
        for (seconds, latitude) in [(0.0, 37.5), (30, 37.5001), (59.9, 37.5002), (60, 37.51), (185, 37.5612345)] {
            minutes.append(point(seconds, latitude, 126.9784147))
        }
        minutes.sort()
        #expect(
            Array(minutes) == [
                point(0, 37.5002, 126.9784147), point(60, 37.51, 126.9784147), point(180, 37.5612345, 126.9784147),
            ])
        #expect(minutes.span == start...start.addingTimeInterval(180))
    }

    @Test("Out of order (a later segment going back): sorted by minute, the point appended last wins its minute")
    func outOfOrder() {
        var minutes = TrackMinutes()
        for (seconds, latitude) in [(120.0, 1.0), (130, 2.0), (0, 3.0), (125, 4.0), (10, 5.0), (240, 6.0)] {
            minutes.append(point(seconds, latitude))
        }
        minutes.sort()
        #expect(minutes.map(\.position.latitude) == [5, 4, 6])
        #expect(minutes.map { $0.at.timeIntervalSince(start) } == [0, 120, 240])
    }

    @Test("Outside Korea is kept; outside the globe or before 2000 is left out")
    func bounds() {
        let minutes = TrackMinutes([
            point(0, 48.8566, 2.3522), point(60, 91), point(120, -33.8688, 151.2093),
            TrackPoint(at: Date(timeIntervalSince1970: 0), latitude: 37.5, longitude: 127),
        ])
        #expect(minutes.map { [$0.position.latitude, $0.position.longitude] } == [[48.8566, 2.3522], [-33.8688, 151.2093]])
    }

    @Test("A month of 1 Hz points keeps its 43,200 minutes in 12 bytes each (a year: 525,600 in about 6 MB), never the points")
    func monthOfSeconds() {
        var minutes = TrackMinutes()
        for second in 0..<(30 * 86_400) { minutes.append(point(Double(second), 37.5 + Double(second % 3600) * 1e-6)) }
        #expect(minutes.count == 43_200)
        #expect(minutes[1] == TrackPoint(at: start.addingTimeInterval(60), latitude: 37.500119, longitude: 127))
        #expect(minutes.storageBytes <= 43_200 * 12 * 2)  // an array's growth at most doubles it
    }
}
