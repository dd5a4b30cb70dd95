import DustKit
import Foundation
import Yams

// Shapes of FineDust's own values; the general ones (text, numbers, lists, records) are in ValueShape.swift.

/// `intake.model`.
enum IntakeModelName: String, Sendable, CaseIterable {
    case ventilation, boostcamp
}

extension ValueShape where Value == IntakeModelName {
    /// `ventilation` or `boostcamp`.
    static var intakeModel: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let name = IntakeModelName(rawValue: text.lowercased()) else {
                throw ValueProblem("must be ventilation or boostcamp, not \(ValueProblem.quoted(text))")
            }
            return name
        }
    }
}

/// A schedule entry's `at` (docs/REFERENCE.md §21).
enum SchedulePlace: String, Sendable, CaseIterable {
    case home, away
}

extension ValueShape where Value == ScheduleEntry {
    /// `{from, to, activity, outdoors, at}`: local hours, an activity level, the fraction of the
    /// time spent outdoors (0 when left out), and `home` (the default) or `away`.
    static var scheduleEntry: ValueShape {
        .record(["from", "to", "activity", "outdoors", "at"]) { fields throws(ValueProblem) in
            let from = try fields.required("from", .hour(in: 0...23))
            let to = try fields.required("to", .hour(in: 1...24))
            guard from < to else {
                throw ValueProblem("must be later than from (\(from))").inside(".to")
            }
            let place: SchedulePlace = try fields.optional("at", .choice) ?? .home
            return ScheduleEntry(
                fromHour: from, toHour: to, activity: try fields.required("activity", .choice),
                outdoors: try fields.optional("outdoors", .number(in: 0...1)) ?? 0, atHome: place == .home)
        }
    }
}

