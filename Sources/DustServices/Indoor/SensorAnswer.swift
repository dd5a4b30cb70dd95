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
    /// An `https` url whose server's certificate this machine does not trust, or that speaks no TLS.
    case tls
    /// Something answered at the url, but not in HTTP.
    case notHTTP
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
    /// A Home Assistant entity that states no unit: its values may be of any unit, so none is stored.
    case noUnit
    case implausible
    case channelsDisagree

    public var description: String {
        switch self {
        case .unreachable:
            "cannot be reached; check that it is switched on and on the network, and its url in indoor.sensors"
        case .tls:
            "answered, but its TLS could not be trusted here (a self-signed certificate, or no TLS at that port); give its http:// address in indoor.sensors, or a certificate this machine trusts"
        case .notHTTP:
            "answered, but not in HTTP (another kind of server at that address and port); check its url in indoor.sensors"
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
            "has its token refused by Home Assistant: make a long-lived access token in your profile"
        case .noToken:
            "has no Home Assistant token: put one in the file indoor.homeAssistantTokenFile names, or the credential homeassistant-token"
        case .tokenUnusable(let reason):
            "has no usable Home Assistant token: \(reason)"
        case .unavailable:
            "is unavailable in Home Assistant; check the device in Home Assistant"
        case .wrongUnit(let unit):
            "reports in \(unit), not µg/m³; choose an entity that measures PM in µg/m³"
        case .noUnit:
            "has no unit of measurement in Home Assistant, and FineDust needs µg/m³; choose an entity that measures PM in µg/m³"
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
    /// The longest window one history answer is read for: a backfill asks a day at a time, and what an
    /// answer becomes in memory is at most one state a minute of its window (1,441 for a day), however
    /// many states it held and whatever period it covered (docs/RELIABILITY.md, "Indoor monitors").
    public static let historyWindowSeconds: TimeInterval = 86_400

    /// The problem an HTTP status is, before the body is read; nil for 200.
    public static func problem(status: Int, homeAssistant: Bool) -> SensorProblem? {
        switch status {
        case 200: nil
        case 300...399: .redirect(status)
        // Only Home Assistant's refusal is of the token: a monitor's own 401 (`WWW-Authenticate: Basic`) is its
        // status. (`case 401, 403 where homeAssistant` read every 401 as the token's: a `where` binds its last pattern.)
        case 401 where homeAssistant, 403 where homeAssistant:
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
    /// per entity, of states each with `last_changed`; the first carries the entity and the attributes
    /// (the unit), the others only `state` and `last_changed`.
    ///
    /// Only `entity`'s list is read (an answer of lists of other entities only is the wrong shape, an
    /// answer of no states none), and only what lies in `window` (at most `historyWindowSeconds` of it)
    /// is kept, folded to the last usable state of each minute as the answer is decoded: a server that
    /// ignores `end_time` and answers 140,000 states each time gives each window at most its own 1,441
    /// (docs/REFERENCE.md §21). Decoded into small values, never a tree of Foundation objects (an 8 MiB
    /// answer made one of about 450 MB). No state counts before a unit has been seen; a unit other than
    /// µg/m³, or none in the whole answer, is the whole answer's problem. Returns the states kept, in
    /// time order, and how many in the window were unknown.
    public static func homeAssistantHistory(
        _ body: Data, entity: String, pollutant: Pollutant, window: Range<Date>
    ) throws(SensorProblem) -> (states: [(at: Date, value: DustPair<Double?>)], unknown: Int) {
        guard body.count <= maxHistoryBytes else { throw .tooLarge(limit: maxHistoryBytes) }
        let decoder = JSONDecoder()
        let bounded = window.lowerBound..<min(window.upperBound, window.lowerBound.addingTimeInterval(historyWindowSeconds))
        decoder.userInfo[HistoryFold.requestKey] = HistoryFold.Request(entity: entity, pollutant: pollutant, window: bounded)
        let fold: HistoryFold
        do {
            fold = try decoder.decode(HistoryFold.self, from: body)
        } catch let problem as SensorProblem {
            throw problem
        } catch DecodingError.dataCorrupted {
            throw .notJSON
        } catch {
            throw .wrongShape(expected: HistoryFold.listsExpected)
        }
        let states = fold.kept.keys.sorted().compactMap { minute in
            fold.kept[minute].map { (at: $0.at, value: $0.value) }
        }
        return (states, fold.unknown)
    }

    private static func stateValues(state: Any, unit: Any?, pollutant: Pollutant) throws(SensorProblem) -> SensorValues {
        try checkUnit(unit.map { ($0 as? String).map(HistoryFold.Unit.text) ?? .notText })
        if let text = state as? String { return try stateValues(text: text, pollutant: pollutant) }
        return try stateValues(number: number(state), pollutant: pollutant)
    }

    /// The unit rule of docs/REFERENCE.md §21, in one place for a state and a history: µg/m³ with MICRO
    /// SIGN (U+00B5) or GREEK SMALL LETTER MU (U+03BC), as integrations write it; no unit is a problem,
    /// not µg/m³ by default (an entity without one may count anything).
    static func checkUnit(_ unit: HistoryFold.Unit?) throws(SensorProblem) {
        switch unit {
        case nil: throw .noUnit
        case .notText: throw .wrongUnit("a unit that is not text")
        case .text(let text): guard text == "µg/m³" || text == "μg/m³" else { throw .wrongUnit(shownUnit(text)) }
        }
    }

    /// A state written as text (Home Assistant writes every state so).
    static func stateValues(text: String, pollutant: Pollutant) throws(SensorProblem) -> SensorValues {
        if ["unavailable", "unknown"].contains(text) { throw .unavailable }
        return try stateValues(number: DecimalText.parse(text), pollutant: pollutant)
    }

    /// A state's number: nil (not a number) is the wrong shape, an implausible one unknown.
    static func stateValues(number raw: Double?, pollutant: Pollutant) throws(SensorProblem) -> SensorValues {
        guard let raw else { throw .wrongShape(expected: "a number as its state") }
        guard let value = IndoorSample.plausible(raw) else { throw .implausible }
        var pair = DustPair<Double?>(repeating: nil)
        pair[pollutant] = value
        return SensorValues(value: pair)
    }

    /// A unit as a status line may name it: one Home Assistant's own sensors report in, quoted; any other
    /// is not quoted at all. The text is the server's, and a server that holds the token (it is sent
    /// there) could spell it in units, a few characters or full-width letters at a time, into the log,
    /// the database and the dashboard.
    static func shownUnit(_ text: String) -> String {
        // The list's own spelling, found byte for byte: a `Set<String>` matches by canonical equivalence, and
        // U+212A KELVIN SIGN was quoted as the server wrote it for "K".
        let own = knownUnits.first { $0.utf8.elementsEqual(text.utf8) }
        return own.map { "\"\($0)\"" } ?? "another unit"
    }

    /// The units of measurement Home Assistant's sensor device classes use, and the spellings of µg/m³
    /// integrations write by hand (`ug/m3`): what a wrong entity plausibly reports in.
    static let knownUnits: Set<String> = [
        "ppm", "ppb", "mg/m³", "mg/m3", "µg/m3", "μg/m3", "ug/m3", "ug/m³", "µg/ft³", "μg/ft³", "μS/cm", "p/m³", "p/cm³", "particles/cm³",
        "%", "°C", "°F", "K",
        "Pa", "hPa", "kPa", "mbar", "bar", "mmHg", "inHg", "psi", "lx", "dB", "dBA", "dBm", "W", "kW", "Wh", "kWh", "V", "mV", "A", "mA",
        "s", "min", "h", "d", "m", "cm", "mm", "km", "g", "kg", "L", "mL", "m³", "AQI", "CPM", "µS/cm",
    ]

    private static func checked(_ values: SensorValues) throws(SensorProblem) -> SensorValues {
        guard values.hasValue else { throw .implausible }
        return values
    }

    /// What one history answer becomes in memory while it is decoded (`homeAssistantHistory`): the
    /// entity's states read one at a time, each folded into `kept` (one a minute of the window) or
    /// counted, so no list of the answer's states is ever built.
    struct HistoryFold: Decodable {
        struct Request: Sendable {
            var entity: String
            var pollutant: Pollutant
            var window: Range<Date>
        }

        /// A state's `attributes.unit_of_measurement`, as written.
        enum Unit: Sendable, Hashable {
            case text(String)
            case notText
        }

        static let requestKey = CodingUserInfoKey(rawValue: "FineDust.HomeAssistantHistory")!
        static let listsExpected = "a list of state lists (Home Assistant's /api/history)"

        /// The newest usable state of each minute of the window, by the minute's seconds since 1970.
        var kept: [Int64: (at: Date, value: DustPair<Double?>)] = [:]
        var unknown = 0

        init(from decoder: any Decoder) throws {
            guard let request = decoder.userInfo[Self.requestKey] as? Request else {
                throw SensorProblem.wrongShape(expected: Self.listsExpected)
            }
            var lists = try decoder.unkeyedContainer()
            var sawStates = false
            while !lists.isAtEnd {
                var states = try lists.nestedUnkeyedContainer()
                guard !states.isAtEnd else { continue }
                sawStates = true
                // Each list names its entity in its first state only: another entity's list is passed over unread.
                let first = try states.decode(State.self)
                guard first.entity == request.entity else { continue }
                var unit: Unit?
                try fold(first, unit: &unit, request)
                while !states.isAtEnd { try fold(try states.decode(State.self), unit: &unit, request) }
                if unit == nil { throw SensorProblem.noUnit }
                return
            }
            if sawStates { throw SensorProblem.wrongShape(expected: "the states of the entity asked (Home Assistant's /api/history)") }
        }

        private mutating func fold(_ state: State, unit: inout Unit?, _ request: Request) throws {
            if let written = state.unit {
                try SensorAnswer.checkUnit(written)
                unit = written
            }
            guard let changed = state.changed, let at = HomeAssistantTime.parse(changed) else {
                throw SensorProblem.wrongShape(expected: "states with last_changed")
            }
            guard request.window.contains(at) else { return }
            // Before a unit has been seen a value could be of any unit: unknown, not stored.
            guard unit != nil else {
                unknown += 1
                return
            }
            let value: DustPair<Double?>
            do throws(SensorProblem) {
                let values: SensorValues =
                    switch state.state {
                    case .text(let text): try SensorAnswer.stateValues(text: text, pollutant: request.pollutant)
                    case .number(let number): try SensorAnswer.stateValues(number: number, pollutant: request.pollutant)
                    case .other: try SensorAnswer.stateValues(number: nil, pollutant: request.pollutant)
                    }
                value = values.value
            } catch .unavailable {
                // The device went away: a state of no value, which ends the hold of the value before it
                // (it held on for up to an hour of a device Home Assistant said was gone).
                value = DustPair(repeating: nil)
            } catch {
                unknown += 1
                return
            }
            let minute = Int64(IndoorSample.minute(containing: at).timeIntervalSince1970)
            if let earlier = kept[minute], earlier.at > at { return }
            kept[minute] = (at, value)
        }

        /// One state of a history: only the fields FineDust reads.
        struct State: Decodable {
            enum Value {
                case text(String)
                case number(Double)
                case other
            }

            var entity: String?
            var state: Value
            var changed: String?
            var unit: Unit?

            private enum Keys: String, CodingKey {
                case entity = "entity_id"
                case state
                case lastChanged = "last_changed"
                case lastUpdated = "last_updated"
                case attributes
            }

            private enum AttributeKeys: String, CodingKey {
                case unit = "unit_of_measurement"
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Keys.self)
                entity = container.contains(.entity) ? try? container.decode(String.self, forKey: .entity) : nil
                state =
                    if let text = try? container.decode(String.self, forKey: .state) {
                        .text(text)
                    } else if (try? container.decode(Bool.self, forKey: .state)) != nil {
                        .other
                    } else if let number = try? container.decode(Double.self, forKey: .state) {
                        .number(number)
                    } else {
                        .other
                    }
                // `last_changed`, else `last_updated`; one that is not text is no time.
                let key: Keys = container.contains(.lastChanged) ? .lastChanged : .lastUpdated
                changed = try? container.decodeIfPresent(String.self, forKey: key)
                // Asked only when present: most states of a minimal answer have no attributes, and a refused decode costs an error.
                if container.contains(.attributes),
                    let attributes = try? container.nestedContainer(keyedBy: AttributeKeys.self, forKey: .attributes),
                    attributes.contains(.unit)
                {
                    unit = (try? attributes.decode(String.self, forKey: .unit)).map(Unit.text) ?? .notText
                }
            }
        }
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
    ///
    /// Told apart by the type encoding alone: on Linux a parsed `0` or `1` (and `1.0`, `-0`) also
    /// answers `is Bool`, so that test dropped a purifier's clean-air reading of 0 or 1 µg/m³ as
    /// implausible (docs/RELIABILITY.md, "seventeenth session"); `true` and `false` are `c`.
    static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number.doubleValue
    }
}

/// Home Assistant's times: ISO 8601 with an offset and optional fractional seconds
/// (`2024-01-15T03:04:05.123456+00:00`).
///
/// `parse` is the strict reader the indoor CSV and the activity CSV's ISO form share: a real
/// calendar date (no 30 February), hours 00–23, minutes and seconds 00–59 (60 only as a leap second, the
/// last of a UTC day: `LeapSecond`), then `Z` or an offset `±HH:MM` within ±14:00 (every zone on Earth),
/// and nothing after it.
public enum HomeAssistantTime {
    /// The largest offset from UTC any zone uses (Kiribati's +14:00), in minutes.
    public static let maxOffsetMinutes = 14 * 60

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
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            let digitsStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { return nil }
        }
        var offset = 0
        if index < bytes.count, bytes[index] == 0x5A || bytes[index] == 0x7A {
            index += 1
        } else if index + 6 == bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D, bytes[index + 3] == 0x3A,
            let hours = digits((index + 1)..<(index + 3)), let minutes = digits((index + 4)..<(index + 6)), minutes < 60,
            hours * 60 + minutes <= maxOffsetMinutes
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = LocalDate(year: year, month: month, day: day).daysSinceEpoch
        let instant = Int64(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
        guard LeapSecond.admits(second: second, instant: instant) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(instant))
    }

    /// Whether `text`, a time `parse` has read, names a leap second (`…:59:60`, the only `:60` it reads): an
    /// instant that ends an hour rather than begins one, which a row naming the hour that starts then must
    /// not be. Its seconds field alone, not a second parse; false for a shorter text (the local `HH:mm`).
    public static func isLeapSecond(_ text: String) -> Bool {
        let seconds = text.utf8.dropFirst(17).prefix(2)
        return seconds.elementsEqual("60".utf8)
    }
}
