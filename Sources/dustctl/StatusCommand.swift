import ArgumentParser
import DustConfig
import DustKit
import DustReports
import DustServices
import Foundation

struct StatusCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "status",
            abstract: helpAbstract(
                "dustd의 상태: 마지막 성공, 마지막 오류와 해결 방법, 다음 수집, 저장된 행 수, 데이터가 오래되었는지.",
                "What dustd is doing: last success, last error and its fix, next poll, rows stored, staleness."),
            discussion: helpText(
                """
                cron과 모니터링을 위한 종료 코드: 0 dustd가 실행 중이고 데이터가 최신임;
                3 dustd가 실행 중이 아님(중지됨, 정상 종료 없이 끝남, 실행된 적 없음, 또는
                마지막 실행이 --once); 4 dustd가 실행 중이지만 응답하지 않거나(프로세스는
                살아 있고 하트비트가 늦음), 데이터가 오래되었거나(3시간 동안 새 값 없음)
                이 기기의 시계보다 앞서 있거나(시계가 늦음), 마지막 수집이 실패함. 예:
                  dustctl status
                  dustctl status --json
                """,
                """
                Exit status, for cron and monitoring: 0 dustd is running and the data is
                fresh; 3 dustd is not running (stopped, gone without stopping, never run,
                or last run by --once); 4 dustd is running but not responding (its process
                is alive and its heartbeat late), the data is stale (nothing new for 3
                hours) or ahead of this machine's clock (the clock is behind), or the last
                poll failed. Examples:
                  dustctl status
                  dustctl status --json
                """))
    }

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures {
            let settings = try options.settings()
            // Korean under a Korean locale (`LC_ALL`, `LC_MESSAGES`, `LANG`), English otherwise; `--json` is the same in both.
            let words = StatusWords(language: ReportLanguage.process)
            let station = settings.station.name
            let now = try options.clock(settings).now
            // No database yet where dustd keeps it (a new install, dustd not started): never run, as an
            // empty database would say, rather than a missing file (66) to a monitor's first check.
            // Only a file that is not there (ENOENT): one this user may not reach is said as every command says it.
            var status = stat()
            if case .sqlite(let path) = settings.storage, stat(path, &status) != 0, errno == ENOENT {
                let health = DaemonHealth(status: nil, newestSlot: nil, now: now, processIsDustd: processIsDustd)
                try show(
                    health, settings: settings, rows: 0, forecastCalls: 0, now: now, words: words,
                    notes: [
                        words.say(
                            "\(path)에 아직 데이터베이스가 없습니다. dustd가 처음 시작할 때 만듭니다.",
                            "There is no database at \(path) yet; dustd creates it when it first starts.")
                    ])
                return
            }
            try await withStore(settings, for: .read) { store in
                let reading = try await StatusReading.read(from: store, station: station, now: now, processIsDustd: processIsDustd)
                let asked = settings.indoor.askedSensorNames
                let indoor = !options.json || asked.isEmpty ? [] : try await store.indoorSensorStates().filter { asked.contains($0.sensor) }
                var notes: [String] = []
                if !options.json {
                    if let location = try await locationLine(settings, store: store, words: words) { notes.append(location) }
                    notes += try await indoorLines(settings, store: store, now: now, words: words)
                }
                try show(
                    reading.health, settings: settings, rows: reading.rows, forecastCalls: reading.forecastCallsToday, now: now,
                    words: words, indoor: indoor, notes: notes)
            }
        }
    }

    /// The status on stdout, `--json` or text with `notes` after it, and the exit status its answer.
    private func show(
        _ health: DaemonHealth, settings: FineDustSettings, rows: Int, forecastCalls: Int, now: Date, words: StatusWords,
        indoor: [IndoorSensorState] = [], notes: [String]
    ) throws {
        // The exit status is the answer (`dustctl status | grep -q …` in a monitor's check): a
        // reader that stops reading does not turn "not running" into 0.
        func write(_ text: String) throws(OutputError) {
            do throws(OutputError) {
                try standardOutputLine(text)
            } catch .closedPipe where health.exitStatus != 0 {
                return
            }
        }
        if options.json {
            try write(
                ReportJSON.status(
                    health, database: settings.storage.description, station: settings.station.name, rows: rows,
                    calendar: settings.calendar, forecastCallsToday: forecastCalls, indoor: indoor
                ).serialized)
        } else {
            try write(
                ([text(health, settings: settings, rows: rows, forecastCalls: forecastCalls, now: now, words: words)] + notes)
                    .joined(separator: "\n"))
        }
        if health.exitStatus != 0 { throw ExitCode(health.exitStatus) }
    }

    private func text(
        _ health: DaemonHealth, settings: FineDustSettings, rows: Int, forecastCalls: Int, now: Date, words: StatusWords
    ) -> String {
        let style = TextStyle.forStandardOutput()
        let calendar = settings.calendar
        let label = words.label
        func when(_ date: Date) -> String {
            let seconds = now.timeIntervalSince(date)
            // Stamped after now: by this machine's clock while it was ahead (a Raspberry Pi's, set right
            // since), or it is behind now. Said so, not "0 min ago" (a minute's difference is the clocks').
            if seconds < -60 {
                let ahead = words.age(-seconds)
                return words.say(
                    "\(calendar.iso8601(date)) (이 컴퓨터의 시계보다 \(ahead) 뒤: 시계가 틀렸거나 틀렸었습니다)",
                    "\(calendar.iso8601(date)) (\(ahead) after this machine's clock: the clock is or was wrong)")
            }
            let age = words.age(seconds)
            return words.say("\(calendar.iso8601(date)) (\(age) 전)", "\(calendar.iso8601(date)) (\(age) ago)")
        }
        let status = health.status
        var lines = [style.bold("FineDust · \(settings.storage.description)")]
        lines.append(label("측정소", "Station") + (settings.station.name ?? words.say("– (station.name 미설정)", "– (station.name is not set)")))
        let daemon = label("dustd", "dustd") + words.daemon(health)
        lines.append(health.daemon == .running ? daemon : style.graded(daemon, .bad))
        // Said only when the poller is another machine (several dustd on one database, docs/REFERENCE.md §20).
        if health.elsewhere, let status, let host = status.host {
            lines.append(label("수집하는 곳", "Poller") + words.say("호스트", "host") + " \(TerminalSafeText.sanitized(host)), PID \(status.pid)")
        }
        if let next = health.nextPoll { lines.append(label("다음 수집", "Next poll") + calendar.iso8601(next)) }
        if let refused = status?.reloadRefused {
            // Only a running dustd still runs its previous configuration.
            let outcome =
                health.daemon == .running
                ? words.say("거부됨, 이전 설정으로 계속 실행 중", "refused, still running the previous configuration")
                : words.say("\(calendar.iso8601(refused.at))에 거부됨", "refused at \(calendar.iso8601(refused.at))")
            lines.append(style.graded(label("설정 다시 읽기", "Reload"), .bad) + "\(outcome): \(refused.reason)")
        }
        lines.append(
            label("마지막 성공", "Last success")
                + (status?.lastSuccess.map {
                    words.say(
                        "\(when($0.at)): 새 값 \($0.rowsNew), 고친 값 \($0.rowsUpdated)",
                        "\(when($0.at)): \($0.rowsNew) new, \($0.rowsUpdated) revised")
                } ?? words.say("없음", "never")))
        if let failure = status?.lastError {
            let errorLabel = label("마지막 오류", "Last error")
            let code = failure.resultCode.map { words.say(", 결과 코드 \($0)", ", code \($0)") } ?? ""
            // The kind in words, as the dashboard names it; in English the record's own name.
            let kind = words.say(failure.kind.koreanName, failure.kind.rawValue)
            lines.append(
                (status?.lastPollFailed == true ? style.graded(errorLabel, .veryBad) : errorLabel)
                    + "\(when(failure.at)) (\(kind)\(code))")
            lines.append(label("", "") + words.say(failure.koreanMessage, failure.message))
        }
        let data =
            label("데이터", "Data")
            + words.say("\(rows)행; ", "\(rows) rows; ")
            + (health.clockBehind.map { behind in
                words.say("가장 최근 시간이 이 기기의 시계보다 \(words.age(behind)) 뒤에 끝남 — 시계를 확인하세요 (timedatectl)", health.dataSummary)
            } ?? health.dataAge.map { age in
                words.say("가장 최근 시간이 \(words.age(age)) 전에 끝남" + (health.stale ? " — 오래됨" : ""), health.dataSummary)
            } ?? words.say("저장된 시간 없음", health.dataSummary))
        lines.append(health.stale || health.clockBehind != nil ? style.graded(data, .bad) : data)
        lines.append(
            forecastLine(status?.forecast, nextFetch: health.nextForecastFetch, settings: settings, calls: forecastCalls, words: words))
        if let failure = status?.forecast?.lastError {
            lines.append(label("", "") + words.say("마지막 오류", "last error") + " \(when(failure.at)): \(failure.message)")
        }
        // Said only when an advisory service is off: otherwise the text is what it always was.
        for off in status?.advisories?.turnedOff ?? [] {
            lines.append(
                style.graded(label("주의보·경보", "Advisories"), .bad)
                    + words.say(
                        "\(off.pollutant.displayName) \(calendar.iso8601(off.at))부터 꺼짐: \(off.remedy)",
                        "\(off.pollutant.displayName) off since \(calendar.iso8601(off.at)): \(off.remedy)"))
        }
        return lines.joined(separator: "\n")
    }

    /// A line per indoor sensor that has a problem now, with its fix (docs/REFERENCE.md §21); none
    /// when every sensor answers (or none is configured).
    private func indoorLines(_ settings: FineDustSettings, store: any FineDustStore, now: Date, words: StatusWords) async throws -> [String]
    {
        let asked = settings.indoor.askedSensorNames
        guard !asked.isEmpty else { return [] }
        let style = TextStyle.forStandardOutput()
        return try await store.indoorSensorStates().filter { asked.contains($0.sensor) }.compactMap { state in
            guard let problem = state.problem else { return nil }
            let since =
                state.problemSince.map { words.say(" (\(settings.calendar.iso8601($0))부터)", " since \(settings.calendar.iso8601($0))") }
                ?? ""
            return style.graded(words.label("실내 측정기", "Indoor"), .bad)
                + "\(state.sensor)\(since): it \(TerminalSafeText.sanitized(problem))"
        }
    }

    /// What following people needs (docs/REFERENCE.md §19), said only when someone has a `home` or
    /// a stored track: national data (`station.mode: nation`) and a station list with positions.
    private func locationLine(_ settings: FineDustSettings, store: any FineDustStore, words: StatusWords) async throws -> String? {
        let tracked = Set(try await store.positionSummaries().map(\.person))
        let homes = settings.people.filter { $0.home != nil }.map(\.name)
        let people = settings.people.map(\.name).filter { tracked.contains($0) || homes.contains($0) }
        guard !people.isEmpty else { return nil }
        let placed = StationPositions(stations: try await store.stations()).count
        var needs: [String] = []
        if settings.station.mode != .nation {
            needs.append(
                words.say(
                    "station.mode: nation (모든 측정소의 시간값; 지금은 \(settings.station.mode.rawValue))",
                    "station.mode: nation (every station's hour; now \(settings.station.mode.rawValue))"))
        }
        if placed == 0 {
            needs.append(words.say("위치가 있는 측정소 목록 (dustctl stations sync)", "the station list with positions (dustctl stations sync)"))
        }
        let who = people.map { TerminalSafeText.sanitized($0) }.joined(separator: ", ")
        let radius = fixedDecimals(settings.location.radiusKilometres, 1)
        guard needs.isEmpty else {
            return words.label("위치", "Location")
                + words.say(
                    "\(who)의 위치를 따르려면 " + needs.joined(separator: ", ") + "이(가) 필요합니다; 그때까지는 집 측정소의 값을 씁니다",
                    "following \(who) needs " + needs.joined(separator: " and ") + "; until then their hours use the home station's values")
        }
        return words.label("위치", "Location")
            + words.say(
                "\(who)의 위치를 \(radius) km 안에서 따름 (측정소 \(placed)곳)", "following \(who) within \(radius) km (\(placed) stations placed)")
    }

    /// `Forecast      4/12 calls today (KST); latest issue 2026-11-22 11시; next fetch …`.
    private func forecastLine(
        _ run: DaemonStatus.ForecastRun?, nextFetch: Date?, settings: FineDustSettings, calls: Int, words: StatusWords
    ) -> String {
        let cap = ForecastPlanner.dailyCallCap
        var line =
            words.label("예보", "Forecast") + words.say("오늘 호출 \(calls)/\(cap)회 (한국 시간)", "\(calls)/\(cap) calls today (KST)")
        guard settings.forecast.enabled else { return line + words.say("; forecast.enabled가 false", "; forecast.enabled is false") }
        if let issue = run?.latestIssue { line += words.say("; 최근 예보 ", "; latest issue ") + "\(ForecastIssueTime.label(issue)) 발표" }
        if let next = nextFetch { line += words.say("; 다음 조회 ", "; next fetch ") + settings.calendar.iso8601(next) }
        return line
    }
}

