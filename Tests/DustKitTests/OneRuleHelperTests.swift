import DustKit
import Foundation
import Testing

@Suite("Great-circle distance (docs/REFERENCE.md §6, §12)", .timeLimit(.minutes(10)))
struct GreatCircleTests {
    @Test("Seoul City Hall to Busan City Hall is 325.05 km on the IUGG mean sphere")
    func seoulToBusan() {
        // Seoul City Hall 37.5663° N 126.9779° E, Busan City Hall 35.1798° N 129.0750° E;
        // haversine by hand: a = 0.000651774, 2 · 6371.0088 · asin(√a) = 325.0496 km.
        let kilometres = GreatCircle.kilometres(latitude1: 37.5663, longitude1: 126.9779, latitude2: 35.1798, longitude2: 129.0750)
        #expect(abs(kilometres - 325.0496) < 0.0005)
        let back = GreatCircle.kilometres(latitude1: 35.1798, longitude1: 129.0750, latitude2: 37.5663, longitude2: 126.9779)
        #expect(back == kilometres)
    }

    @Test("One degree along the equator is π · 6,371,008.8 m / 180; antipodes are half the circumference")
    func radius() {
        #expect(GreatCircle.earthRadiusMetres == 6_371_008.8)
        let degree = GreatCircle.metres(latitude1: 0, longitude1: 0, latitude2: 0, longitude2: 1)
        #expect(abs(degree - 111_195.080_2) < 0.001)
        let antipodes = GreatCircle.metres(latitude1: 37.5, longitude1: 127, latitude2: -37.5, longitude2: -53)
        #expect(abs(antipodes - Double.pi * 6_371_008.8) < 0.01)
        #expect(GreatCircle.metres(latitude1: 37.5, longitude1: 127, latitude2: 37.5, longitude2: 127) == 0)
    }
}

@Suite("Duration in seconds", .timeLimit(.minutes(10)))
struct DurationSecondsTests {
    @Test(
        "Whole and fractional durations keep their fraction",
        arguments: [(Duration.seconds(4), 4.0), (.milliseconds(1500), 1.5), (.zero, 0)])
    func seconds(duration: Duration, expected: Double) {
        #expect(duration.seconds == expected)
    }

    @Test("Attoseconds count: 250 ms is 0.25 s and minus 90 s is -90")
    func fractions() {
        #expect(Duration.nanoseconds(250_000_000).seconds == 0.25)
        #expect(Duration.seconds(-90).seconds == -90)
        #expect(abs(Duration.microseconds(3_600_000_001).seconds - 3600.000_001) < 1e-9)
    }
}

@Suite("Grade words (docs/REFERENCE.md §3, §14)", .timeLimit(.minutes(10)))
struct GradeWordTests {
    @Test("Each Korean word names its grade, and the forecast reads the same table", arguments: DustGrade.allCases)
    func oneTable(grade: DustGrade) {
        #expect(DustGrade(koreanName: grade.koreanName) == grade)
        #expect(ForecastGrade(word: grade.koreanName) == .known(grade))
        #expect(DustGrade(word: grade.koreanName) == grade)
    }

    @Test("The words are 좋음, 보통, 나쁨, 매우나쁨; '매우 나쁨' in a forecast is 매우나쁨, anything else is no grade")
    func words() {
        #expect(DustGrade.allCases.map(\.koreanName) == ["좋음", "보통", "나쁨", "매우나쁨"])
        #expect(ForecastGrade(word: " 매우 나쁨 ") == .known(.veryBad))
        #expect(DustGrade(koreanName: "매우 나쁨") == nil)
        #expect(DustGrade(koreanName: "bad") == nil)
        #expect(ForecastGrade(word: "예보없음") == .unknown("예보없음"))
    }

    @Test("The bilingual name: 나쁨 (bad), 매우나쁨 (very bad)")
    func bilingual() {
        #expect(DustGrade.bad.bilingualName == "나쁨 (bad)")
        #expect(DustGrade.veryBad.bilingualName == "매우나쁨 (very bad)")
    }
}

@Suite("Calendar day counts, one rule for LocalDate and the activity parsers", .timeLimit(.minutes(10)))
struct CalendarDayCountTests {
    @Test("Days since 1970-01-01: 2000-01-01 is 10,957; year 0 counts too, for a parser to refuse later")
    func daysSinceEpoch() {
        #expect(LocalDate.daysSinceEpoch(year: 1970, month: 1, day: 1) == 0)
        #expect(LocalDate.daysSinceEpoch(year: 2000, month: 1, day: 1) == 10_957)
        #expect(LocalDate.daysSinceEpoch(year: 2099, month: 12, day: 31) == 47_481)
        #expect(LocalDate.daysSinceEpoch(year: 1, month: 1, day: 1) == -719_162)
        #expect(LocalDate.daysSinceEpoch(year: 0, month: 3, day: 1) == -719_468)
        #expect(LocalDate.daysSinceEpoch(year: 2026, month: 11, day: 20) == LocalDate(year: 2026, month: 11, day: 20).daysSinceEpoch)
    }

    @Test("February has 29 days in 2000 and 2024, 28 in 1900 and 2100")
    func leapYears() {
        #expect(LocalDate.daysInMonth(year: 2000, month: 2) == 29)
        #expect(LocalDate.daysInMonth(year: 2024, month: 2) == 29)
        #expect(LocalDate.daysInMonth(year: 1900, month: 2) == 28)
        #expect(LocalDate.daysInMonth(year: 2100, month: 2) == 28)
        #expect(LocalDate.daysInMonth(year: 2026, month: 11) == 30)
    }
}
