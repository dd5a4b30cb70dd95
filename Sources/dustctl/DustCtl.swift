import ArgumentParser
import DustKit
import Foundation

/// `dustctl`: ask FineDust what you breathed.
@main
struct DustCtl: ParsableCommand {
    static var configuration: CommandConfiguration {
        var configuration = CommandConfiguration(
            commandName: "dustctl",
            abstract: helpAbstract(
                "미세먼지(PM10)와 초미세먼지(PM2.5)를 얼마나 들이마셨는지 FineDust에 묻습니다.",
                "Ask FineDust how much fine dust (PM10) and ultra-fine dust (PM2.5) you breathed."),
            discussion: helpText(
                """
                dustd가 매시간 채우는 데이터베이스를 읽습니다.
                한 시간의 흡입량(µg)은 그 사람의 집 측정소 농도 × 그 시간에 들이마신
                공기의 양 × 그중 실외에서 온 공기의 비율입니다. 들이마신 공기의 양은 무엇을
                하고 있었는지(잠, 앉아 있기, 서서 움직이기, 빠르게 걷기, 달리기)에 따라,
                `born`이 설정되어 있으면 나이에 따라서도 달라집니다(미국 EPA Exposure
                Factors Handbook의 값: 책상 앞에서는 8살 아이가 아버지보다 한 시간에 더
                많은 공기를 들이마시고, 산책할 때는 더 적게 들이마십니다). 실외에서 온
                비율은 밖에서 보낸 시간이고, 실내에서는 집의 침투율(실외 먼지가 얼마나
                들어오는지; 공기청정기가 낮춥니다)입니다.
                한 사람의 숫자를 바꾸는 것: `people:`의 나이, 일정, 침투율; 건강 앱, GPX,
                CSV에서 가져온 걷기(걸은 시간은 서서 움직인 시간으로, 일부는 실외로 셈);
                건강 앱 내보내기에 든 Apple Watch의 수면과 심박수(`dustctl activity import
                FILE --person NAME`): 잠든 시간은 수면 때의 양으로, 심박수가 있는 그 밖의
                시간은 여유심박수가 보여 주는 활동 수준으로, 나머지는 일정대로 셉니다.
                모르는 것: 실내에서 생기는 먼지(요리, 연기, 초), 마스크, 그리고 집 측정소의
                구역을 벗어났을 때 실제로 있던 곳. `--person NAME`은 한 사람의
                흡입량(기본: 처음 설정된 사람)을, `--everyone`은 모두를 차례로 보여 줍니다.
                `people:`이 없으면 구성원은 `me` 한 사람입니다.
                예:
                  dustctl demo
                  dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
                  dustctl hourly 2026-11-20 --station 종로구 --json
                  dustctl week --everyone
                """,
                """
                Reads the database that dustd fills every hour.
                The dose ("intake", in µg) of an hour is the concentration at the person's
                home station, times the air they breathed in that hour, times the share of
                it that came from outdoors. The air breathed depends on what they were doing
                (asleep, sitting, on their feet, walking fast, running) and, when `born` is
                configured, on their age (the US EPA Exposure Factors Handbook's rates: at
                her desk a child of 8 breathes more air an hour than her father, on a walk
                less). The share from outdoors is the time spent outside, and indoors the
                home's infiltration (how much outdoor dust gets in; an air purifier lowers it).
                What changes a person's number: their age, schedule and infiltration in
                `people:`; walks imported from the Health app, GPX or CSV (an hour with a
                walk counts as on their feet and partly outdoors); and an Apple Watch's sleep
                and heart rate from the Health app's export (`dustctl activity import FILE
                --person NAME`): time asleep counts at the sleeping rate, other time with a
                heart rate at the level its heart-rate reserve shows, the rest by the
                schedule. What it does not know: dust from indoor sources (cooking, smoke,
                candles), masks, and where the person really was when it is not their home
                station's district. `--person NAME` shows one person's dose (default: the
                first configured), `--everyone` each in turn; without `people:` there is one
                person, `me`.
                Examples:
                  dustctl demo
                  dustctl week --db finedust-demo.sqlite --station 종로구 --end 2026-11-20
                  dustctl hourly 2026-11-20 --station 종로구 --json
                  dustctl week --everyone
                """),
            version: FineDustVersion.current,
            subcommands: [
                TodayCommand.self, DayCommand.self, HourlyCommand.self, WeekCommand.self, ExportCommand.self, ImportCommand.self,
                ActivityCommand.self, StationsCommand.self, AlertsCommand.self, StatusCommand.self, ForecastCommand.self,
                AdvisoriesCommand.self, PersonCommand.self, HomeAssistantCommand.self, IndoorCommand.self, BackupCommand.self,
                DemoCommand.self,
            ]
        )
        // Read by swift-argument-parser only to skip its completion-script probe (`main`) and to name a
        // plugin's host in help, which is written after parsing, when this is false again.
        if parsingWithoutCompletionProbe { configuration._superCommandName = "dustctl" }
        return configuration
    }

