import ArgumentParser

/// `dustctl`: ask FineDust what you breathed.
@main
struct DustCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dustctl",
        abstract: "Ask FineDust how much fine dust (PM10) and ultra-fine dust (PM2.5) you breathed.",
        discussion: """
            Reads the database that dustd fills every hour. Examples:
              dustctl import Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --db ./dust.sqlite
              dustctl hourly 2026-11-20 --station 종로구 --db ./dust.sqlite --json
            """,
        subcommands: [TodayCommand.self, DayCommand.self, HourlyCommand.self, WeekCommand.self, ExportCommand.self, ImportCommand.self, ActivityCommand.self, StationsCommand.self, StatusCommand.self, DemoCommand.self]
    )
}
