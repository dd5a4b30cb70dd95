import DustKit
import DustReports
import Testing

@Suite("A PM10/PM2.5 pair in the JSON documents users see", .timeLimit(.minutes(10)))
struct PairJSONTests {
    @Test("The keys are pm10 then pm25; an unknown value is null")
    func keys() {
        #expect(
            JSON.pair(DustPair<Double?>(fineDust: 41.5, ultraFineDust: nil)) { JSON.number($0) }.serialized == #"{"pm10":41.5,"pm25":null}"#
        )
        #expect(JSON.pair(DustPair(fineDust: 3, ultraFineDust: 4)) { JSON.integer($0) }.serialized == #"{"pm10":3,"pm25":4}"#)
    }
}