/// The words of `dustctl status` in the locale's language (docs/REFERENCE.md §12). What dustd wrote (an
/// error's message, a remedy, a sensor's problem) is shown as dustd wrote it, in English.
struct StatusWords {
    let language: ReportLanguage

    func say(_ korean: String, _ english: String) -> String { language.say(korean, english) }

    /// A line's label, padded to the column the values start in (14 columns, by display width).
    func label(_ korean: String, _ english: String) -> String { padExactly(say(korean, english), 14) }

    /// `12분`, `5시간`, `3일` or `12 min`, `5 h`, `3 days`: `DaemonHealth.age`'s steps in either language.
    func age(_ seconds: TimeInterval) -> String {
        language == .korean ? DaemonHealth.age(seconds, minutesUnit: "분", hoursUnit: "시간", daysUnit: "일") : DaemonHealth.age(seconds)
    }

    /// What dustd is doing, as `DaemonHealth.daemonSummary` says it in English.
    func daemon(_ health: DaemonHealth) -> String {
        guard language == .korean else { return health.daemonSummary }
        let status = health.status
        switch health.daemon {
        case .neverRun:
            return "이 데이터베이스로 실행된 적 없음"
        case .stopped:
            let how = status?.mode == .once ? "한 번 실행하고 끝남 (--once)" : "정상 종료"
            return how + (status?.stoppedAt.map { " (\(KoreaStandardTime.iso8601($0)))" } ?? "")
        case .gone where health.elsewhere:
            guard let status else { return "실행 중 아님" }
            return "실행 중 아님: 하트비트가 늦음 (\(status.host ?? "?")의 PID \(status.pid), 마지막 \(KoreaStandardTime.iso8601(status.heartbeatAt)); "
                + "다른 컴퓨터의 프로세스는 하트비트로만 판단합니다); \(status.host ?? "그 컴퓨터")에서 `journalctl -u dustd`를 확인하세요"
        case .gone:
            let pid = status.map { " (PID \($0.pid))" } ?? ""
            let heartbeat = status.map { ", 마지막 하트비트 \(KoreaStandardTime.iso8601($0.heartbeatAt))" } ?? ""
            return "실행 중 아님: 정상 종료 없이 끝남\(pid)\(heartbeat); `journalctl -u dustd`를 확인하세요"
        case .notResponding:
            guard let status else { return "응답 없음" }
            return "응답 없음: PID \(status.pid) 프로세스는 살아 있으나 마지막 하트비트가 \(KoreaStandardTime.iso8601(status.heartbeatAt))"
                + " (\(Int(status.heartbeatSeconds))초마다 예상); `journalctl -u dustd`와 디스크를 확인하거나 `systemctl restart dustd`로 다시 시작하세요"
        case .running:
            guard let status else { return "실행 중" }
            let doing: String =
                switch status.state {
                case .starting: "시작하는 중"
                case .polling: "지금 에어코리아에서 수집 중"
                case .idle: "대기 중"
                case .backingOff: "일시적인 오류 뒤 다시 시도하는 중"
                case .quotaExhausted: "일일 호출 한도가 초기화되기를 기다리는 중 (한국 시간 00:00)"
                case .waitingForNextHour: "다음 시간을 기다리는 중 (서비스 키나 설정 문제)"
                case .stopping: "멈추는 중"
                case .stopped: "멈춤"
                }
            guard health.elsewhere else { return "실행 중 (PID \(status.pid)), \(doing)" }
            return "실행 중 (\(status.host ?? "?")의 PID \(status.pid), 하트비트로만 판단), \(doing)"
        }
    }
}
