import DustKit
import Foundation

// What a monitor's answer says (docs/REFERENCE.md §21): each kind's documented JSON read into a
// sample, or the one problem that stops it. Every answer is hostile input: the body is at most
// `SensorAnswer.maxBytes`, JSON of the documented shape, numbers finite and plausible; no text of
// the answer reaches a log, a terminal or the database (a problem's words are FineDust's own).

/// The values one answer gave, before they are stored as a sample.
public struct SensorValues: Sendable, Hashable {
    /// µg/m³ per pollutant; nil where the answer had no plausible value.
    public var value: DustPair<Double?>
    /// Values the answer had but that were implausible (negative, not finite, above 1,000) or
    /// disagreeing channels: counted, never stored.
    public var unknown: Int

    public init(value: DustPair<Double?>, unknown: Int = 0) {
        self.value = value
        self.unknown = unknown
    }

    /// Whether the answer gave any value to store.
    public var hasValue: Bool { value.fineDust != nil || value.ultraFineDust != nil }
}

/// Why a sensor gave no sample: one sentence of FineDust's own words with the fix, the same each
/// minute the problem lasts, so dustd logs it once when it starts and once when it ends.
public enum SensorProblem: Error, Sendable, Hashable, CustomStringConvertible {
    case unreachable
    case timeout(seconds: Int)
    case tooLarge(limit: Int)
    case httpStatus(Int)
    case redirect(Int)
    case notJSON
    case wrongShape(expected: String)
    case tokenRefused
    case noToken
    /// The token file or credential is set but cannot be used: the loader's sentence (it names the file, never the token).
    case tokenUnusable(String)
    case unavailable
    case wrongUnit(String)
    case implausible
    case channelsDisagree

    public var description: String {
        switch self {
        case .unreachable:
            "cannot be reached; check that it is switched on and on the network, and its url in indoor.sensors"
        case .timeout(let seconds):
            "did not answer within \(seconds) s; check that it is switched on and its url in indoor.sensors"
        case .tooLarge(let limit):
            "answered more than \(limit / 1024) KiB, far beyond a monitor's reading; check that its url points at the monitor"
        case .httpStatus(let status):
            "answered HTTP \(status); check its url and kind in indoor.sensors"
        case .redirect(let status):
            "answered a redirect (HTTP \(status)), which FineDust does not follow; give the monitor's own address as its url"
        case .notJSON:
            "answered something that is not JSON (a web page?); check that its url points at the monitor's local API"
        case .wrongShape(let expected):
            "answered JSON without \(expected); check its kind in indoor.sensors"
        case .tokenRefused:
            "Home Assistant refused the token: make a long-lived access token in your profile"
        case .noToken:
            "has no Home Assistant token: put one in the file indoor.homeAssistantTokenFile names, or the credential homeassistant-token"
        case .tokenUnusable(let reason):
            "has no usable Home Assistant token: \(reason)"
        case .unavailable:
            "is unavailable in Home Assistant; check the device in Home Assistant"
        case .wrongUnit(let unit):
            "reports in \(unit), not µg/m³; choose an entity that measures PM in µg/m³"
        case .implausible:
            "gave no plausible value (negative, not a number, or above 1,000 µg/m³)"
        case .channelsDisagree:
            "has two laser channels that disagree; one may be dirty or failing (PurpleAir's own check)"
        }
    }
}

public enum SensorAnswer {
    /// The largest answer read from a monitor: its reading is a few hundred bytes.
    public static let maxBytes = 64 * 1024
    /// The largest Home Assistant history read at once (10 days of a sensor that changes each
    /// minute is about 1.5 MB minimal).
    public static let maxHistoryBytes = 8 * 1024 * 1024

    /// The problem an HTTP status is, before the body is read; nil for 200.
    public static func problem(status: Int, homeAssistant: Bool) -> SensorProblem? {
        switch status {
        case 200: nil
        case 300...399: .redirect(status)
        case 401,
            403 where homeAssistant:
            .tokenRefused
        default: .httpStatus(status)
        }
    }

