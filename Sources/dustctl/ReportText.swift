import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

/// Human output for `today`, `day`, `hourly` and `week`, fitting an 80-column terminal.
struct ReportText {
    let style: TextStyle
    let calendar: DayCalendar
    let intakeModel: any IntakeModel
    var language: ReportLanguage = .english

    private var unit: String { intakeModel.unit.rawValue }
    private func say(_ korean: String, _ english: String) -> String { language.say(korean, english) }

    /// Text for stdout in the configured zone and intake model, in the locale's language.
    static func forStandardOutput(_ settings: FineDustSettings) -> ReportText {
        ReportText(
            style: .forStandardOutput(), calendar: settings.calendar, intakeModel: settings.intakeModel,
            language: ReportLanguage.process)
    }

    /// - Parameter forecast: today's outlook; its tomorrow line is shown when a grade is stored.
    /// - Parameter latest: for `today`, the newest stored hour whatever its day, shown when today has none yet.
    /// - Parameter now: for `today`, the moment asked at: an hour that ended more than
    ///   `DaemonHealth.staleAfter` before it is the newest stored, dated, not the latest.
    /// - Parameter newestStored: for `today`, the end of the newest stored hour whatever the clock says:
    ///   after `now` by more than `DaemonHealth.clockBehindAfter`, the clock is behind, and said to be.
    func day(
        _ report: DayReport, isToday: Bool, forecast: ForecastOutlook? = nil, latest: HourlyReading? = nil, now: Date? = nil,
        newestStored: Date? = nil
    ) -> String {
        func isOld(_ slot: Slot) -> Bool { now.map { $0.timeIntervalSince(slot.end) > DaemonHealth.staleAfter } ?? false }
        var lines: [String] = []
        lines.append(style.bold("\(report.station) · \(report.date) (\(language.weekday(report.date))) · \(calendar.timeZone.identifier)"))
        let tomorrow = forecast.flatMap(tomorrowLine)
        guard !report.hourly.isEmpty else {
            // A stored hour that ends after the clock by more than the clocks' margin: the clock is behind
            // (a Raspberry Pi before NTP), and "today" is a day it has not reached yet.
            let clockBehind = newestStored.flatMap { newest in
                now.flatMap { DaemonHealth.clockBehind(newestHourEndingIn: newest.timeIntervalSince($0)) }
            }
            if isToday, let behind = clockBehind {
                let age = DaemonHealth.age(behind, minutesUnit: say("분", " min"), hoursUnit: say("시간", " h"), daysUnit: say("일", " days"))
                lines.append(
                    say(
                        "이 기기의 시계가 늦습니다: 가장 최근 저장된 시간이 시계보다 \(age) 뒤에 끝납니다. 시계를 확인하세요(timedatectl).",
                        "This machine's clock is behind: the newest stored hour ends \(age) after it. Check the clock (timedatectl)."))
            } else {
                lines.append(
                    isToday && !(latest.map { isOld($0.slot) } ?? false)
                        ? say(
                            "오늘 측정값이 아직 없습니다. dustd는 매시간이 끝나고 20분쯤 뒤에 저장합니다.",
                            "No readings for today yet; dustd stores each hour about 20 minutes after it ends.")
                        : say("이날 저장된 측정값이 없습니다.", "No readings stored for this day."))
            }
            if isToday, let latest {
                let date = calendar.date(containing: latest.slot.start)
                let pm10 = concentrationWithGrade(latest.concentration.fineDust, .pm10, date)
                let pm25 = concentrationWithGrade(latest.concentration.ultraFineDust, .pm25, date)
                lines.append(
                    say("최근 저장된 시간", "Latest stored hour") + " \(date) \(slotLabel(latest.slot, calendar))   PM10 \(pm10)   PM2.5 \(pm25)")
            }
            lines.append(contentsOf: walkingTable(report.walking))
            if let tomorrow { lines.append(tomorrow) }
            return lines.joined(separator: "\n") + "\n"
        }
        if let latest = report.latest {
            let hours = slotLabel(latest.slot, calendar)
            let pm10 = concentrationWithGrade(latest.concentration.fineDust, .pm10, report.date)
            let pm25 = concentrationWithGrade(latest.concentration.ultraFineDust, .pm25, report.date)
            let label =
                isToday && isOld(latest.slot)
                ? say("최근 저장된 시간", "Latest stored hour") + " \(report.date)" : say("최근 측정", "Latest hour")
            // A value a fallback gave is named, as in the hour's row: the home station's hour is not said to be 103.
            let borrowed = fallbackNotes(latest, primary: report.station)
            lines.append(
                label + " \(hours)   PM10 \(pm10)   PM2.5 \(pm25)" + (borrowed.isEmpty ? "" : "   " + borrowed.joined(separator: ", ")))
        }
        lines.append("")
        lines.append(contentsOf: totalsTable(report.totals, hoursOf: report.elapsedSlots, label: isToday ? say("지금까지", "so far") : ""))
        if let tomorrow { lines.append(tomorrow) }
        lines.append("")
        lines.append(contentsOf: hourlyTable(report.hourly, primary: report.station))
        lines.append(contentsOf: indoorLines(report))
        lines.append(contentsOf: walkingTable(report.walking))
        lines.append(contentsOf: gasBlock(report))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The day's measured indoor/outdoor ratio beside `F`, and what the monitor changed; nothing for a
    /// person without indoor sensors (docs/REFERENCE.md §21).
    private func indoorLines(_ report: DayReport) -> [String] {
        guard let indoor = report.indoor else { return [] }
        guard indoor.sensorHours > 0 else {
            return [
                "",
                say(
                    "실내 측정: 집에 있는 시간에 30분 이상 측정된 시간이 없어 추정치(침투율 \(formatted(indoor.infiltration, decimals: 2)) × 실외)를 썼습니다.",
                    "Indoor sensor: no hour at home was covered 30 minutes or more; indoors is the estimate (infiltration \(formatted(indoor.infiltration, decimals: 2)) × outdoor)."
                ),
            ]
        }
        let ratio = [("PM2.5", indoor.ratio.ultraFineDust), ("PM10", indoor.ratio.fineDust)].compactMap { name, value in
            value.map { "\(name) \(formatted($0, decimals: 2))" }
        }.joined(separator: ", ")
        let change = [("PM2.5", indoor.intakeChange.ultraFineDust), ("PM10", indoor.intakeChange.fineDust)].compactMap { name, value in
            value.map { "\(name) \($0 > 0 ? "+" : "")\(formatted($0)) \(intakeModel.unit.rawValue)" }
        }.joined(separator: ", ")
        return [
            "",
            say(
                "실내 측정 \(indoor.sensorHours)시간: 실내/실외 비 \(ratio) (설정된 침투율 \(formatted(indoor.infiltration, decimals: 2))); 추정 대비 흡입량 \(change)",
                "Indoor sensor, \(indoor.sensorHours) hour\(indoor.sensorHours == 1 ? "" : "s"): indoor/outdoor \(ratio) (configured infiltration \(formatted(indoor.infiltration, decimals: 2))); intake against the estimate \(change)"
            ),
        ]
    }

    // MARK: Gases (docs/REFERENCE.md §17)

    /// The day's gases after everything PM shows: the latest hour and the totals per gas, then the
    /// index; nothing when no hour had a gas value or an index (old data reads as before).
    private func gasBlock(_ report: DayReport) -> [String] {
        let totals = report.gasTotals
        guard totals.hasKnownValue else { return [] }
        func row(_ name: String, _ cells: (Gas) -> String) -> String {
            String((pad(name, 14) + Gas.allCases.map { pad(cells($0), 16) }.joined()).reversed().drop { $0 == " " }.reversed())
        }
        let latest = report.latestGases
        var lines = [
            "",
            style.bold(say("대기가스", "Gases 대기가스"))
                + (latest.map { say(" · 최근 측정 ", " · latest hour ") + slotLabel($0.slot, calendar) } ?? "")
                + say(" · ppm, 통합대기환경지수 기준 등급", " · ppm, graded by the CAI bands"),
            row("") { style.bold("\($0.displayName) \($0.koreanName)") },
        ]
        if let latest {
            lines.append(
                row(say("최근", "Latest")) { gas in
                    let grade = latest.gases.grade[gas]
                    return style.graded(
                        [formattedPPM(latest.gases.ppm[gas], gas), grade?.koreanName].compactMap { $0 }.joined(separator: " "), grade)
                })
        }
        lines += [
            row(say("측정 시간", "Hours")) { hoursOf(totals.gases[$0].hours, report.elapsedSlots) },
            row(say("평균", "Mean")) { formattedPPM(totals.gases[$0].mean, $0) },
            row(say("최고", "Max")) { formattedPPM(totals.gases[$0].max, $0) },
            row(say("최고값 등급", "Grade of max")) { style.graded(language.grade(totals.gases[$0].maxGrade), totals.gases[$0].maxGrade) },
        ]
        let index = totals.cai
        var cai = [say("최근 ", "latest ") + caiText(latest?.gases.cai, latest?.gases.caiGrade)]
        if index.hours > 0 {
            cai += [
                say("최고 ", "max ") + caiText(index.max, index.maxGrade), say("평균 ", "mean ") + formatted(index.mean),
                say("\(index.hours)/\(report.elapsedSlots)시간", "\(index.hours) of \(report.elapsedSlots) hours"),
            ]
        }
        lines.append(pad(say("통합대기환경지수 CAI", "CAI 통합대기환경지수"), 22) + cai.joined(separator: " · "))
        return lines
    }

    /// `62 보통 (moderate)`, coloured by the grade AirKorea reported; `–` when unknown.
    private func caiText(_ value: Int?, _ grade: DustGrade?) -> String {
        guard let value else { return "–" }
        return style.graded(([String(value)] + (grade.map { [language.bilingualGrade($0)] } ?? [])).joined(separator: " "), grade)
    }

    /// Each stored hour's gases, their flags and the index, for `hourly`; nothing when no hour had one.
    private func gasHourlyTable(_ hours: [HourlyExposure]) -> [String] {
        guard hours.contains(where: { $0.gases.hasKnownValue }) else { return [] }
        var lines = [
            "",
            pad(style.bold(say("대기가스 ppm", "Gases, ppm")), 13) + Gas.allCases.map { pad($0.displayName, 7, alignRight: true) }.joined()
                + pad("CAI", 5, alignRight: true) + say("  비고", "  Note"),
        ]
        for hour in hours {
            let gases = hour.gases
            let grades = gases.grade
            let notes = Gas.allCases.compactMap { gas in gases.flag[gas].map { "\(gas.displayName) \($0)" } }
            lines.append(
                pad(slotLabel(hour.slot, calendar), 13)
                    + Gas.allCases.map { style.graded(pad(formattedPPM(gases.ppm[$0], $0), 7, alignRight: true), grades[$0]) }.joined()
                    + style.graded(pad(gases.cai.map(String.init) ?? "–", 5, alignRight: true), gases.caiGrade)
                    + (notes.isEmpty ? "" : "  " + notes.joined(separator: ", ")))
        }
        return lines
    }

    /// A gas's ppm with the decimals AirKorea publishes it with: 3 for O3, NO2 and SO2, 2 for CO.
    private func formattedPPM(_ value: Double?, _ gas: Gas) -> String {
        formatted(value, decimals: gas.displayDecimals)
    }

    /// The hours with walking, each with its merged distance and the source that gave it (the
    /// source's name comes from an imported file: made safe for the terminal).
    private func walkingTable(_ walking: [WalkingHour]) -> [String] {
        guard !walking.isEmpty else { return [] }
        var lines = ["", style.bold(say("걸은 거리 (시간마다 가장 큰 기록)", "Walking (the largest source per hour)"))]
        for hour in walking {
            lines.append(
                "\(slotLabel(hour.slot, calendar))  \(pad(formatted(hour.metres / 1000, decimals: 2), 7, alignRight: true)) km  "
                    + TerminalSafeText.sanitized(hour.source))
        }
        return lines
    }

    func hourly(_ report: DayReport) -> String {
        var lines = [style.bold("\(report.station) · \(report.date) (\(language.weekday(report.date))) · \(calendar.timeZone.identifier)")]
        if report.hourly.isEmpty {
            lines.append(say("이날 저장된 측정값이 없습니다.", "No readings stored for this day."))
        } else {
            lines.append(contentsOf: hourlyTable(report.hourly, primary: report.station))
            lines.append(contentsOf: gasHourlyTable(report.hourly))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func week(_ report: WeekReport, station: String, chartPollutant: Pollutant) -> String {
        var lines: [String] = []
        lines.append(style.bold("\(station) · \(report.start) – \(report.end) · \(calendar.timeZone.identifier)"))
        lines.append("")
        lines.append(
            pad(say("날짜", "Day"), 15) + pad(say("측정 시간", "Hours"), 11) + pad(say("평균 µg/m³", "Mean µg/m³"), 14)
                + pad(say("흡입량 \(unit)", "Intake \(unit)"), 16) + say("등급", "Grade"))
        lines.append(pad("", 15) + pad("PM10 PM2.5", 11) + pad("PM10  PM2.5", 14) + pad("PM10    PM2.5", 16) + "PM10/PM2.5")
        for day in report.days {
            let grade = day.totals.grade
            lines.append(
                weekRow("\(day.date) \(language.weekday(day.date))", day.totals)
                    + style.graded(grade.fineDust?.koreanName ?? "–", grade.fineDust) + "/"
                    + style.graded(grade.ultraFineDust?.koreanName ?? "–", grade.ultraFineDust))
        }
        lines.append(weekRow(say("한 주", "Week"), report.totals) + language.grade(report.totals.grade.ultraFineDust) + " (PM2.5)")
        lines.append("")
        lines.append(say("하루별 \(chartPollutant.displayName) 흡입량 (\(unit))", "\(chartPollutant.displayName) intake per day (\(unit))"))
        lines.append(contentsOf: chart(report.days, pollutant: chartPollutant))
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - Pieces

    /// `23 of 24` or `23/24시간`, as the dashboard writes it (`24시간 중 23시간` filled the gas table's 16-column cells).
    private func hoursOf(_ measured: Int, _ elapsed: Int) -> String {
        say("\(measured)/\(elapsed)시간", "\(measured) of \(elapsed)")
    }

    /// `Tomorrow      PM10 보통 (moderate)   PM2.5 나쁨 (bad)   forecast for 경기북부, 2026-11-22 17시 발표`.
    private func tomorrowLine(_ outlook: ForecastOutlook) -> String? {
        let grades = outlook.tomorrowGrades
        guard grades.fineDust != nil || grades.ultraFineDust != nil else { return nil }
        let issued = [grades.fineDust?.issuedAt, grades.ultraFineDust?.issuedAt].compactMap { $0 }.max()
        return pad(say("내일", "Tomorrow"), 14) + pad("PM10 " + forecastGradeText(grades.fineDust, style, language), 22)
            + pad("PM2.5 " + forecastGradeText(grades.ultraFineDust, style, language), 22)
            + say("\(outlook.region.rawValue) 예보", "forecast for \(outlook.region.rawValue)")
            + (issued.map { ", \(ForecastIssueTime.label($0)) 발표" } ?? "")
    }

    /// A week table line up to its grade column: label, hours, mean and intake of both pollutants.
    private func weekRow(_ label: String, _ totals: ExposureTotals) -> String {
        func pair(_ values: DustPair<String>, _ widths: (Int, Int), _ column: Int) -> String {
            pad("\(pad(values.fineDust, widths.0, alignRight: true)) \(pad(values.ultraFineDust, widths.1, alignRight: true))", column)
        }
        return pad(label, 15)
            + pair(totals.hours.map { String($0) }, (4, 5), 11)
            + pair(totals.mean.map { formatted($0) }, (5, 6), 14)
            + pair(totals.intake.map { formatted($0) }, (7, 7), 16)
    }

    private func concentrationWithGrade(_ value: Double?, _ pollutant: Pollutant, _ date: LocalDate) -> String {
        guard let value else { return "–" }
        let grade = DustGrade(concentration: value, of: pollutant, on: date)
        return style.graded("\(formattedConcentration(value)) µg/m³ \(language.bilingualGrade(grade))", grade)
    }

    private func totalsTable(_ totals: ExposureTotals, hoursOf elapsed: Int, label: String) -> [String] {
        func row(_ name: String, _ pm10: String, _ pm25: String, _ note: String = "") -> String {
            String((pad(name, 14) + pad(pm10, 22) + pad(pm25, 22) + note).reversed().drop { $0 == " " }.reversed())
        }
        func who(_ pollutant: Pollutant) -> String {
            guard let exceeded = totals.whoExceeded[pollutant] else { return "–" }
            let limit = formattedConcentration(pollutant.whoDailyGuideline)
            return exceeded
                ? style.graded(say("\(limit) 초과 ✗", "above \(limit) ✗"), .veryBad)
                : style.graded(say("\(limit) 이내 ✓", "within \(limit) ✓"), .good)
        }
        return [
            row("", style.bold("PM10 미세먼지"), style.bold("PM2.5 초미세먼지")),
            row(
                say("측정 시간", "Hours"), hoursOf(totals.hours.fineDust, elapsed), hoursOf(totals.hours.ultraFineDust, elapsed),
                say("지난 시간 중 측정된 시간", "measured of elapsed")),
            row(say("평균", "Mean"), "\(formatted(totals.mean.fineDust)) µg/m³", "\(formatted(totals.mean.ultraFineDust)) µg/m³"),
            row(
                say("최고", "Max"), "\(formattedConcentration(totals.max.fineDust)) µg/m³",
                "\(formattedConcentration(totals.max.ultraFineDust)) µg/m³"),
            row(
                say("등급", "Grade"), style.graded(language.grade(totals.grade.fineDust), totals.grade.fineDust),
                style.graded(language.grade(totals.grade.ultraFineDust), totals.grade.ultraFineDust)),
            row(say("WHO 24시간", "WHO 24 h"), who(.pm10), who(.pm25), say("권고 기준, µg/m³", "guideline, µg/m³")),
            row(
                say("흡입량", "Intake"), "\(formatted(totals.intake.fineDust)) \(unit)", "\(formatted(totals.intake.ultraFineDust)) \(unit)",
                [label, say("\(intakeModel.koreanName) 모델", "\(intakeModel.name) model")].filter { !$0.isEmpty }.joined(separator: ", ")),
        ]
    }

    /// `from 중구`, or `PM10 from 중구` when the hour's other value is the home station's.
    private func fallbackNotes(_ hour: HourlyExposure, primary: String) -> [String] {
        fallbackSources(hour, primary: primary).map { source in
            let station = TerminalSafeText.sanitized(source.station)
            let pollutant = source.only.map { "\($0.displayName) " } ?? ""
            return say("\(pollutant)\(station) 측정값", "\(pollutant)from \(station)")
        }
    }

    private func hourlyTable(_ hours: [HourlyExposure], primary: String) -> [String] {
        var lines = [
            pad(say("시간", "Hour"), 13) + pad("PM10", 6, alignRight: true) + pad("PM2.5", 7, alignRight: true)
                + pad(say("흡입량 PM10", "Intake PM10"), 13, alignRight: true) + pad("PM2.5", 8, alignRight: true) + say("  비고", "  Note")
        ]
        for hour in hours {
            var notes: [String] = []
            let flags = Set([hour.flag.fineDust, hour.flag.ultraFineDust].compactMap { $0 })
            notes.append(contentsOf: flags.sorted())
            notes.append(contentsOf: fallbackNotes(hour, primary: primary))
            if let distance = hour.walkingDistance {
                // Rounded, as the dashboard and the exports round it.
                let metres = Int(distance.rounded())
                notes.append(say("\(metres) m 걸음", "walked \(metres) m"))
            }
            // A tracked hour (docs/REFERENCE.md §19): its share and the nearest station the track's air came from.
            if let place = hour.place, place.kind == .track {
                let share = Int((place.trackedFraction * 100).rounded())
                if let nearest = place.nearest {
                    let near = "\(TerminalSafeText.sanitized(nearest.station)) \(fixedDecimals(nearest.kilometres, 1)) km"
                    notes.append(say("이동 경로 \(share)%, \(near)", "tracked \(share)%, near \(near)"))
                } else if place.fallback == .noStationWithinRadius {
                    // No station within the radius of the track (abroad): the home's value stood in for it, which the
                    // note said nothing of ("walked 2518 m" in Bangkok). (An hour without national data or station
                    // positions is the home station's, `home-station`, not a tracked one.)
                    notes.append(say("이동 경로 \(share)%, 가까운 측정소 없음: 집의 공기", "tracked \(share)%, no station near: home's air"))
                }
            }
            // The home's monitor replaced the estimate indoors (docs/REFERENCE.md §21).
            if let indoor = hour.indoor, indoor.source == .sensor {
                let inside = [("PM2.5", indoor.usable.ultraFineDust), ("PM10", indoor.usable.fineDust)].compactMap { name, value in
                    value.map { "\(name) \(formatted($0))" }
                }.joined(separator: " ")
                notes.append(say("실내 측정 \(inside)", "indoor sensor \(inside)"))
            }
            let grade10 = hour.concentration.fineDust.map {
                DustGrade(concentration: $0, of: .pm10, on: calendar.date(containing: hour.slot.start))
            }
            let grade25 = hour.concentration.ultraFineDust.map {
                DustGrade(concentration: $0, of: .pm25, on: calendar.date(containing: hour.slot.start))
            }
            lines.append(
                pad(slotLabel(hour.slot, calendar), 13)
                    + style.graded(pad(formattedConcentration(hour.concentration.fineDust), 6, alignRight: true), grade10)
                    + style.graded(pad(formattedConcentration(hour.concentration.ultraFineDust), 7, alignRight: true), grade25)
                    + pad(formatted(hour.intake.fineDust), 13, alignRight: true)
                    + pad(formatted(hour.intake.ultraFineDust), 8, alignRight: true)
                    + (notes.isEmpty ? "" : "  " + notes.joined(separator: ", ")))
        }
        return lines
    }

    /// One bar per day, scaled to the week's largest intake; eighth-block precision.
    private func chart(_ days: [DayReport], pollutant: Pollutant) -> [String] {
        let width = 50
        let values = days.map { $0.totals.intake[pollutant] }
        let largest = values.compactMap { $0 }.max() ?? 0
        let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return zip(days, values).map { day, value in
            let label = "\(language.weekday(day.date)) \(day.date.description.suffix(5))"
            guard let value else { return "\(label)  " + say("(측정값 없음)", "(no data)") }
            let units = largest > 0 ? Int((value / largest * Double(width * 8)).rounded()) : 0
            let bar = String(repeating: "█", count: units / 8) + eighths[units % 8]
            return "\(label)  " + style.graded(padExactly(bar, width), day.totals.grade[pollutant]) + " " + formatted(value)
        }
    }
}