    /// True while `main` parses arguments that ask for no completion script. swift-argument-parser
    /// looks for `--generate-completion-script` before a root command's own parse by parsing the
    /// arguments as two more commands, by reflection: half of the parsing and a fifth of the
    /// instructions of `dustctl week` (docs/PERFORMANCE.md, "Start-up"), for an option only the
    /// packaging asks for. It skips that probe for a command run under another's name (a plugin's),
    /// which `main` says dustctl is while it parses, and only then. Set on the main thread before
    /// any other runs.
    nonisolated(unsafe) private static var parsingWithoutCompletionProbe = false

    /// ArgumentParser's own `main`, except that SIGPIPE is ignored, help and usage errors go
    /// through dustctl's writer, and an asynchronous command runs on the main thread
    /// (`CommandRunLoop`): the store protocols are asynchronous, SQLiteStore answers without
    /// suspending.
    static func main() {
        // A closed pipe then shows up as EPIPE from write(2), which ends dustctl quietly with 0,
        // instead of a signal that kills it halfway through a line.
        signal(SIGPIPE, SIG_IGN)
        // A mistyped command is named as one, not as its first option ("Unknown option '--db'").
        let arguments = CommandLine.arguments.dropFirst()
        if let first = arguments.first, !first.hasPrefix("-"), first != "help" {
            let names = configuration.subcommands.map { $0._commandName }
            if !names.contains(first) {
                let nearest = SpellingDistance.nearest(to: first, among: names)
                let given = "\"\(TerminalSafeText.sanitized(first))\""
                let message = ReportLanguage.process.say(
                    "\(given)은(는) 명령이 아닙니다." + (nearest.map { " 혹시 \($0)인가요?" } ?? "") + " 명령 목록은 dustctl --help에 있습니다.",
                    "\(given) is not a command\(nearest.map { "; did you mean \($0)?" } ?? "") (dustctl --help lists them).")
                _ = writeAll("dustctl: \(message)\n".utf8, to: STDERR_FILENO)
                Self.exit(withError: ExitCode(64))
            }
            // A group's own command forgotten (`dustctl alerts --db x`) is named as such, not as its option.
            if let group = configuration.subcommands.first(where: { $0._commandName == first }),
                case let commands = group.configuration.subcommands, !commands.isEmpty, group.configuration.defaultSubcommand == nil
            {
                let names = commands.map { $0._commandName }
                let next = arguments.dropFirst().first
                if let next, !names.contains(next), !["-h", "--help", "help"].contains(next) {
                    let nearest = next.hasPrefix("-") ? nil : SpellingDistance.nearest(to: next, among: names)
                    let (given, listed) = ("\"\(TerminalSafeText.sanitized(next))\"", names.joined(separator: ", "))
                    let message = ReportLanguage.process.say(
                        "\(given) 앞에 \(first)의 명령 하나를 쓰세요: \(listed)."
                            + (nearest.map { " 혹시 \($0)인가요?" } ?? "") + " 각각 무엇을 하는지는 dustctl \(first) --help에 있습니다.",
                        "\(first) needs one of its commands before \(given): "
                            + "\(listed)\(nearest.map { "; did you mean \($0)?" } ?? "") (dustctl \(first) --help says what each does).")
                    _ = writeAll("dustctl: \(message)\n".utf8, to: STDERR_FILENO)
                    Self.exit(withError: ExitCode(64))
                }
            }
        }
        do {
            // swift-argument-parser's own probe reads the option anywhere, with its value after it or after `=`.
            parsingWithoutCompletionProbe = !arguments.contains {
                $0 == "--generate-completion-script" || $0.hasPrefix("--generate-completion-script=")
            }
            let parsed = Result { try parseAsRoot() }
            parsingWithoutCompletionProbe = false
            var command = try parsed.get()
            if let asynchronous = command as? any AsyncParsableCommand {
                nonisolated(unsafe) var running = asynchronous
                try CommandRunLoop().run { try await running.run() }
            } else {
                try command.run()
            }
        } catch {
            // ArgumentParser's `exit(withError:)` prints with `print`, whose failures nobody sees.
            var status = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty, status.isSuccess {
                do {
                    try CommandRunLoop().run {
                        try await reportingFailures { @Sendable () throws -> Void in try standardOutputLine(message) }
                    }
                } catch {
                    status = error as? ExitCode ?? .failure
                }
            } else if !message.isEmpty {
                // A usage error quotes the argument given, which may hold anything.
                _ = writeAll((TerminalOutput.safe(message) + "\n").utf8, to: STDERR_FILENO)
            }
            Self.exit(withError: status)
        }
    }
}
