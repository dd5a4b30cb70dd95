import DustKit
import DustServices
import Foundation

/// The day's indoor-versus-outdoor chart (docs/REFERENCE.md §21), only for a person with indoor sensors:
/// per hour the monitor's PM2.5 as a bar and the outdoor PM2.5 as a line, the hours away shaded.
extension DashboardRenderer {
    func indoorCard(_ day: DayReport) -> HTML {
        guard let summary = day.indoor else { return .empty }
        let slots = calendar.slots(of: day.date)
        let byStart = Dictionary(day.hourly.map { ($0.slot, $0) }, uniquingKeysWith: { first, _ in first })
        let (width, height, left, right, top, base) = (320.0, 118.0, 30.0, 10.0, 8.0, 96.0)
        let plotWidth = width - left - right
        let slotWidth = plotWidth / Double(max(slots.count, 1))
        let largest = day.hourly.flatMap { [$0.concentration.ultraFineDust, $0.indoor?.measured?.value.ultraFineDust] }.compactMap { $0 }
            .max()
        let scale = Self.niceCeiling(max(largest ?? 0, Pollutant.pm25.whoDailyGuideline * 1.25))
        func y(_ value: Double) -> Double { base - (base - top) * min(value, scale) / scale }
        var marks: [HTML] = []
        for fraction in [0.5, 1.0] {
            marks.append(
                "<line class=\"grid\" x1=\"\(n(left))\" y1=\"\(n(y(scale * fraction)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(y(scale * fraction)))\"/>"
            )
            marks.append(
                "<text x=\"\(n(left - 4))\" y=\"\(n(y(scale * fraction) + 3.5))\" text-anchor=\"end\">\(DashboardFormat.concentration(scale * fraction))</text>"
            )
        }
        marks.append("<text x=\"\(n(left - 4))\" y=\"\(n(base + 3.5))\" text-anchor=\"end\">0</text>")
        var outdoorPoints: [String] = []
        var hours: [HTML] = []
        var labels: [HTML] = []
        for (index, slot) in slots.enumerated() {
            let x = left + Double(index) * slotWidth
            let hour = byStart[slot]
            let indoor = hour?.indoor
            let inside = indoor?.measured?.value.ultraFineDust
            let outside = hour?.concentration.ultraFineDust
            var parts: [HTML] = []
            if let indoor, !indoor.atHome {
                parts.append("<rect class=\"away\" x=\"\(n(x))\" y=\"\(n(top))\" width=\"\(n(slotWidth))\" height=\"\(n(base - top))\"/>")
            }
            if let inside {
                let title = text.indoorHourTitle(
                    hours: DashboardFormat.slotRange(slot, calendar), indoor: DashboardFormat.concentration(inside),
                    outdoor: DashboardFormat.concentration(outside))
                parts.append(
                    "<rect class=\"bar indoor\" x=\"\(n(x + slotWidth * 0.14))\" y=\"\(n(y(inside) - (inside > 0 ? 0 : 1)))\" width=\"\(n(slotWidth * 0.72))\" height=\"\(n(max(1, base - y(inside))))\" rx=\"1.5\"><title>\(title)</title></rect>"
                )
            }
            if let outside { outdoorPoints.append("\(n(x + slotWidth / 2)),\(n(y(outside)))") }
            hours.append(
                """
                <g class="indoor-hour" data-indoor-hour="\(calendar.iso8601(slot.start))" data-indoor-pm25="\(DashboardFormat.measuredJSON(inside))" \
                data-outdoor-pm25="\(DashboardFormat.json(outside))" data-indoor-source="\(indoor?.source.rawValue ?? "")">\(parts)</g>
                """)
            let localHour = calendar.hour(of: slot)
            if localHour % 6 == 0 { labels.append("<text x=\"\(n(x))\" y=\"\(n(height - 5))\" text-anchor=\"middle\">\(localHour)</text>") }
        }
        labels.append("<text x=\"\(n(left + plotWidth))\" y=\"\(n(height - 5))\" text-anchor=\"middle\">24</text>")
        let outdoorLine: HTML =
            outdoorPoints.count > 1 ? "<polyline class=\"outdoor\" points=\"\(outdoorPoints.joined(separator: " "))\"/>" : .empty
        let axis: HTML = "<line class=\"axis\" x1=\"\(n(left))\" y1=\"\(n(base))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(base))\"/>"
        let label = text.indoorChartLabel(date: day.date)
        let chart: HTML = """
            <svg class="chart" viewBox="0 0 \(n(width)) \(n(height))" role="img">\
            <title>\(label)</title>\(marks)\(hours)\(outdoorLine)\(axis)\(labels)</svg>
            """
        let line: String
        if summary.sensorHours > 0 {
            let ratio = [("PM2.5", summary.ratio.ultraFineDust), ("PM10", summary.ratio.fineDust)].compactMap { name, value in
                value.map { "\(name) \(fixedDecimals($0, 2))" }
            }.joined(separator: ", ")
            let change = [("PM2.5", summary.intakeChange.ultraFineDust), ("PM10", summary.intakeChange.fineDust)].compactMap {
                name, value in
                value.map { "\(name) \($0 > 0 ? "+" : "")\(DashboardFormat.intake($0, intakeUnit)) \(text.intakeUnit(intakeUnit))" }
            }.joined(separator: ", ")
            line = text.indoorSummary(ratio: ratio, infiltration: fixedDecimals(summary.infiltration, 2), change: change)
        } else {
            line = text.indoorNone
        }
        return """
            <section class="card indoor"><h2>\(text.indoorVersusOutdoor)</h2>\(chart)\
            <ul class="legend"><li><span class="swatch indoor" aria-hidden="true"></span>\(text.indoorLegend)</li>\
            <li><span class="swatch outdoor" aria-hidden="true"></span>\(text.outdoorLegend)</li>\
            <li><span class="swatch away" aria-hidden="true"></span>\(text.indoorAway)</li></ul>\
            <p class="note">\(line)</p></section>
            """
    }
}
