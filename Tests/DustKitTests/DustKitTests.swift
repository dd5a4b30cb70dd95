import DustKit
import Foundation
import TestSupport
import Testing

@Suite("DustPair", .timeLimit(.minutes(10)))
struct DustPairTests {
    @Test("map, zip and the pollutant subscript keep PM10 and PM2.5 apart")
    func mapAndZip() {
        let concentration = DustPair<Double?>(fineDust: 40, ultraFineDust: nil)
        let hours = DustPair(fineDust: 24, ultraFineDust: 23)
        #expect(concentration.map { $0 ?? -1 } == DustPair(fineDust: 40, ultraFineDust: -1))
        let zipped = hours.zip(DustPair(fineDust: 2, ultraFineDust: 3)).map { $0 * $1 }
        #expect(zipped == DustPair(fineDust: 48, ultraFineDust: 69))
        var pair = hours
        pair[.pm25] = 22
        #expect(pair.ultraFineDust == 22 && pair[.pm10] == 24)
        #expect(DustPair(byPollutant: { $0 == .pm10 ? "a" : "b" }) == DustPair(fineDust: "a", ultraFineDust: "b"))
    }

    @Test("Equal pairs are one value: equal and hashed alike, PM10 and PM2.5 never swapped")
    func hashable() {
        #expect(Set([DustPair(fineDust: 1, ultraFineDust: 2), DustPair(fineDust: 1, ultraFineDust: 2)]).count == 1)
        #expect(DustPair(fineDust: 1, ultraFineDust: 2) != DustPair(fineDust: 2, ultraFineDust: 1))
    }
}

@Suite("DustGrade by AirKorea's tables", .timeLimit(.minutes(10)))
struct DustGradeTests {
    let today = LocalDate(year: 2026, month: 11, day: 20)

    @Test(
        "PM10 boundaries 30 / 80 / 150, integer part only",
        arguments: [
            (0.0, DustGrade.good), (30, .good), (30.9, .good), (31, .moderate), (80, .moderate),
            (81, .bad), (150, .bad), (151, .veryBad), (999, .veryBad),
        ])
    func pm10(concentration: Double, grade: DustGrade) {
        #expect(DustGrade(concentration: concentration, of: .pm10, on: today) == grade)
    }

    @Test(
        "PM2.5 boundaries 15 / 35 / 75 since 2018-03-27",
        arguments: [
            (15.0, DustGrade.good), (16, .moderate), (35, .moderate), (35.9, .moderate), (36, .bad), (75, .bad), (76, .veryBad),
        ])
    func pm25(concentration: Double, grade: DustGrade) {
        #expect(DustGrade(concentration: concentration, of: .pm25, on: today) == grade)
    }

    @Test("PM2.5 before 2018-03-27 used 15 / 50 / 100")
    func pm25OldTable() {
        let before = LocalDate(year: 2018, month: 3, day: 26)
        let after = LocalDate(year: 2018, month: 3, day: 27)
        #expect(DustGrade(concentration: 40, of: .pm25, on: before) == .moderate)
        #expect(DustGrade(concentration: 40, of: .pm25, on: after) == .bad)
        #expect(DustGrade(concentration: 100, of: .pm25, on: before) == .bad)
        #expect(DustGrade(concentration: 101, of: .pm25, on: before) == .veryBad)
    }

    @Test("Names and codes")
    func names() {
        #expect(DustGrade.veryBad.koreanName == "매우나쁨")
        #expect(DustGrade.moderate.englishName == "moderate")
        #expect(DustGrade(code: "3") == .bad)
        #expect(DustGrade(code: "5") == nil && DustGrade(code: "") == nil && DustGrade(code: "-") == nil)
    }
}