    /// AirGradient's `GET /measures/current` (firmware ≥ 3.0.10): `pm02Compensated` before `pm02`, and `pm10`.
    public static func airGradient(_ body: Data) throws(SensorProblem) -> SensorValues {
        let object = try jsonObject(body)
        let hasAny = ["pm02Compensated", "pm02", "pm10"].contains { object[$0] != nil }
        guard hasAny else { throw .wrongShape(expected: "pm02 or pm10 (AirGradient's /measures/current)") }
        var unknown = 0
        func value(_ keys: [String]) -> Double? {
            for key in keys {
                guard let raw = object[key], !(raw is NSNull) else { continue }
                if let value = IndoorSample.plausible(number(raw)) { return value }
                unknown += 1
            }
            return nil
        }
        let pair = DustPair(fineDust: value(["pm10"]), ultraFineDust: value(["pm02Compensated", "pm02"]))
        return try checked(SensorValues(value: pair, unknown: unknown))
    }

    /// PurpleAir's local `GET /json`: channel A (`pm2_5_atm`, `pm10_0_atm`) and, on dual-laser sensors,
    /// B (`…_b`); their mean unless they disagree. `epa2021`: PM2.5 from the channels' `pm2_5_cf_1` and
    /// `current_humidity`.
    public static func purpleAir(_ body: Data, epa2021: Bool) throws(SensorProblem) -> SensorValues {
        let object = try jsonObject(body)
        guard object["pm2_5_atm"] != nil || object["pm10_0_atm"] != nil else {
            throw .wrongShape(expected: "pm2_5_atm (PurpleAir's local /json)")
        }
        var unknown = 0
        var disagreed = false
        func channels(_ key: String) -> Double? {
            let a = object[key].flatMap(number)
            let b = object[key + "_b"].flatMap(number)
            let agreed = PurpleAirChannels.agreed(a, b)
            if agreed.disagreed { disagreed = true }
            if agreed.value == nil && (a != nil || b != nil) { unknown += 1 }
            return agreed.value
        }
        var pm25 = channels("pm2_5_atm")
        let pm10 = channels("pm10_0_atm")
        if epa2021, pm25 != nil {
            let cf1 = channels("pm2_5_cf_1")
            if let cf1, let humidity = object["current_humidity"].flatMap(number), humidity.isFinite, (0...100).contains(humidity) {
                pm25 = IndoorSample.plausible(PurpleAirChannels.epa2021(cf1: cf1, humidity: humidity))
            } else {
                // Without cf1 or humidity the correction cannot be made: no corrected value rather than an uncorrected one.
                pm25 = nil
                unknown += 1
            }
        }
        let values = SensorValues(value: DustPair(fineDust: pm10, ultraFineDust: pm25), unknown: unknown)
        if !values.hasValue && disagreed { throw .channelsDisagree }
        return try checked(values)
    }

    /// Home Assistant's `GET /api/states/ENTITY`: `{"state": "12.5", "attributes": {"unit_of_measurement": "µg/m³"}}`.
    public static func homeAssistantState(_ body: Data, pollutant: Pollutant) throws(SensorProblem) -> SensorValues {
        let object = try jsonObject(body)
        guard let state = object["state"] else { throw .wrongShape(expected: "state (Home Assistant's /api/states)") }
        let attributes = object["attributes"] as? [String: Any]
        return try stateValues(state: state, unit: attributes?["unit_of_measurement"], pollutant: pollutant)
    }

