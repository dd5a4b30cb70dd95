import DustKit
import DustServices

// The gases panel (docs/REFERENCE.md §17), kept apart from the PM cards it follows.

extension DashboardRenderer {
    /// The latest hour's gases, each ppm in its CAI grade's colour with the day's highest hour,
    /// then AirKorea's integrated index with its grade. Shown only when a gas or the index is known.
    /// Today's gas hour is "latest" only while it is fresh (`DaemonHealth.staleAfter`, judged on the
    /// gases' own newest hour, which may be older than the dust's); else it is the newest stored.
    func gasCard(_ day: DayReport, isToday: Bool) -> HTML {
        let totals = day.gasTotals
        let latest = day.latestGases
        let current = latest.map { now.timeIntervalSince($0.slot.end) <= DaemonHealth.staleAfter } == true
        let tiles = Gas.allCases.map { gas -> HTML in
            let value = latest?.gases.ppm[gas]
            let grade = latest?.gases.grade[gas]
            let total = totals.gases[gas]
            let gradeClass: HTML = grade.map { " g\($0.rawValue)" } ?? .empty
            return """
                <div class="tile" data-gas="\(gas.rawValue)" data-ppm="\(DashboardFormat.json(value))" \
                data-grade="\(grade.map { DashboardFormat.json($0.rawValue) } ?? "null")">\
                <h3>\(text.gasName(gas)) <span class="aside">\(gas.displayName)</span></h3>\
                <p class="value compact ppm\(gradeClass)">\(DashboardFormat.ppm(value, gas))<span class="unit">ppm</span></p>\
                \(gradeChip(grade))\
                \(facts([(text.maximum, "\(DashboardFormat.ppm(total.max, gas))\u{A0}ppm"),
                         (text.hoursMeasured, "\(text.hoursOf(total.hours, day.elapsedSlots))")]))</div>
                """
        }
        let cai = latest?.gases.cai
        let caiGrade = latest?.gases.caiGrade
        let caiFacts = facts([
            (text.maximum, "\(totals.cai.max.map(String.init) ?? "–")"),
            (text.hoursMeasured, "\(text.hoursOf(totals.cai.hours, day.elapsedSlots))"),
        ])
        let aside: HTML = latest.map { " <span class=\"aside\">\(DashboardFormat.slotRange($0.slot, calendar))</span>" } ?? .empty
        return """
            <section class="card gases" data-cai="\(DashboardFormat.json(cai.map(Double.init)))" \
            data-cai-grade="\(caiGrade.map { DashboardFormat.json($0.rawValue) } ?? "null")">\
            <h2>\(isToday ? (current ? text.gasesLatest : text.gasesNewestStored) : text.gasesLastHour)\(aside)</h2><div class="pair">\(tiles)</div>\
            <div class="tile cai"><h3>\(text.caiName) <span class="aside">CAI</span></h3>\
            <p class="value compact">\(cai.map(String.init) ?? "–")</p>\(gradeChip(caiGrade))\(caiFacts)</div>\
            <p class="note">\(text.gasNote)</p></section>
            """
    }
}

extension DashboardText {
    func gasName(_ gas: Gas) -> String {
        guard language == .english else { return gas.koreanName }
        switch gas {
        case .o3: return "Ozone"
        case .no2: return "Nitrogen dioxide"
        case .co: return "Carbon monoxide"
        case .so2: return "Sulphur dioxide"
        }
    }

    var gasesLatest: String { language == .korean ? "대기가스 최근 1시간" : "Gases, latest hour" }
    var gasesNewestStored: String { language == .korean ? "대기가스 가장 최근 측정" : "Gases, newest stored hour" }
    var gasesLastHour: String { language == .korean ? "대기가스 마지막 1시간" : "Gases, last hour of the day" }
    var caiName: String { language == .korean ? "통합대기환경지수" : "Integrated air-quality index" }
    var gasNote: String {
        language == .korean
            ? "1시간 값(ppm), 통합대기환경지수 기준 등급. 지수와 등급은 에어코리아 발표값."
            : "1-hour values in ppm, graded by the CAI bands; the index and its grade as AirKorea publishes them."
    }
}

extension DashboardFormat {
    /// A gas in ppm with the decimals AirKorea publishes: 3 for O3, NO2 and SO2, 2 for CO; `–` when unknown.
    static func ppm(_ value: Double?, _ gas: Gas) -> String {
        guard let value, value.isFinite else { return "–" }
        return fixedDecimals(value, gas.displayDecimals)
    }
}
