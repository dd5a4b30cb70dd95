import Foundation
import TestSupport
import Testing

/// End to end (docs/REFERENCE.md §18): two people, each with an Apple Health export generated here,
/// imported by `dustctl activity import --person`, and `dustctl week --everyone --json` compared with
/// the document computed by hand from §4's formula, §18's table and rules, and the fixture day's
/// readings.
@Suite("A household's week, end to end, against the hand-computed document", .timeLimit(.minutes(10)))
struct HouseholdWeekTests {
    /// 종로구 on 2026-11-20 from the DAILY fixture, per slot (a dataTime of 13:00 is the slot 12:00);
    /// nil where AirKorea sent `-`.
    static let pm10: [Double?] = [38, 35, 33, 30, 28, nil, 31, 40, 52, 61, 58, 55, 49, 47, 44, 46, 50, 57, 63, 66, 60, 54, 48, 45]
    static let pm25: [Double?] = [19, 18, 16, 15, 14, nil, 15, 21, 27, 33, 30, 28, 24, nil, 22, 23, 26, 30, 34, 36, 31, 27, 24, 22]

    /// dad, born 1986-05, is 40: the 31–40 row, ×60 to m³/h.
    static let adult = (sleep: 4.6e-3 * 60, sedentary: 4.3e-3 * 60, light: 1.2e-2 * 60, high: 4.9e-2 * 60)
    /// 민지, born 2018-03, is 8: the 6–10 row.
    static let child = (sleep: 4.5e-3 * 60, sedentary: 4.8e-3 * 60, light: 1.1e-2 * 60)

    /// `f + (1 − f) × F` with F = 0.7.
    static func exposure(_ outdoors: Double) -> Double { outdoors + (1 - outdoors) * 0.7 }

    /// The default schedule's level and outdoor fraction by hour: 00–07 sleep, 07–09 light ½
    /// outdoors, 09–18 sedentary, 18–19 light ½ outdoors, 19–23 sedentary, 23–24 sleep.
    static func schedule(_ hour: Int) -> (level: String, outdoors: Double) {
        switch hour {
        case 0..<7, 23: ("sleep", 0)
        case 7..<9, 18: ("light", 0.5)
        default: ("sedentary", 0)
        }
    }

    /// dad's V and exposure factor per slot:
    /// - asleep 2026-11-19 23:00 – 2026-11-20 07:30 (his Watch): slots 0–6 all sleep; 07:00 half asleep,
    ///   half the schedule's light, outdoors ½: V = (sleep + light) / 2;
    /// - 18:00 heart rate 150 at :00, :10, :20 (each covers 10 minutes): rest 60 (Health), HRmax 208 − 0.7 × 40
    ///   = 180, r = 90 / 120 = 0.75, high, for half the slot; the other half is the schedule's light, and
    ///   3.6 km walked makes f = 3600 / 4800 = 0.75: V = (high + light) / 2;
    /// - every other hour is the schedule's.
    static func adultSlot(_ hour: Int) -> (ventilation: Double, factor: Double) {
        switch hour {
        case 0...6: (adult.sleep, exposure(0))
        case 7: ((adult.sleep + adult.light) / 2, exposure(0.5))
        case 18: ((adult.high + adult.light) / 2, exposure(0.75))
        default: (rate(adult, schedule(hour).level), exposure(schedule(hour).outdoors))
        }
    }

    /// 민지's: the schedule's, but 2.4 km walked at 10:00 make it light and f = 2400 / 4800 = 0.5.
    static func childSlot(_ hour: Int) -> (ventilation: Double, factor: Double) {
        if hour == 10 { return (child.light, exposure(0.5)) }
        let level = schedule(hour).level
        let ventilation = level == "sleep" ? child.sleep : level == "light" ? child.light : child.sedentary
        return (ventilation, exposure(schedule(hour).outdoors))
    }

    static func rate(_ row: (sleep: Double, sedentary: Double, light: Double, high: Double), _ level: String) -> Double {
        level == "sleep" ? row.sleep : level == "light" ? row.light : row.sedentary
    }