@Suite("Time rules (docs/REFERENCE.md §2)", .timeLimit(.minutes(10)))
struct TimeRuleTests {
    let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
    let newYork = DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!)

    @Test("24:00 is the last slot of the same day; 01:00 the first slot of the next")
    func midnight() throws {
        let lastOf20 = try #require(KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00"))
        #expect(lastOf20.start == instant("2026-11-20T23:00:00+09:00"))
        #expect(seoul.date(containing: lastOf20.start) == LocalDate(year: 2026, month: 11, day: 20))
        let firstOf21 = try #require(KoreaStandardTime.slot(forDataTime: "2026-11-21 01:00"))
        #expect(firstOf21.start == instant("2026-11-21T00:00:00+09:00"))
        #expect(seoul.date(containing: firstOf21.start) == LocalDate(year: 2026, month: 11, day: 21))
        #expect(KoreaStandardTime.slot(forDataTime: "2026-11-21 00:00") == lastOf20)
        #expect(KoreaStandardTime.dataTime(of: lastOf20) == "2026-11-20 24:00")
        #expect(KoreaStandardTime.dataTime(of: firstOf21) == "2026-11-21 01:00")
    }

    @Test(
        "Invalid dataTimes are rejected",
        arguments: [
            "2026-11-20 25:00", "2026-11-20 10:30", "2026-02-29 01:00", "2026-13-01 01:00", "2026-11-20T10:00", "", "2026-11-2010:00",
        ])
    func invalid(dataTime: String) {
        #expect(KoreaStandardTime.slot(forDataTime: dataTime) == nil)
    }

    @Test(
        "A day starts where Foundation's Gregorian calendar says, in zones with DST at midnight, skipped days and half-hour shifts",
        arguments: [
            "Asia/Seoul", "America/New_York", "America/Santiago", "America/Havana", "America/Sao_Paulo",
            "Asia/Beirut", "Australia/Lord_Howe", "Pacific/Apia", "Europe/London", "UTC",
        ])
    func dayStartsLikeFoundation(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let days = DayCalendar(timeZone: timeZone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // 1987–1988 (Seoul's last DST), 2010–2012 (Apia skipped 2011-12-30), 2017–2019 (São Paulo
        // changed at midnight): every day against the calendar.
        var mismatches: [String] = []
        for (first, last) in [
            (LocalDate(year: 1987, month: 1, day: 1), LocalDate(year: 1988, month: 12, day: 31)),
            (LocalDate(year: 2010, month: 1, day: 1), LocalDate(year: 2012, month: 12, day: 31)),
            (LocalDate(year: 2017, month: 1, day: 1), LocalDate(year: 2019, month: 12, day: 31)),
        ] {
            var date = first
            while date <= last {
                let expected = try #require(calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day)))
                if days.start(of: date) != expected { mismatches.append("\(date): \(days.start(of: date)) ≠ \(expected)") }
                date = date.adding(days: 1)
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("A Seoul day has 24 slots from 00:00 KST")
    func seoulDay() {
        let slots = seoul.slots(of: LocalDate(year: 2026, month: 11, day: 20))
        #expect(slots.count == 24)
        #expect(slots.first?.start == instant("2026-11-20T00:00:00+09:00"))
        #expect(slots.last?.start == instant("2026-11-20T23:00:00+09:00"))
        #expect(seoul.iso8601(slots[0].start) == "2026-11-20T00:00:00+09:00")
        #expect(seoul.hour(of: slots[7]) == 7)
    }

    @Test("Days in a zone with DST have 23 and 25 slots")
    func daylightSavingTime() {
        #expect(newYork.slots(of: LocalDate(year: 2026, month: 3, day: 8)).count == 23)
        #expect(newYork.slots(of: LocalDate(year: 2026, month: 11, day: 1)).count == 25)
        #expect(newYork.slots(of: LocalDate(year: 2026, month: 11, day: 2)).count == 24)
        let fallBack = newYork.slots(of: LocalDate(year: 2026, month: 11, day: 1))
        #expect(fallBack.map { newYork.hour(of: $0) }.prefix(4) == [0, 1, 1, 2])
        #expect(newYork.iso8601(fallBack[2].start) == "2026-11-01T01:00:00-05:00")
    }

    @Test("A zone with a half-hour offset still gets 24 whole-hour slots a day")
    func halfHourZone() {
        let kolkata = DayCalendar(timeZone: TimeZone(identifier: "Asia/Kolkata")!)
        let slots = kolkata.slots(of: LocalDate(year: 2026, month: 11, day: 20))
        #expect(slots.count == 24)
        #expect(kolkata.iso8601(slots[0].start) == "2026-11-20T00:30:00+05:30")
    }

    // The host's TZ is changed only for a program of its own (dustctlTests, `day --json` under
    // TZ=America/New_York): setenv in this process would change it under every test running beside it.
    @Test("Days come from the configured zone only, whatever zone the process has")
    func hostTimeZoneIgnored() {
        let newYork = DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!)
        let slot = KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00")!
        #expect(seoul.date(containing: slot.start) == LocalDate(year: 2026, month: 11, day: 20))
        #expect(newYork.date(containing: slot.start) == LocalDate(year: 2026, month: 11, day: 20))
        #expect(seoul.slots(of: LocalDate(year: 2026, month: 11, day: 20)).first?.start == instant("2026-11-20T00:00:00+09:00"))
        #expect(newYork.slots(of: LocalDate(year: 2026, month: 11, day: 20)).first?.start == instant("2026-11-20T00:00:00-05:00"))
    }
}

@Suite("Dates and ISO weeks", .timeLimit(.minutes(10)))
struct DateTests {
    @Test("Parsing, arithmetic and weekdays")
    func localDate() {
        #expect(LocalDate("2026-11-20") == LocalDate(year: 2026, month: 11, day: 20))
        #expect(LocalDate("2026-02-29") == nil && LocalDate("2024-02-29") != nil && LocalDate("20261120") == nil)
        #expect(LocalDate(year: 2026, month: 12, day: 31).adding(days: 1) == LocalDate(year: 2027, month: 1, day: 1))
        #expect(LocalDate(year: 2026, month: 3, day: 1).adding(days: -1) == LocalDate(year: 2026, month: 2, day: 28))
        #expect(LocalDate(year: 2026, month: 11, day: 20).isoWeekday == 5)
        #expect(LocalDate(year: 1970, month: 1, day: 1).daysSinceEpoch == 0)
        #expect(LocalDate(daysSinceEpoch: -1) == LocalDate(year: 1969, month: 12, day: 31))
        #expect(LocalDate(year: 2026, month: 1, day: 5).description == "2026-01-05")
    }

    @Test(
        "ISO weeks across year boundaries",
        arguments: [
            ("2026-11-20", "2026-W47"), ("2027-01-01", "2026-W53"), ("2026-01-01", "2026-W01"),
            ("2024-12-30", "2025-W01"), ("2021-01-03", "2020-W53"),
        ])
    func isoWeek(date: String, week: String) {
        #expect(ISOWeek(containing: LocalDate(date)!).description == week)
        #expect(ISOWeek(week)?.dates.contains(LocalDate(date)!) == true)
    }

    @Test("A week runs Monday to Sunday; impossible weeks are rejected")
    func weekDates() {
        let week = ISOWeek("2026-W47")!
        #expect(week.monday == LocalDate(year: 2026, month: 11, day: 16))
        #expect(week.dates.last == LocalDate(year: 2026, month: 11, day: 22))
        #expect(ISOWeek("2025-W53") == nil)
        #expect(ISOWeek("2026-W53") != nil)
        #expect(ISOWeek("2026-W00") == nil && ISOWeek("2026W47") == nil)
    }

    @Test("Date arithmetic is total: it stops at 0001-01-01 and 9999-12-31 instead of trapping")
    func totalArithmetic() {
        #expect(LocalDate.earliest.daysSinceEpoch == -719_162 && LocalDate.latest.daysSinceEpoch == 2_932_896)
        #expect(LocalDate.earliest.adding(days: -1) == LocalDate.earliest)
        #expect(LocalDate.earliest.adding(days: -7) == LocalDate.earliest)
        #expect(LocalDate.latest.adding(days: 1) == LocalDate.latest)
        #expect(LocalDate(year: 2026, month: 11, day: 20).adding(days: .max) == LocalDate.latest)
        #expect(LocalDate(year: 2026, month: 11, day: 20).adding(days: .min) == LocalDate.earliest)
        #expect(LocalDate(daysSinceEpoch: -800_000) == LocalDate.earliest)
        #expect(LocalDate(daysSinceEpoch: .max) == LocalDate(year: 9999, month: 12, day: 31))
        // The pager's week before 0001-W01 used to reach year 0 and trap in ISOWeek(containing:).
        let first = ISOWeek("0001-W01")!
        #expect(first.monday == LocalDate(year: 1, month: 1, day: 1))
        #expect(ISOWeek(containing: first.monday.adding(days: -7)) == first)
        #expect(ISOWeek(containing: LocalDate.latest).description == "9999-W52")
        #expect(ISOWeek(containing: LocalDate.latest.adding(days: 7)).description == "9999-W52")
        // Instants no file should hold still have a slot and a date instead of trapping in Int64(_:).
        let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300, 253_402_300_800 * 1000] {
            let instant = Date(timeIntervalSince1970: seconds)
            #expect(Slot(containing: instant).startEpochSeconds % 3600 == 0)
            let date = seoul.date(containing: instant)
            #expect(date == LocalDate.earliest || date == LocalDate.latest, "\(seconds)")
            #expect(!seoul.iso8601(instant).isEmpty)
            #expect(!SupportedPeriod.isPlausible(instant, now: DemoNow.instant))
        }
    }

    @Test("Every typed date and week parses to a supported one or is refused with the range; neighbours never trap")
    func typedPeriods() throws {
        let random = PeriodSamples.random(count: 2000, seed: 19)
        for text in PeriodSamples.boundaryDates + random.dates {
            let date = try? SupportedPeriod.date(text)
            #expect((date != nil) == (LocalDate(text).map(SupportedPeriod.contains) ?? false), "\(text)")
            if let parsed = LocalDate(text) {
                // What the pages and the rolling week compute from any parsed date.
                _ = ISOWeek(containing: parsed.adding(days: -7)).dates
                _ = ISOWeek(containing: parsed.adding(days: 7)).dates
                _ = parsed.adding(days: -6)
            }
        }
        for text in PeriodSamples.boundaryWeeks + random.weeks {
            let week = try? SupportedPeriod.week(text)
            #expect((week != nil) == (ISOWeek(text).map(SupportedPeriod.contains) ?? false), "\(text)")
            if let parsed = ISOWeek(text) {
                _ = ISOWeek(containing: parsed.monday.adding(days: -7)).dates
                _ = ISOWeek(containing: parsed.monday.adding(days: 7)).dates
            }
        }
        // 2000-01-01 is a Saturday: its week is 1999-W52, and 2000-W01 starts on Monday 2000-01-03.
        #expect(SupportedPeriod.firstWeek.description == "2000-W01" && SupportedPeriod.lastWeek.description == "2099-W52")
        #expect(try SupportedPeriod.week("2000-W01").monday == LocalDate(year: 2000, month: 1, day: 3))
        #expect(throws: TypedPeriodError.unsupportedWeek(ISOWeek("1999-W52")!)) { try SupportedPeriod.week("1999-W52") }
        #expect(throws: TypedPeriodError.unsupportedWeek(ISOWeek("2099-W53")!)) { try SupportedPeriod.week("2099-W53") }
        #expect(try SupportedPeriod.date("2000-01-01") == SupportedPeriod.firstDate)
        #expect(try SupportedPeriod.date("2099-12-31") == SupportedPeriod.lastDate)
        // A digit that is not ASCII (a full-width １, an Arabic-Indic ٣) is no digit of a date: the form's
        // sentence, never "2026-12 has 31 days" for a day that has its 31.
        #expect(TypedPeriodError.notADate("2026-12-3１").description == "write the day as YYYY-MM-DD, from 2000-01-01 to 2099-12-31.")
        #expect(TypedPeriodError.notADate("٢٠٢٦-12-31").description.hasPrefix("write the day as YYYY-MM-DD"))
        #expect(TypedPeriodError.notAWeek("2026-W5３").description.hasPrefix("write the week as YYYY-Www"))
        #expect(throws: TypedPeriodError.notADate("2026-12-3１")) { try SupportedPeriod.date("2026-12-3１") }
        #expect(
            TypedPeriodError.unsupportedDate(LocalDate(year: 1999, month: 12, day: 31)).description
                == "1999-12-31 is outside the dates FineDust keeps; give a day from 2000-01-01 to 2099-12-31.")
        #expect(
            TypedPeriodError.unsupportedWeek(ISOWeek("1999-W52")!).description
                == "1999-W52 runs 1999-12-27 to 2000-01-02, outside the dates FineDust keeps; give a week whose seven days lie from 2000-01-01 to 2099-12-31 (2000-W01 to 2099-W52)."
        )
    }
}

