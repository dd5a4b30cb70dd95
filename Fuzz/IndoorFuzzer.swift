// libFuzzer entry point for the indoor readers (scripts/fuzz.sh indoor): what a home's monitor answers
// dustd each minute (AirGradient, PurpleAir, Home Assistant's state and history) and the CSV that
// `dustctl indoor import` reads (docs/REFERENCE.md §21). The first byte chooses the reader; the rest is
// the answer or the file (its top bit chooses the pollutant of Home Assistant's readers).
import Foundation

/// The instant the CSV reader takes as now: rows after it plus a day are skipped, not stored.
private let now = Date(timeIntervalSince1970: 1_795_186_800)  // 2026-11-21T00:00:00+09:00
private let seoul = DayCalendar(timeZone: TimeZone(identifier: "Asia/Seoul")!)
/// A zone with daylight saving time: its repeated and skipped local hours.
private let newYork = DayCalendar(timeZone: TimeZone(identifier: "America/New_York")!)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndoor(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let body = Data(bytes: bytes + 1, count: count - 1)
    switch (bytes[0] & 0x7F) % 7 {
    case 0: checkAnswer { () throws(SensorProblem) in try SensorAnswer.airGradient(body) }
    case 1: checkAnswer { () throws(SensorProblem) in try SensorAnswer.purpleAir(body, epa2021: false) }
    case 2: checkAnswer { () throws(SensorProblem) in try SensorAnswer.purpleAir(body, epa2021: true) }
    case 3:
        let pollutant: Pollutant = bytes[0] & 0x80 == 0 ? .pm25 : .pm10
        checkAnswer { () throws(SensorProblem) in try SensorAnswer.homeAssistantState(body, pollutant: pollutant) }
    case 4: checkHistory(body, pollutant: bytes[0] & 0x80 == 0 ? .pm25 : .pm10)
    case 5: checkCSV(body, calendar: seoul)
    default: checkCSV(body, calendar: newYork)
    }
    return 0
}

/// A value FineDust may store: finite, not negative, at most 1,000 µg/m³.
private func checkPlausible(_ value: Double?) {
    guard let value else { return }
    precondition(IndoorSample.plausible(value) == value, "implausible value \(value) accepted")
}

/// A problem's sentence goes to dustd's log and `dustctl status` once when it starts: FineDust's own
/// words, no control character, and short whatever the answer held (a quote of 16 characters is at
/// most 64 scalars, 256 bytes, beside the sentence; a CSV line's 40 at most 640).
private func checkPrintable(_ text: String, limit: Int) {
    precondition(!TerminalSafeText.needsSanitizing(text), "a control character in \(text.debugDescription)")
    precondition(text.utf8.count <= limit, "a message of \(text.utf8.count) bytes")
}

private func checkAnswer(_ read: () throws(SensorProblem) -> SensorValues) {
    do {
        let values = try read()
        precondition(values.hasValue, "an answer read with no value")
        precondition(values.unknown >= 0)
        checkPlausible(values.value.fineDust)
        checkPlausible(values.value.ultraFineDust)
    } catch {
        checkPrintable(error.description, limit: 400)
    }
}

/// The entity and the day a history answer is read for (the seed's entity and day).
private let historyEntity = "sensor.study_pm25"
private let historyWindow = Date(timeIntervalSince1970: 1_705_276_800)..<Date(timeIntervalSince1970: 1_705_363_200)  // 2024-01-15, UTC

private func checkHistory(_ body: Data, pollutant: Pollutant) {
    do {
        let history = try SensorAnswer.homeAssistantHistory(body, entity: historyEntity, pollutant: pollutant, window: historyWindow)
        precondition(history.unknown >= 0)
        precondition(history.states.count <= 1_441, "\(history.states.count) states kept of one day's window")
        for (state, next) in zip(history.states, history.states.dropFirst()) {
            precondition(
                IndoorSample.minute(containing: state.at) < IndoorSample.minute(containing: next.at), "two states of one minute kept")
        }
        for state in history.states {
            precondition(historyWindow.contains(state.at), "a state outside the window asked: \(state.at)")
            precondition(state.at.timeIntervalSince1970.isFinite, "a state at \(state.at.timeIntervalSince1970)")
            let other: Pollutant = pollutant == .pm25 ? .pm10 : .pm25
            precondition(state.value[other] == nil, "a value of the pollutant the entity does not measure")
            // A state of no value is Home Assistant's `unavailable`: it ends the hold of the value before it.
            checkPlausible(state.value[pollutant])
        }
    } catch {
        checkPrintable(error.description, limit: 400)
    }
}

private func checkCSV(_ body: Data, calendar: DayCalendar) {
    do {
        let rows = try IndoorCSVParser(calendar: calendar, sensor: "fuzz").parse(body, now: now)
        let series = rows.series
        precondition(rows.implausible >= 0 && rows.datedOutsidePeriod >= 0 && rows.sameMinute >= 0)
        precondition(series.pm25.count == series.count && series.pm10.count == series.count && series.holds.count == series.count)
        for index in 0..<series.count {
            let minute = series.minutes[index]
            precondition(minute % 60 == 0, "a sample at second \(minute % 60) of its minute")
            precondition(
                SupportedPeriod.isPlausible(Date(timeIntervalSince1970: TimeInterval(minute)), now: now),
                "a sample outside the supported period: \(minute)")
            if index > 0 { precondition(series.minutes[index - 1] < minute, "samples not one a minute in time order") }
            // Each row holds for the file's usual step (its median), at least a sample's hold and at most a state's.
            precondition(series.holds[index] == series.holds[0], "rows of one file held for different times")
            precondition(
                (Int32(IndoorSample.sampledHoldSeconds)...Int32(IndoorSample.stateHoldSeconds)).contains(series.holds[index]),
                "a row held for \(series.holds[index]) s")
            for value in [series.pm25[index], series.pm10[index]] where !value.isNaN {
                checkPlausible(value)
            }
        }
    } catch {
        // The line's problem quotes at most 40 characters of the line (and counts the rest).
        checkPrintable(error.description, limit: 1_000)
        precondition(error.line >= 1)
    }
}
