import DustDaemon
import DustKit
import DustServices
import Foundation
import Testing

@Suite("The webhook's JSON and the command's environment, with and without people (docs/ALERTS.md)", .timeLimit(.minutes(10)))
struct AlertPayloadTests {
    static let at = Date(timeIntervalSince1970: 1_795_150_000)

    static func fired(people: [String] = []) -> AlertEvent {
        AlertEvent(kind: .fired, rule: "pm25.grade >= 3", metric: .pm25Grade, value: 3, station: "종로구", at: at, people: people)
    }

    @Test("Without people the document is exactly the one docs/ALERTS.md shows; with them, people comes last")
    func json() {
        let time = KoreaStandardTime.iso8601(Self.at)
        #expect(
            AlertPayload.json(Self.fired())
                == """
                {"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨","station":"종로구",\
                "time":"\(time)","title":"FineDust: PM2.5 나쁨 (bad)","message":"PM2.5 나쁨 (bad) at 종로구. Rule: pm25.grade >= 3."}
                """)
        #expect(
            AlertPayload.json(Self.fired(people: ["dad", "민지"]))
                == """
                {"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨","station":"종로구",\
                "time":"\(time)","title":"FineDust: PM2.5 나쁨 (bad) for dad, 민지",\
                "message":"PM2.5 나쁨 (bad) at 종로구 for dad, 민지. Rule: pm25.grade >= 3.","people":["dad","민지"]}
                """)
    }

    @Test("A dose's value, computed, is written rounded to 3 decimals in the JSON and FINEDUST_VALUE; a stored concentration as given")
    func computedValueRounded() {
        let dose = AlertEvent(
            kind: .fired, rule: "intake.today.pm25 > 20", metric: .intakeTodayPM25, value: 28.349999999999998, station: "종로구", at: Self.at)
        #expect(AlertPayload.json(dose).contains(#""value":28.35,"#), "\(AlertPayload.json(dose))")
        #expect(AlertPayload.environment(dose)["FINEDUST_VALUE"] == "28.35")
        let indoor = AlertEvent(
            kind: .fired, rule: "indoor.pm25 > 35", metric: .indoorPM25, value: 36.1234567, station: "종로구", at: Self.at)
        #expect(AlertPayload.json(indoor).contains(#""value":36.123,"#))
        let ozone = AlertEvent(kind: .fired, rule: "o3.grade >= 3", metric: .o3Grade, value: 3, station: "종로구", at: Self.at)
        #expect(AlertPayload.environment(ozone)["FINEDUST_VALUE"] == "3")
    }

    @Test("FINEDUST_PEOPLE is set only when the event names people")
    func environment() {
        #expect(AlertPayload.environment(Self.fired())["FINEDUST_PEOPLE"] == nil)
        #expect(AlertPayload.environment(Self.fired()).count == 10)
        #expect(AlertPayload.environment(Self.fired(people: ["dad", "민지"]))["FINEDUST_PEOPLE"] == "dad,민지")
    }
}