@Suite("Text from the network is terminal-safe", .timeLimit(.minutes(10)))
struct TerminalSafeTextTests {
    @Test("C0, DEL, C1 and bidi overrides are replaced; tabs and newlines become spaces; Korean is kept")
    func replacements() {
        #expect(TerminalSafeText.sanitized("종로구\u{1B}[2J\tok\n\u{7F}\u{9B}\u{202E}x") == "종로구\u{FFFD}[2J ok \u{FFFD}\u{FFFD}\u{FFFD}x")
        #expect(TerminalSafeText.sanitized("통신장애 · 좋음") == "통신장애 · 좋음")
        #expect(!TerminalSafeText.needsSanitizing("서울 PM2.5 µg/m³ — fine"))
        #expect(TerminalSafeText.needsSanitizing("\u{2066}"))
    }

    @Test(
        "All twelve bidirectional controls and the line separators, by scalar and by byte, in every place that escapes: the terminal, a typed-back name, JSON and HTML"
    )
    func bidiControlsAndSeparators() {
        let bidi: [Unicode.Scalar] = [
            "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}",
            "\u{2068}", "\u{2069}",
        ]
        for scalar in bidi {
            let text = "12\(scalar)34"
            #expect(TerminalSafeText.isUnsafe(scalar))
            #expect(TerminalSafeText.needsSanitizing(text), "U+\(String(scalar.value, radix: 16))")
            #expect(TerminalSafeText.sanitized(text) == "12\u{FFFD}34")
            #expect(!TerminalSafeText.needsSanitizing(TerminalSafeText.escaped(text)))
        }
        #expect(TerminalSafeText.sanitized("a\u{2028}b\u{2029}c") == "a b c")
        #expect(TerminalSafeText.escaped("a\u{061C}b\u{2028}") == "a\\u061Cb\\u2028")
        // Their neighbours are text: Arabic, the en dash, the ellipsis, ZWJ in an emoji, the narrow no-break space.
        for kept in ["\u{061B}", "\u{061D}", "\u{200D}", "\u{2013}", "\u{2026}", "\u{2027}", "\u{202F}", "\u{2065}", "\u{206A}", "👨‍👩‍👧"] {
            #expect(!TerminalSafeText.needsSanitizing("a" + kept), "\(kept.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        // A sequence cut at the end of the text is not read past it.
        #expect(!TerminalSafeText.startsUnsafeScalar(Array("x\u{200F}".utf8).dropLast(), at: 1))
    }

    @Test("Invisible characters: an emoji's joiner and selector belong to it; after a Korean name they make a look-alike")
    func invisibleText() {
        #expect(InvisibleText.first(in: "🌫️ 미세먼지") == nil)
        #expect(InvisibleText.first(in: "👨‍👩‍👧") == nil)
        #expect(InvisibleText.first(in: "❤️‍🔥") == nil)
        #expect(InvisibleText.first(in: "종로구\u{200D}") == "\u{200D}")
        #expect(InvisibleText.first(in: "종로구\u{FE0F}") == "\u{FE0F}")
        #expect(InvisibleText.first(in: "#\u{FE0F}") == "\u{FE0F}")
        #expect(InvisibleText.first(in: "종\u{00AD}로구") == "\u{00AD}")
        #expect(TerminalSafeText.codePoint("\u{1B}") == "U+001B" && TerminalSafeText.codePoint("\u{1F32B}") == "U+1F32B")
    }

    @Test("Did-you-mean compares the first 64 characters: a 10,000-character name costs what a 64-character one does")
    func spellingDistanceBounded() {
        let long = String(repeating: "가", count: 10_000)
        let names = (0..<700).map { "측정소\($0)" }
        // Unbounded, these differ (9,997 against 61) and the first alone took 30 million steps.
        #expect(SpellingDistance.between(long, "종로구") == SpellingDistance.between(String(long.prefix(64)), "종로구"))
        #expect(
            SpellingDistance.nearest(5, to: long, among: names) == SpellingDistance.nearest(5, to: String(long.prefix(64)), among: names))
        #expect(SpellingDistance.nearest(to: long, among: names) == SpellingDistance.nearest(to: String(long.prefix(64)), among: names))
        #expect(SpellingDistance.nearest(to: "종로", among: ["중구", "종로구"]) == "종로구")
    }

