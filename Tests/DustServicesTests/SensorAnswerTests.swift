import DustKit
import DustServices
import Foundation
import Testing

/// The documented answers of each monitor kind (docs/REFERENCE.md §21), and hostile ones.
/// AirGradient: the local server of firmware 3.1 (`/measures/current`, documented in AirGradient's
/// "Local Server API"); PurpleAir: a PA-II's local `/json` (firmware 7.x); Home Assistant: the REST
/// API's `/api/states/<entity_id>` and `/api/history/period/<timestamp>` (2024.x).
@Suite("Indoor monitors' answers, as each documents them, and hostile ones", .timeLimit(.minutes(10)))
struct SensorAnswerTests {
    func data(_ text: String) -> Data { Data(text.utf8) }

    let airGradient = """
        {"pm01":3,"pm02":9,"pm10":12,"pm02Compensated":7.4,"pm003Count":540,"atmp":22.6,"atmpCompensated":22.1,
         "rhum":41,"rhumCompensated":46,"rco2":612,"tvocIndex":98,"noxIndex":1,"boot":17,"bootCount":17,
         "wifi":-57,"ledMode":"pm","serialno":"84f3eb7a1c2d","firmware":"3.1.3","model":"I-9PSL"}
        """

    @Test("AirGradient: pm02Compensated before pm02, and pm10")
    func airGradientAnswer() throws {
        let values = try SensorAnswer.airGradient(data(airGradient))
        #expect(values.value.ultraFineDust == 7.4 && values.value.fineDust == 12 && values.unknown == 0)
        let older = try SensorAnswer.airGradient(data(#"{"pm02":9,"pm10":12,"serialno":"x"}"#))
        #expect(older.value.ultraFineDust == 9)
        // A compensated value that is not plausible falls back to pm02, and is counted.
        let glitch = try SensorAnswer.airGradient(data(#"{"pm02Compensated":-4,"pm02":9}"#))
        #expect(glitch.value.ultraFineDust == 9 && glitch.unknown == 1)
    }

    @Test("PurpleAir: two channels averaged, a disagreement unknown, EPA's correction from cf1 and humidity")
    func purpleAirAnswer() throws {
        let dual = """
            {"SensorId":"84:f3:eb:7a:1c:2d","DateTime":"2024/01/15T03:04:05z","current_humidity":40,"pm2_5_atm":10.5,
             "pm2_5_atm_b":11.5,"pm10_0_atm":15,"pm10_0_atm_b":17,"pm2_5_cf_1":12,"pm2_5_cf_1_b":14}
            """
        let values = try SensorAnswer.purpleAir(data(dual), epa2021: false)
        #expect(values.value.ultraFineDust == 11 && values.value.fineDust == 16)
        let corrected = try SensorAnswer.purpleAir(data(dual), epa2021: true)
        // cf1 = 13, RH 40: 0.524 × 13 − 0.0862 × 40 + 5.75.
        #expect(abs(corrected.value.ultraFineDust! - (0.524 * 13 - 0.0862 * 40 + 5.75)) < 1e-12)
        let split = #"{"pm2_5_atm":10,"pm2_5_atm_b":40,"pm10_0_atm":12,"pm10_0_atm_b":60}"#
        #expect(throws: SensorProblem.channelsDisagree) { try SensorAnswer.purpleAir(data(split), epa2021: false) }
        let single = try SensorAnswer.purpleAir(data(#"{"pm2_5_atm":8,"pm10_0_atm":9}"#), epa2021: false)
        #expect(single.value.ultraFineDust == 8 && single.value.fineDust == 9)
    }

    @Test("Home Assistant: a state in µg/m³ (either µ), unavailable, another unit named, the history")
    func homeAssistantAnswer() throws {
        let state = """
            {"entity_id":"sensor.study_pm25","state":"12.5","attributes":{"unit_of_measurement":"µg/m³",
             "device_class":"pm25","friendly_name":"Study PM2.5"},"last_changed":"2024-01-15T03:04:05.123456+00:00",
             "last_updated":"2024-01-15T03:04:05.123456+00:00"}
            """
        #expect(try SensorAnswer.homeAssistantState(data(state), pollutant: .pm25).value.ultraFineDust == 12.5)
        let greek = state.replacingOccurrences(of: "µg", with: "μg")
        #expect(try SensorAnswer.homeAssistantState(data(greek), pollutant: .pm10).value.fineDust == 12.5)
        #expect(throws: SensorProblem.wrongUnit("\"ppm\"")) {
            try SensorAnswer.homeAssistantState(data(state.replacingOccurrences(of: "µg/m³", with: "ppm")), pollutant: .pm25)
        }
        for word in ["unavailable", "unknown"] {
            #expect(throws: SensorProblem.unavailable) {
                try SensorAnswer.homeAssistantState(data(state.replacingOccurrences(of: "12.5", with: word)), pollutant: .pm25)
            }
        }
        // A unit that is not one Home Assistant's sensors use is not quoted at all: escape sequences, length,
        // combining marks, full-width letters or pieces of the token (the server holds it) stay the server's.
        for unit in [
            "\\u001b[2Jppm-and-a-very-long-tail", "ppm" + String(repeating: "\u{0301}", count: 30_000), "ｅｙＪｈｂＧｃｉＯｉＡ", "eyJhbGc iOiAiSF",
            "ppm ",
            // Canonically equivalent to a unit of the list (U+212A KELVIN SIGN is "K"), but not its spelling.
            "\u{212A}",
        ] {
            #expect(throws: SensorProblem.wrongUnit("another unit")) {
                try SensorAnswer.homeAssistantState(data(state.replacingOccurrences(of: "µg/m³", with: unit)), pollutant: .pm25)
            }
        }
        #expect(SensorProblem.wrongUnit("another unit").description.hasPrefix("reports in another unit, not µg/m³"))
        #expect(throws: SensorProblem.wrongUnit("\"K\"")) {
            try SensorAnswer.homeAssistantState(data(state.replacingOccurrences(of: "µg/m³", with: "K")), pollutant: .pm25)
        }
        #expect(SensorAnswer.problem(status: 401, homeAssistant: true) == .tokenRefused)
        #expect(SensorAnswer.problem(status: 302, homeAssistant: true) == .redirect(302))
        #expect(SensorAnswer.problem(status: 200, homeAssistant: true) == nil)
        let history = """
            [[{"entity_id":"sensor.study_pm25","state":"8","attributes":{"unit_of_measurement":"µg/m³"},
               "last_changed":"2024-01-15T00:00:00+00:00","last_updated":"2024-01-15T00:00:00+00:00"},
              {"state":"unavailable","last_changed":"2024-01-15T00:10:00.5+00:00"},
              {"state":"11.5","last_changed":"2024-01-15T00:20:00Z"}]]
            """
        let read = try SensorAnswer.homeAssistantHistory(data(history), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        // The unavailable state is kept as no value: it ends the hold of the 8 before it.
        #expect(read.states.map(\.value.ultraFineDust) == [8, nil, 11.5] && read.unknown == 0)
        #expect(read.states.map(\.at.timeIntervalSince1970) == [1_705_276_800, 1_705_277_400, 1_705_278_000])
    }

    @Test("Clean air: a reading of 0 or 1 µg/m³ (as 0, 1, 1.0, -0) is a value, not a Boolean; true and false are none")
    func cleanAirReadings() throws {
        // On Linux a parsed 0 or 1 also answers `is Bool`: these were dropped as implausible.
        for (text, expected) in [("0", 0.0), ("1", 1), ("1.0", 1), ("-0", 0), ("0.0", 0)] {
            let values = try SensorAnswer.airGradient(data(#"{"pm02":\#(text),"pm10":\#(text)}"#))
            #expect(values.value.ultraFineDust == expected && values.value.fineDust == expected && values.unknown == 0, "\(text)")
        }
        // A compensated 0 is the value, not a reason to fall back to the raw pm02.
        #expect(try SensorAnswer.airGradient(data(#"{"pm02Compensated":0,"pm02":4}"#)).value.ultraFineDust == 0)
        // PurpleAir: channel A at 0 is a channel, not a missing one (3 was stored for 0 and 3).
        let purple = try SensorAnswer.purpleAir(data(#"{"pm2_5_atm":0,"pm2_5_atm_b":3,"pm10_0_atm":1,"pm10_0_atm_b":1}"#), epa2021: false)
        #expect(purple.value.ultraFineDust == 1.5 && purple.value.fineDust == 1)
        let corrected = try SensorAnswer.purpleAir(
            data(#"{"pm2_5_atm":0,"pm2_5_atm_b":3,"pm2_5_cf_1":0,"pm2_5_cf_1_b":3,"current_humidity":40}"#), epa2021: true)
        #expect(abs(corrected.value.ultraFineDust! - (0.524 * 1.5 - 0.0862 * 40 + 5.75)) < 1e-12)
        // Home Assistant's state written as a JSON number.
        let state = try SensorAnswer.homeAssistantState(
            data(#"{"state":0,"attributes":{"unit_of_measurement":"µg/m³"}}"#), pollutant: .pm25)
        #expect(state.value.ultraFineDust == 0)
        for boolean in ["true", "false"] {
            #expect(throws: SensorProblem.implausible) { try SensorAnswer.airGradient(data(#"{"pm02":\#(boolean)}"#)) }
        }
    }

    @Test("Hostile answers: HTML, an array, NaN, 1e308, negative, text, true, 70 KB, deep nesting — each one clear problem")
    func hostile() {
        let cases: [(String, SensorProblem)] = [
            ("<html><body>Login</body></html>", .notJSON),
            (#"[{"pm02":9}]"#, .wrongShape(expected: "one JSON object")),
            (#"{"pm02":NaN}"#, .notJSON),
            (#"{"pm02":1e308,"pm10":1001}"#, .implausible),
            (#"{"pm02":1e400}"#, .notJSON),
            (#"{"pm02":-3}"#, .implausible),
            (#"{"pm02":"12"}"#, .implausible),
            (#"{"pm02":true}"#, .implausible),
            (#"{"temperature":21}"#, .wrongShape(expected: "pm02 or pm10 (AirGradient's /measures/current)")),
            ("{\"pm02\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}", .notJSON),
            (#"{"pm02":9,"pad":""# + String(repeating: "x", count: 70_000) + #""}"#, .tooLarge(limit: SensorAnswer.maxBytes)),
        ]
        for (body, expected) in cases {
            do {
                let values = try SensorAnswer.airGradient(data(body))
                Issue.record("\(body.prefix(40)) gave \(values)")
            } catch {
                #expect(error == expected, "\(body.prefix(40))")
                // No problem repeats the answer's text.
                #expect(!error.description.contains("Login") && !error.description.contains("xxxx"))
            }
        }
    }

    @Test("Home Assistant's times: offsets, fractions, Z; anything else refused")
    func times() {
        #expect(HomeAssistantTime.parse("2024-01-15T03:04:05.123456+09:00")?.timeIntervalSince1970 == 1_705_255_445)
        #expect(HomeAssistantTime.parse("2024-01-15T03:04:05Z")?.timeIntervalSince1970 == 1_705_287_845)
        // A leap second, the last of a UTC day, is the next day's first instant, as RFC 3339 allows; a :60 anywhere else
        // and :61 are no time.
        #expect(HomeAssistantTime.parse("2016-12-31T23:59:60Z")?.timeIntervalSince1970 == 1_483_228_800)
        #expect(HomeAssistantTime.parse("2017-01-01T08:59:60+09:00")?.timeIntervalSince1970 == 1_483_228_800)
        #expect(HomeAssistantTime.isLeapSecond("2017-01-01T08:59:60+09:00"))
        #expect(
            !HomeAssistantTime.isLeapSecond("2017-01-01T09:00:00+09:00") && !HomeAssistantTime.isLeapSecond("2017-01-01T08:59:61+09:00"))
        for bad in [
            "2024-01-15T03:04:05", "2024-02-30T00:00:00Z", "2024-01-15T25:00:00Z", "yesterday", "2024-01-15T03:04:05+0900",
            "2016-12-31T23:59:61Z", "2016-12-31T23:60:00Z", "2016-12-31T22:59:60Z", "2016-12-31T23:59:60+09:00",
        ] {
            #expect(HomeAssistantTime.parse(bad) == nil, "\(bad)")
        }
        #expect(HomeAssistantTime.text(Date(timeIntervalSince1970: 1_705_287_845)) == "2024-01-15T03:04:05+00:00")
    }

    @Test("An indoor CSV: offsets or local time, the last of each minute, implausible counted; a bad line stores nothing and is named")
    func csv() throws {
        let parser = IndoorCSVParser(calendar: seoul, sensor: "old-monitor")
        let now = DemoReplay.now
        let rows = try parser.parse(
            Data(
                """
                time,pm25,pm10
                2026-11-20T10:00:00+09:00,9,20
                2026-11-20 10:01,10,
                2026-11-20 10:01:30,11,21
                2026-11-20T01:02:00Z,-5,22
                1999-12-31 09:59,5,5

                """.utf8), now: now)
        let samples = rows.series.samples
        #expect(samples.count == 3 && rows.sameMinute == 1 && rows.implausible == 1 && rows.datedOutsidePeriod == 1)
        #expect(samples[1].value.ultraFineDust == 11 && samples[1].value.fineDust == 21)
        #expect(samples[2].value.ultraFineDust == nil && samples[2].value.fineDust == 22)
        #expect(samples.map(\.at) == (0...2).map { Scratch.slot(november20, hour: 10).start.addingTimeInterval(Double($0) * 60) })
        // A field of 1,000 characters, within a line's 1 KiB (a longer line is refused by its length, IndoorCSVTests).
        let huge = String(repeating: "9", count: 1_000)
        for (file, expected) in [
            ("when,pm25\n", "line 1: the header must be time,pm25 or time,pm25,pm10"),
            ("time,pm25\n2026-11-20 10:00,9\n2026-11-20 10:01,lots\n", "line 3: pm25 must be a number of µg/m³ (or empty), not \"lots\""),
            ("time,pm25\n2026-11-20 10:00,9,3\n", "line 2: expected 2 fields (time,pm25), found 3"),
            ("time,pm25\nnoon,9\n", "line 2: time must be ISO 8601 with an offset"),
            ("time,pm25\n2026-11-20 10:00,9\n2026-11-20 10:01,\(huge)x\n", "(961 more characters)"),
            ("", "line 1: the file is empty"),
        ] {
            do {
                _ = try parser.parse(Data(file.utf8), now: now)
                Issue.record("\(file.prefix(40)) was accepted")
            } catch {
                #expect(error.description.contains(expected), "\(error.description.prefix(200))")
                #expect(error.description.count < 300)
            }
        }
    }

    /// `value` written with two digits.
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The day of 2024-01-15 (UTC), the window the history tests read.
    let january15 = Date(timeIntervalSince1970: 1_705_276_800)..<Date(timeIntervalSince1970: 1_705_363_200)

    @Test("A history answer of 145,000 states keeps one a minute of the day asked, the last of each; states outside it are not kept")
    func historyFoldedToMinutes() throws {
        let start = Int64(january15.lowerBound.timeIntervalSince1970)
        // States 0.6 s apart over the day and 10 minutes past it (a server that ignores end_time), state k = k % 97.
        var text =
            #"[[{"entity_id":"sensor.study_pm25","state":"0","last_changed":"2024-01-15T00:00:00Z","attributes":{"unit_of_measurement":"µg/m³"}}"#
        let count = 145_000
        for k in 1..<count {
            let (seconds, milliseconds) = (k * 600 / 1000, k * 600 % 1000)
            let time = seconds % 86_400
            let stamp =
                "2024-01-\(15 + seconds / 86_400)T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)).\(milliseconds < 100 ? "0" : "")\(two(milliseconds))Z"
            text += #",{"state":"\#(k % 97)","last_changed":"\#(stamp)"}"#
        }
        text += "]]"
        #expect(text.utf8.count <= SensorAnswer.maxHistoryBytes)
        let read = try SensorAnswer.homeAssistantHistory(data(text), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        #expect(read.states.count == 1440 && read.unknown == 0)
        let lastSeconds: [Int64] = (0..<1440).map { (minute: Int64) -> Int64 in start + minute * 60 + 59 }
        #expect(read.states.map { Int64($0.at.timeIntervalSince1970) } == lastSeconds)
        let lastOfEachMinute: [Double?] = (0..<1440).map { (minute: Int) -> Double? in Double((100 * minute + 99) % 97) }
        #expect(read.states.map(\.value.ultraFineDust) == lastOfEachMinute)
        // A window asked of more than a day is read for its first day only: the bound is the reader's.
        let week = january15.lowerBound..<january15.lowerBound.addingTimeInterval(7 * 86_400)
        #expect(
            try SensorAnswer.homeAssistantHistory(data(text), entity: "sensor.study_pm25", pollutant: .pm25, window: week).states.count
                == 1440)
    }

    @Test("A history: only the entity asked is read, a unit must have been seen, none at all is a problem")
    func historyEntityAndUnit() throws {
        func history(_ lists: String) -> Data { data("[" + lists + "]") }
        let kitchen =
            #"[{"entity_id":"sensor.kitchen_pm25","state":"90","attributes":{"unit_of_measurement":"µg/m³"},"last_changed":"2024-01-15T00:01:00Z"}]"#
        let study =
            #"[{"entity_id":"sensor.study_pm25","state":"7","attributes":{"unit_of_measurement":"µg/m³"},"last_changed":"2024-01-15T00:02:00Z"}]"#
        let read = try SensorAnswer.homeAssistantHistory(
            history(kitchen + "," + study), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        #expect(read.states.map(\.value.ultraFineDust) == [7])
        #expect(throws: SensorProblem.wrongShape(expected: "the states of the entity asked (Home Assistant's /api/history)")) {
            try SensorAnswer.homeAssistantHistory(history(kitchen), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        }
        // No states at all is no history, not a problem.
        for empty in ["[]", "[[]]"] {
            #expect(
                try SensorAnswer.homeAssistantHistory(data(empty), entity: "sensor.study_pm25", pollutant: .pm25, window: january15).states
                    .isEmpty)
        }
        // States before the unit are unknown; a history without any unit is the sensor's problem.
        let late =
            #"[[{"entity_id":"sensor.study_pm25","state":"30","last_changed":"2024-01-15T00:01:00Z"},{"state":"20","attributes":{"unit_of_measurement":"µg/m³"},"last_changed":"2024-01-15T00:02:00Z"}]]"#
        let lateRead = try SensorAnswer.homeAssistantHistory(data(late), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        #expect(lateRead.states.map(\.value.ultraFineDust) == [20] && lateRead.unknown == 1)
        let none = #"[[{"entity_id":"sensor.study_pm25","state":"30","last_changed":"2024-01-15T00:01:00Z"}]]"#
        #expect(throws: SensorProblem.noUnit) {
            try SensorAnswer.homeAssistantHistory(data(none), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        }
        #expect(throws: SensorProblem.noUnit) {
            try SensorAnswer.homeAssistantState(data(#"{"state":"12","attributes":{"friendly_name":"Study"}}"#), pollutant: .pm25)
        }
        #expect(throws: SensorProblem.noUnit) { try SensorAnswer.homeAssistantState(data(#"{"state":"12"}"#), pollutant: .pm25) }
        #expect(SensorProblem.noUnit.description.hasPrefix("has no unit of measurement"))
        // Not JSON, and JSON of another shape, as before.
        #expect(throws: SensorProblem.notJSON) {
            try SensorAnswer.homeAssistantHistory(
                data("[[{\"state\":NaN}]]"), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        }
        #expect(throws: SensorProblem.wrongShape(expected: "a list of state lists (Home Assistant's /api/history)")) {
            try SensorAnswer.homeAssistantHistory(data(#"{"state":"1"}"#), entity: "sensor.study_pm25", pollutant: .pm25, window: january15)
        }
    }
}