extension ValueShape where Value == String {
    /// `host:port` to serve on, or `off` (stored as empty) to serve nothing.
    static var listenAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            if ["off", "none", "disabled"].contains(text.lowercased()) { return "" }
            guard HTTPSettings.address(text) != nil else {
                throw ValueProblem("must be host:port such as 127.0.0.1:8478 (or off), not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }
}

extension ValueShape where Value == String {
    /// A DNS name (`raspberrypi.lan`, `dust.example.org`): letters, digits and `-` in labels of at most
    /// 63 characters, separated by dots, at most 253 in all.
    static var hostName: ValueShape {
        .scalar { text throws(ValueProblem) in
            var name = text.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            let valid =
                !name.isEmpty && name.utf8.count <= 253
                && labels.allSatisfy { label in
                    (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                        && label.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
                }
            guard valid else {
                throw ValueProblem("must be a host name such as raspberrypi.lan or dust.example.org, not \(ValueProblem.quoted(text))")
            }
            return name
        }
    }

    /// An IPv4 or IPv6 address (`127.0.0.1`, `::1`), as written.
    static var ipAddress: ValueShape {
        .scalar { text throws(ValueProblem) in
            var v4 = in_addr()
            var v6 = in6_addr()
            guard inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1 else {
                throw ValueProblem("must be an IP address such as 127.0.0.1 or ::1, not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }
}

extension ValueShape where Value == PostgresLocation {
    /// `storage.url`: `postgresql://USER@HOST:PORT/DB` without a password (docs/REFERENCE.md §20).
    static var postgresURL: ValueShape { .scalar { text throws(ValueProblem) in try PostgresLocation.parse(url: text) } }
}

extension ValueShape where Value == Bool {
    /// `true`/`false` (also `yes`/`no`, `on`/`off`), in any letter case.
    static var boolean: ValueShape {
        .scalar { text throws(ValueProblem) in
            switch text.lowercased() {
            case "true", "yes", "on": return true
            case "false", "no", "off": return false
            default: throw ValueProblem("must be true or false, not \(ValueProblem.quoted(text))")
            }
        }
    }
}

extension ValueShape where Value == ForecastRegion {
    /// One of the 19 forecast regions as AirKorea names them (`서울`, `경기북부`, `영동`, …; also `강원영동`).
    static var forecastRegion: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let region = ForecastRegion(name: text) else {
                throw ValueProblem(
                    "must be one of the forecast regions \(ForecastRegion.allCases.map(\.rawValue).joined(separator: ", ")), not \(ValueProblem.quoted(text))"
                )
            }
            return region
        }
    }
}

extension ValueShape where Value == String {
    /// One of the 17 시도 as AirKorea writes them (`서울`, `경기`, …), for `advisories.district`.
    static var advisoryDistrict: ValueShape {
        .scalar { text throws(ValueProblem) in
            let district = text.trimmingWhiteSpace
            // The listed spelling (composed), whichever Unicode form the file wrote it in (`NameForm`).
            guard let listed = AdvisoryRegion.districts.first(where: { $0 == district }) else {
                let choices = AdvisoryRegion.districts.joined(separator: ", ")
                throw ValueProblem(
                    "must be one of the districts (시도) as AirKorea writes them: \(choices), not \(ValueProblem.quoted(text))")
            }
            return listed
        }
    }
}

extension ValueShape where Value == AlertRule {
    /// `{when: pm25.grade >= 3}` with an optional `person: NAME` (docs/REFERENCE.md §18), or the
    /// condition alone. Whether NAME is a configured person is checked with `people`.
    static var alertRule: ValueShape {
        let condition = ValueShape.scalar { text throws(ValueProblem) in
            do throws(AlertRuleError) {
                return try AlertRule(parsing: text)
            } catch {
                throw ValueProblem(error.description)
            }
        }
        let record = ValueShape.record(["when", "person"]) { fields throws(ValueProblem) in
            var rule = try fields.required("when", condition)
            rule.person = try fields.optional("person", .text).map(NameForm.composed)
            return rule
        }
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                if case .mapping = node { return try record.fromFile(node) }
                return try condition.fromFile(node)
            }, fromEnvironment: nil)
    }
}

extension ValueShape where Value == AlertSinkSetting {
    /// `{ntfy: URL, tokenFile: PATH}`, `{webhook: URL}` or `{command: [argv…], timeoutSeconds: N}`.
    static var alertSink: ValueShape {
        .record(["ntfy", "webhook", "command", "tokenFile", "timeoutSeconds"]) { fields throws(ValueProblem) in
            let kinds = ["ntfy", "webhook", "command"].filter { fields.nodes[$0] != nil }
            guard kinds.count == 1 else {
                throw ValueProblem("must name exactly one of ntfy, webhook or command")
            }
            if kinds != ["ntfy"], fields.nodes["tokenFile"] != nil {
                throw ValueProblem("has a tokenFile, which only an ntfy sink uses")
            }
            if kinds != ["command"], fields.nodes["timeoutSeconds"] != nil {
                throw ValueProblem("has a timeoutSeconds, which only a command sink uses")
            }
            switch kinds[0] {
            case "ntfy":
                return .ntfy(url: try fields.required("ntfy", .secretWebAddress), tokenFile: try fields.optional("tokenFile", .text))
            case "webhook":
                return .webhook(url: try fields.required("webhook", .secretWebAddress))
            default:
                let arguments = try fields.required("command", .list(of: .text))
                guard let program = arguments.first, program.hasPrefix("/") else {
                    throw ValueProblem("must start with the program's absolute path (it runs without a shell or PATH)").inside(".command")
                }
                return .command(arguments: arguments, timeoutSeconds: try fields.optional("timeoutSeconds", .number(in: 1...300)) ?? 10)
            }
        }
    }
}

extension ValueShape where Value == QuietHours {
    /// `{from: 22, to: 7}`: local hours, wrapping midnight.
    /// `quietHours:` with nothing after it is the default, none.
    static var quietHours: ValueShape {
        let record = ValueShape.record(["from", "to"]) { fields throws(ValueProblem) in
            QuietHours(fromHour: try fields.required("from", .hour(in: 0...23)), toHour: try fields.required("to", .hour(in: 0...24)))
        }
        return ValueShape(
            fromFile: { node throws(ValueProblem) in
                if case .scalar(let scalar) = node, scalar.text == nil { return nil }
                return try record.fromFile(node)
            }, fromEnvironment: nil)
    }
}

/// One entry of `people:` as written; what it leaves out comes from `station.*` and `intake.*`
/// when the settings are put together (docs/REFERENCE.md §18).
struct PersonEntry: Sendable, Hashable {
    var name: String
    var born: BirthMonth?
    var sex: Sex?
    var station: String?
    var infiltration: Double?
    var schedule: [ScheduleEntry]?
    var restingHeartRate: Double?
    var home: GeoPoint?
    /// `tokenFile`: the file holding this person's own web token (docs/REFERENCE.md §13).
    var tokenFile: String?
}

extension ValueShape where Value == PersonEntry {
    /// `{name, born, sex, station, infiltration, schedule, restingHeartRate, home, tokenFile}`; a problem in a field
    /// names the person, so `people[1].born (민지)` points at the right line of a long list.
    static var person: ValueShape {
        .record(["name", "born", "sex", "station", "infiltration", "schedule", "restingHeartRate", "home", "tokenFile"]) {
            fields throws(ValueProblem) in
            let name = try fields.required("name", .personName)
            do throws(ValueProblem) {
                return PersonEntry(
                    name: name, born: try fields.optional("born", .birthMonth), sex: try fields.optional("sex", .choice),
                    station: try fields.optional("station", .displayText),
                    infiltration: try fields.optional("infiltration", .number(in: 0...1)),
                    schedule: try fields.optional("schedule", .list(of: .scheduleEntry)),
                    restingHeartRate: try fields.optional("restingHeartRate", .number(in: 25...250)),
                    home: try fields.optional("home", .geoPoint), tokenFile: try fields.optional("tokenFile", .text))
            } catch {
                var named = error
                named.problem = "(\(name)) " + error.problem
                throw named
            }
        }
    }
}

extension ValueShape where Value == String {
    /// `[a-z0-9_-]{1,32}` or Hangul: a person's name, also used on the command line and in URLs;
    /// decomposed Hangul (a Mac's) is taken composed, the one form the database holds.
    static var personName: ValueShape {
        .scalar { written throws(ValueProblem) in
            let text = NameForm.composed(written)
            guard Person.isValidName(text) else {
                throw ValueProblem(
                    "must be 1 to 32 of a-z, 0-9, _ and -, or Hangul syllables, not \(ValueProblem.quoted(text))")
            }
            return text
        }
    }
}

extension ValueShape where Value == BirthMonth {
    /// `YYYY-MM` from 1900-01 to 2100-12. Whether it is after this month is not a question of the
    /// file: a Raspberry Pi's clock, behind until NTP answers, once made a valid `born` refuse dustd's
    /// start (a restart loop); `SettingsLoader` warns of a month after this one instead.
    static var birthMonth: ValueShape {
        .scalar { text throws(ValueProblem) in
            guard let month = BirthMonth(text), (1900...2100).contains(month.year) else {
                throw ValueProblem("must be a month YYYY-MM from 1900-01 to 2100-12, not \(ValueProblem.quoted(text))")
            }
            return month
        }
    }
}

extension ValueShape where Value == GeoPoint {
    /// `{lat, lon}` in degrees: latitude −90…90, longitude −180…180, both finite.
    static var geoPoint: ValueShape {
        .record(["lat", "lon"]) { fields throws(ValueProblem) in
            GeoPoint(
                latitude: try fields.required("lat", .number(in: -90...90)), longitude: try fields.required("lon", .number(in: -180...180)))
        }
    }
}
