import DustKit
import DustServices
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

    /// `dustctl status --json` and `/api/v1/status` (docs/REFERENCE.md §15): what dustd is doing, how old the
    /// data is, the last success and error, and the exit status `dustctl status` ends with.
    /// The state and the next poll and fetch are those `DaemonHealth` vouches for: none once dustd
    /// stopped or was killed.
    ///
    /// `forecastCallsToday`: forecast requests since 00:00 KST, from the attempt record (the quota
    /// of docs/REFERENCE.md §14 is `ForecastPlanner.dailyCallCap` a day).
    /// `web`: for `/api/v1/status`, which has no `database` and `pid` members and hides the paths
    /// in messages; nil for `dustctl`. Both end with `poller`, the host and PID of the dustd that polls.
    public static func status(
        _ health: DaemonHealth, database: String, station: String?, rows: Int, calendar: DayCalendar,
        forecastCallsToday: Int, web: WebAudience? = nil, indoor: [IndoorSensorState] = []
    ) -> JSON {
        let status = health.status
        func time(_ date: Date?) -> JSON { date.map { .string(calendar.iso8601($0)) } ?? .null }
        func message(_ text: String) -> JSON { .string(web.map { $0.hidingPaths(in: text) } ?? text) }
        let success: JSON =
            status?.lastSuccess.map { success in
                .object([
                    ("time", time(success.at)), ("rowsNew", .integer(success.rowsNew)), ("rowsUpdated", .integer(success.rowsUpdated)),
                    ("requests", .integer(success.requests)),
                ])
            } ?? .null
        let failure: JSON =
            status?.lastError.map { failure in
                .object([
                    ("time", time(failure.at)), ("kind", .string(failure.kind.rawValue)), ("message", message(failure.message)),
                    ("resultCode", failure.resultCode.map(JSON.string) ?? .null),
                    ("httpStatus", failure.httpStatus.map { JSON.integer($0) } ?? .null),
                ])
            } ?? .null
        let refused: JSON = status?.reloadRefused.map { .object([("time", time($0.at)), ("reason", message($0.reason))]) } ?? .null
        var members: [(String, JSON)] = [
            ("database", .string(database)),
            ("station", station.map(JSON.string) ?? .null),
            ("daemon", .string(health.daemon.rawValue)),
            ("state", health.currentState.map { .string($0.rawValue) } ?? .null),
            ("mode", status.map { .string($0.mode.rawValue) } ?? .null),
            ("pid", status.map { .integer(Int($0.pid)) } ?? .null),
            ("version", status.map { .string($0.version) } ?? .null),
            ("startedAt", time(status?.startedAt)),
            ("heartbeatAt", time(status?.heartbeatAt)),
            ("stoppedAt", time(status?.stoppedAt)),
            ("nextPoll", time(health.nextPoll)),
            ("latestSlotEnd", time(health.newestHourEnd)),
            ("dataAgeSeconds", .number(health.dataAge.map { $0.rounded() })),
            ("stale", .bool(health.stale)),
            ("rows", .integer(rows)),
            ("lastSuccess", success),
            ("lastError", failure),
            ("currentError", .bool(status?.lastPollFailed ?? false)),
            ("reloadRefused", refused),
            ("exitStatus", .integer(Int(health.exitStatus))),
            (
                "forecast",
                .object([
                    ("callsToday", .integer(forecastCallsToday)),
                    ("dailyCap", .integer(ForecastPlanner.dailyCallCap)),
                    ("latestIssue", time(status?.forecast?.latestIssue)),
                    ("lastSuccess", time(status?.forecast?.lastSuccessAt)),
                    ("nextFetch", time(health.nextForecastFetch)),
                    (
                        "lastError",
                        status?.forecast?.lastError.map { failure in
                            .object([
                                ("time", time(failure.at)), ("kind", .string(failure.kind.rawValue)), ("message", message(failure.message)),
                                ("resultCode", failure.resultCode.map(JSON.string) ?? .null),
                            ])
                        } ?? .null
                    ),
                ])
            ),
        ]
        // Advisories (docs/REFERENCE.md §17): the operations turned off until a reload, and what to apply for.
        members.append(
            (
                "advisories",
                .object([
                    ("lastFetch", time(status?.advisories?.lastFetchAt)),
                    (
                        "turnedOff",
                        .array(
                            (status?.advisories?.turnedOff ?? []).map { off in
                                .object([
                                    ("pollutant", .string(off.pollutant.rawValue)), ("service", .string(off.pollutant.serviceName)),
                                    ("time", time(off.at)), ("resultCode", off.resultCode.map(JSON.string) ?? .null),
                                    ("message", .string(off.remedy)),
                                ])
                            })
                    ),
                ])
            ))
        // Who polls AirKorea (docs/REFERENCE.md §20): the machine and process that wrote the record.
        members.append(
            (
                "poller",
                status.map { .object([("host", $0.host.map(JSON.string) ?? .null), ("pid", .integer(Int($0.pid)))]) } ?? .null
            ))
        // Indoor monitors (docs/REFERENCE.md §21), only when some are configured: each asked sensor's problem now.
        if !indoor.isEmpty {
            members.append(
                (
                    "indoor",
                    .array(
                        indoor.map { state in
                            .object([
                                ("sensor", .string(state.sensor)), ("kind", .string(state.kind)), ("lastSample", time(state.lastSampleAt)),
                                ("problem", state.problem.map { .string("it " + $0) } ?? .null), ("problemSince", time(state.problemSince)),
                            ])
                        })
                ))
        }
        // What only the operator at the machine sees: the web shows no file and no process.
        if web != nil { members.removeAll { $0.0 == "database" || $0.0 == "pid" } }
        return .object(members)
    }
}
