import DustKit
import Testing

@Suite("Alert rules: parsing, quiet hours, the rising/clearing state machine", .timeLimit(.minutes(10)))
struct AlertRuleTests {
    @Test("Rules parse with numbers, grade words in Korean and English, and every operator")
    func parsing() throws {
        #expect(try AlertRule(parsing: "pm25.grade >= 3") == AlertRule(metric: .pm25Grade, comparison: .atLeast, threshold: 3))
        #expect(try AlertRule(parsing: "  PM10.grade>=나쁨 ") == AlertRule(metric: .pm10Grade, comparison: .atLeast, threshold: 3))
        #expect(
            try AlertRule(parsing: "forecast.tomorrow.pm25 > moderate")
                == AlertRule(metric: .forecastTomorrowPM25, comparison: .above, threshold: 2))
        #expect(try AlertRule(parsing: "pm25.grade == very bad").threshold == 4)
        #expect(
            try AlertRule(parsing: "intake.today.pm25 > 300") == AlertRule(metric: .intakeTodayPM25, comparison: .above, threshold: 300))
        #expect(try AlertRule(parsing: "intake.today.pm10 <= 12.5").threshold == 12.5)
        #expect(try AlertRule(parsing: "pm10.grade != 1").comparison == .notEqual)
        #expect(try AlertRule(parsing: "pm10.grade < 2").comparison == .below)
        #expect(try AlertRule(parsing: "pm25.grade >= 나쁨").description == "pm25.grade >= 3")
        #expect(try AlertRule(parsing: "intake.today.pm25 > 300.5").description == "intake.today.pm25 > 300.5")
        // A rule "switched off" with a huge threshold: its text, not a trap (dustd and every dustctl stopped).
        #expect(try AlertRule(parsing: "intake.today.pm25 > 1e20").description == "intake.today.pm25 > 1e+20")
        #expect(try AlertRule(parsing: "indoor.pm25 > -1e300").description == "indoor.pm25 > -1e+300")
        #expect(try AlertRule(parsing: "intake.today.pm25 > 99999999999999999999").description == "intake.today.pm25 > 1e+20")
    }

    @Test("Bad rules say what is wrong")
    func badRules() {
        #expect(throws: AlertRuleError("\"pm25.grade 3\" has no comparison; write e.g. pm25.grade >= 3")) {
            try AlertRule(parsing: "pm25.grade 3")
        }
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "pm25.value >= 3") }
        #expect(throws: AlertRuleError("a grade is 1, 2, 3 or 4, not 9")) { try AlertRule(parsing: "pm25.grade >= 9") }
        // A grade word is not an amount of intake.
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "intake.today.pm25 > 나쁨") }
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "pm25.grade >= nan") }
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "pm25.grade >= 2.5") }
        #expect(throws: AlertRuleError.self) { try AlertRule(parsing: "pm25.grade >= 0") }
    }

    @Test("Quiet hours wrap midnight; equal ends mean none")
    func quietHours() {
        let night = QuietHours(fromHour: 22, toHour: 7)
        #expect((0..<24).filter { night.contains(hour: $0) } == [0, 1, 2, 3, 4, 5, 6, 22, 23])
        let lunch = QuietHours(fromHour: 12, toHour: 13)
        #expect((0..<24).filter { lunch.contains(hour: $0) } == [12])
        #expect((0..<24).filter { QuietHours(fromHour: 5, toHour: 5).contains(hour: $0) }.isEmpty)
        #expect((0..<24).allSatisfy { QuietHours(fromHour: 0, toHour: 24).contains(hour: $0) })
        #expect((0..<24).filter { QuietHours(fromHour: 22, toHour: 24).contains(hour: $0) } == [22, 23])
    }

    @Test("The transition table: fire once on the rising edge, never repeat, clear once, hold in quiet hours, ignore unknown")
    func transitions() {
        typealias Row = (from: AlertState, holds: Bool?, quiet: Bool, to: AlertState, edge: AlertEdge?)
        let table: [Row] = [
            (.idle, true, false, .active, .fired),
            (.idle, true, true, .held, nil),
            (.idle, false, false, .idle, nil),
            (.idle, false, true, .idle, nil),
            (.idle, nil, false, .idle, nil),
            (.held, true, true, .held, nil),
            (.held, true, false, .active, .fired),
            (.held, false, true, .idle, nil),
            (.held, false, false, .idle, nil),
            (.held, nil, false, .held, nil),
            (.active, true, false, .active, nil),
            (.active, true, true, .active, nil),
            (.active, false, false, .idle, .cleared),
            (.active, false, true, .idle, .cleared),
            (.active, nil, false, .active, nil),
        ]
        for row in table {
            let (state, edge) = row.from.next(holds: row.holds, quiet: row.quiet)
            #expect(state == row.to && edge == row.edge, "\(row.from) holds \(String(describing: row.holds)) quiet \(row.quiet)")
        }
    }
}

@Suite("Alert rules name the index as every other surface does", .timeLimit(.minutes(10)))
struct CAIRuleNameTests {
    @Test("cai.grade is the index's grade, the same rule as khai.grade (whose stored key it keeps)")
    func caiAlias() throws {
        let cai = try AlertRule(parsing: "cai.grade >= 나쁨")
        let khai = try AlertRule(parsing: "khai.grade >= 3")
        #expect(cai.metric == .khaiGrade && cai == khai)
        #expect(cai.description == "khai.grade >= 3")
    }
}