    /// The day's intake: the sum of C × V × (f + (1 − f) × F) over the hours with a concentration.
    static func intake(_ concentrations: [Double?], _ slot: (Int) -> (ventilation: Double, factor: Double)) -> Double {
        (0..<24).reduce(0) { sum, hour in
            guard let concentration = concentrations[hour] else { return sum }
            return sum + concentration * slot(hour).ventilation * slot(hour).factor
        }
    }

    /// The week document of one person: only 2026-11-20 has readings (the hours, means, maxima,
    /// grades and the WHO comparison are the air's, the same for both; the intake is theirs).
    static func expectedWeek(person: String, intake: (pm10: Double, pm25: Double)) -> [String: Any] {
        let known10 = pm10.compactMap { $0 }
        let known25 = pm25.compactMap { $0 }
        let both = { (pm10: Any, pm25: Any) -> [String: Any] in ["pm10": pm10, "pm25": pm25] }
        let null = NSNull()
        func day(_ date: String) -> [String: Any] {
            let measured = date == "2026-11-20"
            return [
                "date": date, "timezone": "Asia/Seoul", "station": "종로구",
                "hours": measured ? both(known10.count, known25.count) : both(0, 0),
                "mean": measured
                    ? both(known10.reduce(0, +) / Double(known10.count), known25.reduce(0, +) / Double(known25.count)) : both(null, null),
                "max": measured ? both(known10.max()!, known25.max()!) : both(null, null),
                "intake": measured ? both(intake.pm10, intake.pm25) : both(null, null),
                // Means 47.4 and 24.3 µg/m³: 보통 (2) in both bands, above the WHO's 45 and 15.
                "grade": measured ? both(2, 2) : both(null, null),
                "whoExceeded": measured ? both(true, true) : both(null, null),
            ]
        }
        let dates = (16...22).map { "2026-11-\($0)" }
        let total = day("2026-11-20").filter { ["hours", "mean", "max", "intake", "grade"].contains($0.key) }
        return [
            "person": person, "week": "2026-W47", "start": "2026-11-16", "end": "2026-11-22", "timezone": "Asia/Seoul",
            "station": "종로구", "days": dates.map(day), "total": total,
        ]
    }

    @Test("Two generated exports, week --everyone --json: each person's document equals the hand-computed one")
    func householdWeek() async throws {
        let directory = try TemporaryDirectory("finedust-household")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        #expect(try await dustctl("import", fixture("synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"), "--db", db).status == 0)
        let config = directory.path("dustd.yaml")
        try "station:\n  name: 종로구\npeople:\n  - name: dad\n    born: \"1986-05\"\n  - name: 민지\n    born: \"2018-03\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)

        let watch = directory.path("dad-export.xml")
        try Self.export([
            record(
                "HKCategoryTypeIdentifierSleepAnalysis", "2026-11-19 23:00:00", "2026-11-20 03:00:00",
                "HKCategoryValueSleepAnalysisAsleepCore"),
            record(
                "HKCategoryTypeIdentifierSleepAnalysis", "2026-11-20 03:00:00", "2026-11-20 07:30:00",
                "HKCategoryValueSleepAnalysisAsleepDeep"),
            record(
                "HKCategoryTypeIdentifierSleepAnalysis", "2026-11-20 07:30:00", "2026-11-20 07:40:00", "HKCategoryValueSleepAnalysisInBed"),
            record("HKQuantityTypeIdentifierRestingHeartRate", "2026-11-20 00:00:05", "2026-11-20 23:59:00", "60", unit: "count/min"),
            record("HKQuantityTypeIdentifierHeartRate", "2026-11-20 18:00:00", "2026-11-20 18:00:00", "150", unit: "count/min"),
            record("HKQuantityTypeIdentifierHeartRate", "2026-11-20 18:10:00", "2026-11-20 18:10:00", "150", unit: "count/min"),
            record("HKQuantityTypeIdentifierHeartRate", "2026-11-20 18:20:00", "2026-11-20 18:20:00", "150", unit: "count/min"),
            record("HKQuantityTypeIdentifierDistanceWalkingRunning", "2026-11-20 18:00:00", "2026-11-20 18:30:00", "3.6", unit: "km"),
        ]).write(toFile: watch, atomically: true, encoding: .utf8)
        let phone = directory.path("minji-export.xml")
        try Self.export([
            record(
                "HKQuantityTypeIdentifierDistanceWalkingRunning", "2026-11-20 10:00:00", "2026-11-20 10:40:00", "2400", unit: "m",
                source: "iPhone")
        ]).write(toFile: phone, atomically: true, encoding: .utf8)
        for (file, person) in [(watch, "dad"), (phone, "민지")] {
            let imported = try await dustctl("activity", "import", file, "--person", person, "--config", config, "--db", db)
            #expect(imported.status == 0, "\(imported.standardError)")
        }

        let result = try await dustctl("week", "--iso", "2026-W47", "--everyone", "--json", "--config", config, "--db", db)
        #expect(result.status == 0, "\(result.standardError)")
        let actual = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        let expected: [Any] = [
            Self.expectedWeek(person: "dad", intake: (Self.intake(Self.pm10, Self.adultSlot), Self.intake(Self.pm25, Self.adultSlot))),
            Self.expectedWeek(person: "민지", intake: (Self.intake(Self.pm10, Self.childSlot), Self.intake(Self.pm25, Self.childSlot))),
        ]
        var differences: [String] = []
        compare(actual, expected, at: "$", into: &differences)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // The two numbers the household sees for the same air, in µg of PM2.5: dad's is the larger.
        let dadIntake = Self.intake(Self.pm25, Self.adultSlot)
        let childIntake = Self.intake(Self.pm25, Self.childSlot)
        #expect(dadIntake > childIntake + 10)
    }