    @Test("A field of Korean words holds nothing invisible: a station name with a zero-width space or a right-to-left mark is not 종로구")
    func invisibleInKoreanText() {
        #expect(ServerVocabulary.isKoreanText("종로구"))
        #expect(ServerVocabulary.isKoreanText("서울 중구 덕수궁길 15 (서소문동)"))
        for invisible in [
            "\u{200B}", "\u{200C}", "\u{200D}", "\u{200F}", "\u{FEFF}", "\u{3164}", "\u{115F}", "\u{FE0F}", "\u{00AD}", "\u{2028}",
            "\u{1B}",
        ] {
            #expect(
                !ServerVocabulary.isKoreanText("종로" + invisible + "구"), "\(invisible.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test(
        "A field of Korean words holds no combining mark and is no longer than AirKorea's: a station's name at most 64 characters, any other field 200"
    )
    func koreanTextShape() {
        // COMBINING LATIN SMALL LETTER A, C, E on spaces (each drawn as its letter); an acute accent stacked a thousand times.
        for text in ["오류 \u{363} \u{368} \u{364}", "종로구\u{301}", "오" + String(repeating: "\u{336}", count: 1000), "종로구\u{20DD}"] {
            #expect(!ServerVocabulary.isKoreanText(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(ServerVocabulary.isKoreanText(String(repeating: "종", count: 200)))
        #expect(!ServerVocabulary.isKoreanText(String(repeating: "오류", count: 101)))
        #expect(ServerVocabulary.isKoreanText(String(repeating: "종", count: 64), atMost: ServerVocabulary.maxNameCharacters))
        #expect(!ServerVocabulary.isKoreanText(String(repeating: "종", count: 65), atMost: ServerVocabulary.maxNameCharacters))
        // Where a redacted key stood (a flag that was the key): no word of AirKorea's.
        #expect(
            !ServerVocabulary.isKoreanText(SecretScrubber.placeholder) && !ServerVocabulary.isKoreanText("점검" + SecretScrubber.placeholder))
        // NFD Hangul (jamo, letters of their own) is Korean words still.
        #expect(ServerVocabulary.isKoreanText("종로구".decomposedStringWithCanonicalMapping))
        // Decomposed, a name of 64 syllables is 192 scalars and 576 bytes: within four scalars a character.
        let long = String(repeating: "종", count: 64).decomposedStringWithCanonicalMapping
        #expect(ServerVocabulary.isKoreanText(long, atMost: ServerVocabulary.maxNameCharacters))
    }

    @Test("A quote is bounded in characters and in Unicode scalars: a character of a million combining marks is left out")
    func prefixes() {
        let (short, shortIsWhole) = TerminalSafeText.prefix("종로구 PM2.5", characters: 3)
        #expect(short == "종로구" && !shortIsWhole)
        let (whole, wholeIsWhole) = TerminalSafeText.prefix("종로구", characters: 3)
        #expect(whole == "종로구" && wholeIsWhole)
        // A family emoji is seven scalars and one character: within the budget of 4 × 3.
        let (family, familyIsWhole) = TerminalSafeText.prefix("a👨‍👩‍👧‍👦b", characters: 3)
        #expect(family == "a👨‍👩‍👧‍👦b" && familyIsWhole)
        let zalgo = "ok e" + String(repeating: "\u{0301}", count: 1_000_000) + "tail"
        #expect(zalgo.count == 8)
        let (clipped, clippedIsWhole) = TerminalSafeText.prefix(zalgo, characters: 40)
        #expect(clipped == "ok " && !clippedIsWhole)
        let (none, noneIsWhole) = TerminalSafeText.prefix("", characters: 40)
        #expect(none.isEmpty && noneIsWhole)
    }

    @Test("A name to type back: control characters and bidi overrides as ASCII escapes, everything else kept")
    func escapes() {
        #expect(TerminalSafeText.escaped("walk\u{1B}]0;x\u{07}\n\u{202E}gpx.걷기.gpx") == "walk\\x1B]0;x\\x07\\x0A\\u202Egpx.걷기.gpx")
        #expect(TerminalSafeText.escaped("\u{9B}\u{0}") == "\\x9B\\x00")
        #expect(TerminalSafeText.escaped("route_2024-01-01.gpx") == "route_2024-01-01.gpx")
        #expect(!TerminalSafeText.needsSanitizing(TerminalSafeText.escaped("a\u{1B}\u{2069}b")))
    }
}

@Suite("Numbers as files write them", .timeLimit(.minutes(10)))
struct DecimalTextTests {
    @Test("Plain decimals read; hex, inf, nan, separators, other digits and stray characters do not")
    func decimals() {
        for (text, value) in [
            ("72", 72.0), ("-0.5", -0.5), ("+37.5663", 37.5663), (".5", 0.5), ("5.", 5.0), ("1.2e3", 1200.0), ("1E-2", 0.01),
        ] {
            #expect(DecimalText.parse(text) == value, "\(text)")
        }
        for text in [
            "0x25", "0X25", "inf", "-infinity", "nan", "1e309", "", "-", ".", "1e", "1_000", "٧٢", " 72", "72 ", "3,5", "0x1p3", "1.2.3",
        ] {
            #expect(DecimalText.parse(text) == nil, "\(text)")
        }
    }
}

@Suite("Fixed decimals, as printf writes them", .timeLimit(.minutes(10)))
struct FixedDecimalsTests {
    @Test("Agrees with String(format:) on ties, near-ties, negatives, zeros and random values", arguments: 0...3)
    func agreesWithPrintf(decimals: Int) {
        var values: [Double] = [
            0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35, 1.005, 2.675, -0.04,
            -0.0004, 41.15, 41.25, 999.9999, 9.9995, 0.0005, 0.00049999999999999999, 1e-300,
            123_456_789.5, 4_503_599_627_370_495.5, 9e12, 1e15, 1e20, -1e20, .nan, .infinity, -.infinity,
            .ulpOfOne, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        // Every k/2000 for k < 200,000, a hair either side, and values from a seeded generator.
        for k in stride(from: 0, to: 200_000, by: 7) {
            let exact = Double(k) / 2000
            values += [exact, exact.nextUp, exact.nextDown, -exact]
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<50_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let mantissa = Double(state >> 11) / Double(1 << 53)
            let exponent = Int((state >> 3) % 40) - 20
            values.append((state & 1 == 0 ? 1 : -1) * mantissa * pow(10, Double(exponent)))
        }
        var mismatches: [String] = []
        for value in values where fixedDecimals(value, decimals) != String(format: "%.\(decimals)f", value) {
            mismatches.append("\(value): \(fixedDecimals(value, decimals)) ≠ \(String(format: "%.\(decimals)f", value))")
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(5))")
        #expect(fixedDecimals(41.25, 1) == "41.2" && fixedDecimals(41.35, 1) == "41.4" && fixedDecimals(-0.04, 1) == "-0.0")
    }
}

@Suite("Trimming white space", .timeLimit(.minutes(10)))
struct WhiteSpaceTests {
    @Test("Trims what Foundation's whitespacesAndNewlines trims, and nothing else")
    func likeFoundation() {
        let samples = [
            " 종로구 ", "\t\n 1.5\r\n", "\u{3000}서울\u{3000}", "\u{00A0}a b\u{2029}", "\u{85}x\u{200A}", "", "   ",
            "\u{200B}zero width\u{200B}", "a\u{301} ", " \u{301}a", "no-trim", "\u{FEFF}bom",
        ]
        for sample in samples {
            #expect(
                sample.trimmingWhiteSpace == sample.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(sample.unicodeScalars.map { $0.value })")
        }
        // Every scalar of the Basic Multilingual Plane, alone and inside text.
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(Character(scalar))x\(Character(scalar))"
            if text.trimmingWhiteSpace != text.trimmingCharacters(in: .whitespacesAndNewlines) {
                Issue.record("U+\(String(value, radix: 16, uppercase: true)) is trimmed differently")
            }
        }
    }
}

/// 2026-11-21 00:20 KST, the demo's now (DustKit has no DemoReplay).
enum DemoNow {
    static let instant = Date(timeIntervalSince1970: 1_795_188_000)
}
