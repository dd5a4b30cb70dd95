import DustKit
import DustServices
import DustStore
import Foundation

extension ReportJSON {
    /// A monitoring station (`dustctl stations list --json`).
    public static func station(_ station: Station) -> JSON {
        .object([
            ("name", .string(station.name)),
            ("network", station.network.map(JSON.string) ?? .null),
            ("address", station.address.map(JSON.string) ?? .null),
            ("latitude", .number(station.latitude)),
            ("longitude", .number(station.longitude)),
        ])
    }

    /// `dustctl status --json` and `/api/v1/status` (SPEC §15): what dustd is doing, how old the
    /// data is, the last success and error, and the exit status `dustctl status` ends with.
    ///
    /// `forecastCallsToday`: forecast requests since 00:00 KST, from the attempt record (the quota
    /// of SPEC §14 is `ForecastPlanner.dailyCallCap` a day).
    public static func status(_ health: DaemonHealth, database: String, station: String?, rows: Int, calendar: DayCalendar,
                              forecastCallsToday: Int) -> JSON {
        let status = health.status
        func time(_ date: Date?) -> JSON { date.map { .string(calendar.iso8601($0)) } ?? .null }
        let success: JSON = status?.lastSuccess.map { success in
            .object([("time", time(success.at)), ("rowsNew", .integer(success.rowsNew)), ("rowsUpdated", .integer(success.rowsUpdated)),
                     ("requests", .integer(success.requests))])
        } ?? .null
        let failure: JSON = status?.lastError.map { failure in
            .object([("time", time(failure.at)), ("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message)),
                     ("resultCode", failure.resultCode.map(JSON.string) ?? .null),
                     ("httpStatus", failure.httpStatus.map { JSON.integer($0) } ?? .null)])
        } ?? .null
        let refused: JSON = status?.reloadRefused.map { .object([("time", time($0.at)), ("reason", .string($0.reason))]) } ?? .null
        return .object([
            ("database", .string(database)),
            ("station", station.map(JSON.string) ?? .null),
            ("daemon", .string(health.daemon.rawValue)),
            ("state", status.map { .string($0.state.rawValue) } ?? .null),
            ("mode", status.map { .string($0.mode.rawValue) } ?? .null),
            ("pid", status.map { .integer(Int($0.pid)) } ?? .null),
            ("version", status.map { .string($0.version) } ?? .null),
            ("startedAt", time(status?.startedAt)),
            ("heartbeatAt", time(status?.heartbeatAt)),
            ("stoppedAt", time(status?.stoppedAt)),
            ("nextPoll", time(status?.nextPollAt)),
            ("latestSlotEnd", time(health.newestHourEnd)),
            ("dataAgeSeconds", .number(health.dataAge.map { $0.rounded() })),
            ("stale", .bool(health.stale)),
            ("rows", .integer(rows)),
            ("lastSuccess", success),
            ("lastError", failure),
            ("currentError", .bool(status?.lastPollFailed ?? false)),
            ("reloadRefused", refused),
            ("exitStatus", .integer(Int(health.exitStatus))),
            ("forecast", .object([
                ("callsToday", .integer(forecastCallsToday)),
                ("dailyCap", .integer(ForecastPlanner.dailyCallCap)),
                ("latestIssue", time(status?.forecast?.latestIssue)),
                ("lastSuccess", time(status?.forecast?.lastSuccessAt)),
                ("nextFetch", time(status?.forecast?.nextFetchAt)),
                ("lastError", status?.forecast?.lastError.map { failure in
                    .object([("time", time(failure.at)), ("kind", .string(failure.kind.rawValue)), ("message", .string(failure.message)),
                             ("resultCode", failure.resultCode.map(JSON.string) ?? .null)])
                } ?? .null),
            ])),
        ])
    }
}