    /// Home Assistant's `GET /api/history/period/START?filter_entity_id=…&minimal_response`: one list
    /// per entity, of states each with `last_changed`; the first carries the attributes (the unit),
    /// the others only `state` and `last_changed`. Returns each usable state with its time, in order,
    /// and how many were unknown; a unit other than µg/m³ is the whole answer's problem.
    public static func homeAssistantHistory(
        _ body: Data, pollutant: Pollutant
    ) throws(SensorProblem) -> (states: [(at: Date, value: DustPair<Double?>)], unknown: Int) {
        guard body.count <= maxHistoryBytes else { throw .tooLarge(limit: maxHistoryBytes) }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: body)
        } catch {
            throw .notJSON
        }
        guard let lists = parsed as? [Any] else { throw .wrongShape(expected: "a list of state lists (Home Assistant's /api/history)") }
        guard let first = lists.first else { return ([], 0) }
        guard let states = first as? [Any] else { throw .wrongShape(expected: "a list of state lists (Home Assistant's /api/history)") }
        var unit: Any?
        var result: [(at: Date, value: DustPair<Double?>)] = []
        var unknown = 0
        for entry in states {
            guard let state = entry as? [String: Any] else { throw .wrongShape(expected: "states with last_changed") }
            if let attributes = state["attributes"] as? [String: Any], let written = attributes["unit_of_measurement"] { unit = written }
            guard let changed = (state["last_changed"] ?? state["last_updated"]) as? String, let at = HomeAssistantTime.parse(changed)
            else {
                throw .wrongShape(expected: "states with last_changed")
            }
            do throws(SensorProblem) {
                let values = try stateValues(state: state["state"] as Any, unit: unit, pollutant: pollutant)
                result.append((at, values.value))
            } catch {
                switch error {
                case .wrongUnit: throw error
                default: unknown += 1
                }
            }
        }
        return (result, unknown)
    }

    private static func stateValues(state: Any, unit: Any?, pollutant: Pollutant) throws(SensorProblem) -> SensorValues {
        if let unit {
            guard let text = unit as? String else { throw .wrongUnit("a unit that is not text") }
            // µg/m³ with MICRO SIGN (U+00B5) or GREEK SMALL LETTER MU (U+03BC), as integrations write it.
            guard text == "µg/m³" || text == "μg/m³" else { throw .wrongUnit(shownUnit(text)) }
        }
        if let text = state as? String, ["unavailable", "unknown"].contains(text) { throw .unavailable }
        let raw: Double? =
            if let text = state as? String { DecimalText.parse(text) } else { number(state) }
        guard let raw else { throw .wrongShape(expected: "a number as its state") }
        guard let value = IndoorSample.plausible(raw) else { throw .implausible }
        var pair = DustPair<Double?>(repeating: nil)
        pair[pollutant] = value
        return SensorValues(value: pair)
    }

    /// A unit as a status line may name it: at most 16 printable characters of the answer.
    static func shownUnit(_ text: String) -> String {
        "\"\(TerminalSafeText.shown(text, characters: 16))\""
    }

    private static func checked(_ values: SensorValues) throws(SensorProblem) -> SensorValues {
        guard values.hasValue else { throw .implausible }
        return values
    }

    /// The answer as a JSON object: not JSON, or JSON of another shape (an array), is a problem.
    private static func jsonObject(_ body: Data) throws(SensorProblem) -> [String: Any] {
        guard body.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: body)
        } catch {
            throw .notJSON
        }
        guard let object = parsed as? [String: Any] else { throw .wrongShape(expected: "one JSON object") }
        return object
    }

    /// A JSON number as a Double (a Boolean is not one); nil for anything else.
    private static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        // CFBoolean bridges to NSNumber: tell it apart by its type encoding.
        if String(cString: number.objCType) == "c" { return nil }
        return number.doubleValue
    }
}

/// Home Assistant's times: ISO 8601 with an offset and optional fractional seconds
/// (`2024-01-15T03:04:05.123456+00:00`).
public enum HomeAssistantTime {
    /// `instant` as Home Assistant's API takes it in a path: `2024-01-15T03:04:05+00:00`.
    public static func text(_ instant: Date) -> String {
        DayCalendar(timeZone: .gmt).iso8601(instant)
    }

    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20,
            bytes[13] == 0x3A, bytes[16] == 0x3A
        else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(5..<7), let day = digits(8..<10), let hour = digits(11..<13),
            let minute = digits(14..<16), let second = digits(17..<19), LocalDate.isValid(year: year, month: month, day: day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == 0x5A || bytes[index] == 0x7A {
            index += 1
        } else if index + 6 == bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D, bytes[index + 3] == 0x3A,
            let hours = digits((index + 1)..<(index + 3)), let minutes = digits((index + 4)..<(index + 6)), hours < 24, minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = LocalDate(year: year, month: month, day: day).daysSinceEpoch
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second - offset))
    }
}
