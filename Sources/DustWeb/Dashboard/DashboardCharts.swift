import DustKit
import DustServices
import Foundation

/// The inline SVG charts: a day hour by hour, a week's intake as 7 bars, and the household's week.
///
/// Colours come from classes in the style sheet (`bar g1` … `g4`), so the charts follow dark mode and
/// need no `style` attribute. Each hour and each day is one `<g>` carrying its values in `data-`
/// attributes, exactly as `dustctl … --json` prints them. A chart is named once, by its first child
/// `<title>` (its accessible name): an `aria-label` beside it had a screen reader say the name twice.
extension DashboardRenderer {
    private static let width = 320.0

    /// One bar (or a gap) per slot of the day: PM10 above, PM2.5 below, WHO lines dashed.
    func hourChart(_ day: DayReport) -> HTML {
        let slots = calendar.slots(of: day.date)
        let byStart = Dictionary(day.hourly.map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
        let left = 30.0
        let right = 10.0
        let plotWidth = Self.width - left - right
        let slotWidth = plotWidth / Double(max(slots.count, 1))
        let barWidth = slotWidth * 0.72
        let panels: [(Pollutant, titleY: Double, top: Double, base: Double)] = [
            (.pm10, 11, 18, 84),
            (.pm25, 104, 111, 177),
        ]
        let height = 196.0
        let scales = DustPair(byPollutant: { pollutant in
            Self.niceCeiling(max(day.totals.max[pollutant] ?? 0, pollutant.whoDailyGuideline * 1.25))
        })

        var background: [HTML] = []
        var foreground: [HTML] = []
        for (pollutant, titleY, top, base) in panels {
            let scale = scales[pollutant]
            let title = "\(text.pollutantName(pollutant)) \(pollutant.displayName) · \(text.concentrationUnit)"
            background.append("<text class=\"title\" x=\"\(n(left))\" y=\"\(n(titleY))\">\(title)</text>")
            for fraction in [0.5, 1.0] {
                let y = base - (base - top) * fraction
                background.append("<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(n(y))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y))\"/>")
                background.append(
                    "<text x=\"\(n(left - 4))\" y=\"\(n(y + 3.5))\" text-anchor=\"end\">\(DashboardFormat.concentration(scale * fraction))</text>"
                )
            }
            background.append("<text x=\"\(n(left - 4))\" y=\"\(n(base + 3.5))\" text-anchor=\"end\">0</text>")
            let guideline = pollutant.whoDailyGuideline
            let whoY = base - (base - top) * guideline / scale
            foreground.append("<line class=\"who\" x1=\"\(n(left))\" y1=\"\(n(whoY))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(whoY))\"/>")
            foreground.append(
                "<text class=\"who-label\" x=\"\(n(left + plotWidth))\" y=\"\(n(whoY - 2.5))\" text-anchor=\"end\">WHO \(DashboardFormat.concentration(guideline))</text>"
            )
            foreground.append("<line class=\"axis\" x1=\"\(n(left))\" y1=\"\(n(base))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(base))\"/>")
        }

        var hours: [HTML] = []
        var labels: [HTML] = []
        var labelledHours: Set<Int> = []
        for (index, slot) in slots.enumerated() {
            let x = left + Double(index) * slotWidth
            let exposure = byStart[slot]
            let future = slot.end > now
            var marks: [HTML] = []
            if future {
                marks.append(
                    "<rect class=\"future\" x=\"\(n(x))\" y=\"\(n(panels[0].top))\" width=\"\(n(slotWidth))\" height=\"\(n(panels[1].base - panels[0].top))\"/>"
                )
            } else if let exposure {
                for (pollutant, _, top, base) in panels {
                    guard let value = exposure.concentration[pollutant], value.isFinite else { continue }
                    let grade = DustGrade(concentration: value, of: pollutant, on: day.date)
                    // A measured zero still shows as a sliver, so it never looks like a missing hour.
                    let barHeight = max(1, (base - top) * min(value, scales[pollutant]) / scales[pollutant])
                    let label = hourTitle(exposure, pollutant: pollutant, value: value, grade: grade, primary: day.station)
                    marks.append(
                        "<rect class=\"bar g\(grade.rawValue)\" x=\"\(n(x + (slotWidth - barWidth) / 2))\" y=\"\(n(base - barHeight))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" rx=\"1.5\"><title>\(label)</title></rect>"
                    )
                }
            }
            let localHour = calendar.hour(of: slot)
            let start = calendar.iso8601(slot.start)
            let values = exposure?.concentration ?? DustPair(repeating: nil)
            let intakes = exposure?.intake ?? DustPair(repeating: nil)
            hours.append(
                """
                <g class="hour\(future ? " future" : "")" data-hour="\(start)" data-pm10="\(DashboardFormat.json(values.fineDust))" \
                data-pm25="\(DashboardFormat.json(values.ultraFineDust))" data-intake-pm10="\(DashboardFormat.measuredJSON(intakes.fineDust))" \
                data-intake-pm25="\(DashboardFormat.measuredJSON(intakes.ultraFineDust))">\(marks)</g>
                """)
            // A day that falls back has one hour twice; it is labelled once.
            if localHour % 3 == 0, labelledHours.insert(localHour).inserted {
                labels.append("<text x=\"\(n(x))\" y=\"\(n(height - 5))\" text-anchor=\"middle\">\(localHour)</text>")
            }
        }
        labels.append("<text x=\"\(n(left + plotWidth))\" y=\"\(n(height - 5))\" text-anchor=\"middle\">24</text>")

        let label = text.hourChartLabel(station: day.station, date: day.date)
        return """
            <svg class="chart" viewBox="0 0 \(n(Self.width)) \(n(height))" role="img">\
            <title>\(label)</title>\(background)\(hours)\(foreground)\(labels)</svg>
            """
    }

    /// `13:00–14:00 · 미세먼지 PM10 41 µg/m³ · 보통 · 점검및교정 · from 중구`.
    private func hourTitle(_ exposure: HourlyExposure, pollutant: Pollutant, value: Double, grade: DustGrade, primary: String) -> String {
        var parts = [
            DashboardFormat.slotRange(exposure.slot, calendar),
            "\(text.pollutantName(pollutant)) \(pollutant.displayName) \(DashboardFormat.concentration(value)) \(text.concentrationUnit)",
            text.gradeName(grade),
        ]
        if let flag = exposure.flag[pollutant] { parts.append(text.flagName(flag)) }
        if let source = exposure.source[pollutant], source != primary { parts.append(text.fromStation(source)) }
        return parts.joined(separator: " · ")
    }

    /// One bar per day (the original app's view), PM10 above and PM2.5 below, today marked; each day
    /// links to its page.
    func weekChart(_ week: WeekReport) -> HTML {
        let left = 4.0
        let right = 4.0
        let plotWidth = Self.width - left - right
        let slotWidth = plotWidth / Double(max(week.days.count, 1))
        let barWidth = slotWidth * 0.5
        let panels: [(Pollutant, titleY: Double, top: Double, base: Double)] = [
            (.pm10, 11, 30, 86),
            (.pm25, 106, 125, 181),
        ]
        let height = 214.0
        let largest = DustPair(byPollutant: { pollutant in
            week.days.compactMap { $0.totals.intake[pollutant] }.filter(\.isFinite).max() ?? 0
        })

        var background: [HTML] = []
        for (pollutant, titleY, _, base) in panels {
            let title = "\(text.pollutantName(pollutant)) \(pollutant.displayName) · \(text.intakeUnit(intakeUnit))"
            background.append("<text class=\"title\" x=\"\(n(left))\" y=\"\(n(titleY))\">\(title)</text>")
            background.append("<line class=\"axis\" x1=\"\(n(left))\" y1=\"\(n(base))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(base))\"/>")
        }

        var days: [HTML] = []
        for (index, day) in week.days.enumerated() {
            let x = left + Double(index) * slotWidth
            let center = x + slotWidth / 2
            let isToday = day.date == today
            var marks: [HTML] = []
            if isToday {
                marks.append(
                    "<rect class=\"band\" x=\"\(n(x + 1))\" y=\"\(n(panels[0].titleY + 5))\" width=\"\(n(slotWidth - 2))\" height=\"\(n(height - panels[0].titleY - 6))\" rx=\"6\"/>"
                )
            }
            let started = day.date <= today
            for (pollutant, _, top, base) in panels where started {
                guard let intake = day.totals.intake[pollutant], intake.isFinite else {
                    marks.append("<text class=\"amount\" x=\"\(n(center))\" y=\"\(n(base - 3))\" text-anchor=\"middle\">–</text>")
                    continue
                }
                let barHeight = largest[pollutant] > 0 ? (base - top) * max(intake, 0) / largest[pollutant] : 0
                let grade = day.totals.grade[pollutant].map { " g\($0.rawValue)" } ?? ""
                if barHeight > 0 {
                    marks.append(
                        "<rect class=\"bar\(grade)\" x=\"\(n(center - barWidth / 2))\" y=\"\(n(base - barHeight))\" width=\"\(n(barWidth))\" height=\"\(n(barHeight))\" rx=\"2\"/>"
                    )
                }
                marks.append(
                    "<text class=\"amount\" x=\"\(n(center))\" y=\"\(n(base - barHeight - 3))\" text-anchor=\"middle\">\(DashboardFormat.intake(intake, intakeUnit))</text>"
                )
            }
            marks += dayLabels(day.date, center: center, height: height, first: index == 0)
            let intake = day.totals.intake
            let summary =
                "\(text.longDate(day.date))\(isToday ? " (\(text.todayMark))" : "") · "
                + Pollutant.allCases.map {
                    "\($0.displayName) \(DashboardFormat.intake(intake[$0], intakeUnit)) \(text.intakeUnit(intakeUnit))"
                }
                .joined(separator: " · ")
            let group: HTML = """
                <g class="day\(isToday ? " today" : "")" data-date="\(day.date.description)" \
                \(dataAttributes(day.totals, includeWHO: false))><title>\(summary)</title>\(marks)</g>
                """
            days.append(linkedToDay(day.date, group))
        }

        let label = text.weekChartLabel(station: station)
        return """
            <svg class="chart" viewBox="0 0 \(n(Self.width)) \(n(height))" role="img">\
            <title>\(label)</title>\(background)\(days)</svg>
            """
    }

    /// The household's week as bars (docs/REFERENCE.md §18): per day, each person's PM2.5 intake side
    /// by side, one colour per person (named in the legend above), the same numbers as the table below
    /// it; today marked, each day linking to its page.
    func householdChart(_ household: [DashboardModel.PersonWeek]) -> HTML {
        guard household.count > 1, let days = household.first?.week.days else { return .empty }
        let (left, right) = (4.0, 4.0)
        let plotWidth = Self.width - left - right
        // The legend: a swatch and the name of each person, in the configured order, in as many rows
        // as the names need (a Hangul letter is about twice as wide as a Latin one); a name wider than
        // the chart is shortened with an ellipsis, whole in its tooltip and the table below.
        var legend: [HTML] = []
        var (legendX, row) = (left, 0)
        for (index, entry) in household.enumerated() {
            let name = Self.legendName(entry.person, fitting: plotWidth - 11)
            let advance = 11 + Self.labelWidth(name) + 14
            if legendX > left, legendX + advance - 14 > left + plotWidth { (legendX, row) = (left, row + 1) }
            let y = 18 + 16 * Double(row)
            legend.append(
                "<rect class=\"person p\(index % Self.personColours)\" x=\"\(n(legendX))\" y=\"\(n(y))\" width=\"8\" height=\"8\" rx=\"2\"/>"
            )
            legend.append(
                "<text class=\"label\" x=\"\(n(legendX + 11))\" y=\"\(n(y + 7.5))\"><title>\(entry.person)</title>\(name)</text>")
            legendX += advance
        }
        let below = 16 * Double(row)
        let (top, base, height) = (34.0 + below, 150.0 + below, 184.0 + below)
        let slotWidth = plotWidth / Double(max(days.count, 1))
        let groupWidth = slotWidth * 0.8
        let barWidth = groupWidth / Double(household.count)
        let largest = household.flatMap { $0.week.days.compactMap { $0.totals.intake.ultraFineDust } }.filter(\.isFinite).max() ?? 0
        let unit = text.intakeUnit(intakeUnit)

        var marks: [HTML] = [
            "<text class=\"title\" x=\"\(n(left))\" y=\"11\">\(text.pollutantName(.pm25)) \(Pollutant.pm25.displayName) · \(unit)</text>",
            "<line class=\"axis\" x1=\"\(n(left))\" y1=\"\(n(base))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(base))\"/>",
        ]
        marks += legend
        for (index, day) in days.enumerated() {
            let x = left + Double(index) * slotWidth
            let center = x + slotWidth / 2
            let isToday = day.date == today
            var group: [HTML] = []
            if isToday {
                group.append(
                    "<rect class=\"band\" x=\"\(n(x + 1))\" y=\"\(n(top - 4))\" width=\"\(n(slotWidth - 2))\" height=\"\(n(height - top + 3))\" rx=\"6\"/>"
                )
            }
            var summary: [String] = []
            for (person, entry) in household.enumerated() {
                let intake = entry.week.days[index].totals.intake.ultraFineDust
                summary.append("\(entry.person) \(DashboardFormat.intake(intake, intakeUnit)) \(unit)")
                guard let intake, intake.isFinite, largest > 0, intake > 0 else { continue }
                let barHeight = (base - top) * intake / largest
                let barX = center - groupWidth / 2 + Double(person) * barWidth
                group.append(
                    """
                    <rect class="person p\(person % Self.personColours)" x="\(n(barX + 0.5))" y="\(n(base - barHeight))" \
                    width="\(n(max(barWidth - 1, 1)))" height="\(n(barHeight))" rx="1.5" data-bar-of="\(entry.person)" \
                    data-intake="\(DashboardFormat.measuredJSON(intake))"/>
                    """)
            }
            group += dayLabels(day.date, center: center, height: height, first: index == 0)
            let title =
                "\(text.longDate(day.date))\(isToday ? " (\(text.todayMark))" : "") · \(Pollutant.pm25.displayName) · "
                + summary.joined(separator: " · ")
            let element: HTML = """
                <g class="day\(isToday ? " today" : "")" data-household-date="\(day.date.description)"><title>\(title)</title>\(group)</g>
                """
            marks.append(linkedToDay(day.date, element))
        }
        let label = text.householdChartLabel
        return """
            <svg class="chart household-chart" viewBox="0 0 \(n(Self.width)) \(n(height))" role="img">\
            <title>\(label)</title>\(marks)</svg>
            """
    }

    /// About how wide `label` is drawn at the chart's label size (11 units on a phone, the widest it is
    /// drawn): a Hangul, CJK or full-width letter about 11.5, any other about 7.
    static func labelWidth(_ label: String) -> Double {
        label.unicodeScalars.reduce(0) { width, scalar in
            switch scalar.value {
            case 0x1100...0x11FF, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0xFFE0...0xFFE6:
                width + 11.5
            default: width + 7
            }
        }
    }

    /// `name`, or as much of it as fits in `width` followed by an ellipsis.
    static func legendName(_ name: String, fitting width: Double) -> String {
        guard labelWidth(name) > width else { return name }
        var shown = ""
        for character in name {
            guard labelWidth(shown + String(character)) + 7 <= width else { break }
            shown.append(character)
        }
        return shown + "…"
    }

    /// How many people have a colour of their own in the household's chart (`.person.p0` … in the style sheet).
    static let personColours = 6

    /// A day's two labels under its bars: the weekday, then the date (with its month on the first day).
    private func dayLabels(_ date: LocalDate, center: Double, height: Double, first: Bool) -> [HTML] {
        [
            "<text class=\"label\" x=\"\(n(center))\" y=\"\(n(height - 18))\" text-anchor=\"middle\">\(text.weekdayShort(date))</text>",
            "<text class=\"label\" x=\"\(n(center))\" y=\"\(n(height - 5))\" text-anchor=\"middle\">\(text.barDate(date, first: first))</text>",
        ]
    }

    /// `element` as a link to the page of `date`, where there is one.
    private func linkedToDay(_ date: LocalDate, _ element: HTML) -> HTML {
        dayLink(date).map { (href: String) -> HTML in "<a href=\"\(href)\">\(element)</a>" } ?? element
    }

    /// The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above `value`: a round top for an axis.
    static func niceCeiling(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 10 }
        let power = pow(10, (log10(value)).rounded(.down))
        for multiple in [1, 2, 2.5, 5, 10] where multiple * power >= value * (1 - 1e-12) {
            return multiple * power
        }
        return 10 * power
    }

    /// A coordinate with at most one decimal.
    func n(_ value: Double) -> String {
        DashboardFormat.concentration(value)
    }
}
