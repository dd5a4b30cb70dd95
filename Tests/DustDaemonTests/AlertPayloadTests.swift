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
            AlertPayload.json(Self.fired(), language: .en)
                == """
                {"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨","station":"종로구",\
                "time":"\(time)","title":"FineDust: PM2.5 나쁨 (bad)","message":"PM2.5 나쁨 (bad) at 종로구. Rule: pm25.grade >= 3."}
                """)
        #expect(
            AlertPayload.json(Self.fired(people: ["dad", "민지"]), language: .en)
                == """
                {"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨","station":"종로구",\
                "time":"\(time)","title":"FineDust: PM2.5 나쁨 (bad) for dad, 민지",\
                "message":"PM2.5 나쁨 (bad) at 종로구 for dad, 민지. Rule: pm25.grade >= 3.","people":["dad","민지"]}
                """)
    }

    @Test("In Korean (alerts.language: ko, the default): the title and message a Korean household reads; the rest as in English")
    func korean() {
        let time = KoreaStandardTime.iso8601(Self.at)
        #expect(
            AlertPayload.json(Self.fired(people: ["dad", "민지"]), language: .ko)
                == """
                {"event":"fired","rule":"pm25.grade >= 3","metric":"pm25.grade","value":3,"grade":"나쁨","station":"종로구",\
                "time":"\(time)","title":"FineDust: 초미세먼지 나쁨 (dad, 민지)",\
                "message":"종로구 (dad, 민지): 초미세먼지 나쁨. 규칙: pm25.grade >= 3.","people":["dad","민지"]}
                """)
        let cleared = AlertEvent(
            kind: .cleared, rule: "advisory.level >= 1", metric: .advisoryLevel, value: 0, station: "종로구", at: Self.at)
        #expect(cleared.title(in: .ko) == "FineDust: 해제, 발령된 주의보·경보 없음")
        #expect(cleared.message(in: .ko) == "종로구: 이제 조건(advisory.level >= 1)에 해당하지 않습니다. 지금 발령된 주의보·경보 없음.")
        let indoor = AlertEvent(kind: .fired, rule: "indoor.pm25 > 35", metric: .indoorPM25, value: 52, station: "종로구", at: Self.at)
        #expect(AlertPayload.environment(indoor, language: .ko)["FINEDUST_TITLE"] == "FineDust: 실내 초미세먼지 52.0 µg/m³ (환기하거나 공기청정기를 켜세요)")
        // A clearing says the air is back, not to open the window.
        let indoorCleared = AlertEvent(
            kind: .cleared, rule: "indoor.pm25 > 35", metric: .indoorPM25, value: 20, station: "종로구", at: Self.at)
        #expect(indoorCleared.title(in: .ko) == "FineDust: 해제, 실내 초미세먼지 20.0 µg/m³")
        #expect(indoorCleared.title(in: .en) == "FineDust: cleared, indoor PM2.5 20.0 µg/m³")
        let dose = AlertEvent(
            kind: .fired, rule: "intake.today.pm10 > 300", metric: .intakeTodayPM10, value: 412.5, station: "종로구", at: Self.at)
        #expect(dose.title(in: .ko) == "FineDust: 오늘 미세먼지 흡입량 412.5 µg")
        let forecast = AlertEvent(
            kind: .fired, rule: "forecast.tomorrow.pm25 >= 3", metric: .forecastTomorrowPM25, value: 4, station: "종로구", at: Self.at)
        #expect(forecast.title(in: .ko) == "FineDust: 내일 초미세먼지 예보 매우나쁨")
        let watch = AlertEvent(kind: .fired, rule: "advisory.level >= 1", metric: .advisoryLevel, value: 2, station: "종로구", at: Self.at)
        #expect(watch.title(in: .ko) == "FineDust: 경보 발령 중")
        let test = AlertEvent(kind: .test, rule: "", metric: nil, value: nil, station: "종로구", at: Self.at)
        #expect(test.title(in: .ko) == "FineDust 시험 알림")
        #expect(test.message(in: .ko) == "dustctl alerts test가 보낸 시험 알림입니다 (종로구). 이 글이 보이면 알림이 닿습니다.")
    }

    @Test("A dose's value, computed, is written rounded to 3 decimals in the JSON and FINEDUST_VALUE; a stored concentration as given")
    func computedValueRounded() {
        let dose = AlertEvent(
            kind: .fired, rule: "intake.today.pm25 > 20", metric: .intakeTodayPM25, value: 28.349999999999998, station: "종로구", at: Self.at)
        #expect(AlertPayload.json(dose, language: .en).contains(#""value":28.35,"#), "\(AlertPayload.json(dose, language: .en))")
        #expect(AlertPayload.environment(dose, language: .en)["FINEDUST_VALUE"] == "28.35")
        let indoor = AlertEvent(
            kind: .fired, rule: "indoor.pm25 > 35", metric: .indoorPM25, value: 36.1234567, station: "종로구", at: Self.at)
        #expect(AlertPayload.json(indoor, language: .en).contains(#""value":36.123,"#))
        let ozone = AlertEvent(kind: .fired, rule: "o3.grade >= 3", metric: .o3Grade, value: 3, station: "종로구", at: Self.at)
        #expect(AlertPayload.environment(ozone, language: .en)["FINEDUST_VALUE"] == "3")
    }

    @Test("FINEDUST_PEOPLE is set only when the event names people")
    func environment() {
        #expect(AlertPayload.environment(Self.fired(), language: .en)["FINEDUST_PEOPLE"] == nil)
        #expect(AlertPayload.environment(Self.fired(), language: .en).count == 10)
        #expect(AlertPayload.environment(Self.fired(people: ["dad", "민지"]), language: .en)["FINEDUST_PEOPLE"] == "dad,민지")
    }
}