    /// An export in Apple's shape around `records`, times in KST.
    static func export(_ records: [String]) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"ko_KR\">\n <ExportDate value=\"2026-11-21 09:00:00 +0900\"/>\n"
            + records.joined(separator: "\n") + "\n</HealthData>\n"
    }
}

/// One `<Record>`; times are KST.
private func record(
    _ type: String, _ start: String, _ end: String, _ value: String, unit: String? = nil, source: String = "Apple Watch"
)
    -> String
{
    let unitText = unit.map { " unit=\"\($0)\"" } ?? ""
    return " <Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"10.2\"\(unitText) creationDate=\"\(end) +0900\" "
        + "startDate=\"\(start) +0900\" endDate=\"\(end) +0900\" value=\"\(value)\"/>"
}

/// Records every place `actual` differs from `expected`: keys, types and values, numbers to 1e-9
/// relative (a sum in another order differs in its last bits).
private func compare(_ actual: Any, _ expected: Any, at path: String, into differences: inout [String]) {
    switch (actual, expected) {
    case (let actual as [String: Any], let expected as [String: Any]):
        if Set(actual.keys) != Set(expected.keys) {
            differences.append("\(path): keys \(actual.keys.sorted()) ≠ \(expected.keys.sorted())")
        }
        for (key, value) in expected { if let other = actual[key] { compare(other, value, at: "\(path).\(key)", into: &differences) } }
    case (let actual as [Any], let expected as [Any]):
        guard actual.count == expected.count else { return differences.append("\(path): \(actual.count) entries ≠ \(expected.count)") }
        for (index, pair) in zip(actual, expected).enumerated() { compare(pair.0, pair.1, at: "\(path)[\(index)]", into: &differences) }
    case (is NSNull, is NSNull):
        break
    case (let actual as Bool, let expected as Bool):
        if actual != expected { differences.append("\(path): \(actual) ≠ \(expected)") }
    case (let actual as NSNumber, let expected as Double):
        // A computed number is written to 3 decimals (docs/REFERENCE.md §6): the hand-computed one, so rounded.
        let written = (expected * 1000).rounded() / 1000
        if abs(actual.doubleValue - written) > 1e-9 * max(1, abs(written)) { differences.append("\(path): \(actual) ≠ \(written)") }
    case (let actual as NSNumber, let expected as Int):
        if actual.doubleValue != Double(expected) { differences.append("\(path): \(actual) ≠ \(expected)") }
    case (let actual as String, let expected as String):
        if actual != expected { differences.append("\(path): \(actual) ≠ \(expected)") }
    default:
        differences.append("\(path): \(actual) ≠ \(expected)")
    }
}
