import DustKit
import Foundation

/// The truth about dustd and its data at one instant (docs/REFERENCE.md §15), from the status dustd wrote, the
/// newest stored hour and whether dustd's process is alive.
public struct DaemonHealth: Sendable, Hashable {
    /// Whether dustd is running.
    public enum Daemon: String, Sendable, Hashable {
        /// Its process is alive and its heartbeat is younger than two heartbeat intervals.
        case running
        /// Its process is alive but its heartbeat is older than two heartbeat intervals: it is stuck
        /// (every wait writes the heartbeat) or cannot write its status (a full disk).
        case notResponding
        /// It stopped cleanly (a signal, or the end of `--once`).
        case stopped
        /// It ended without stopping: killed, crashed, or the machine went down.
        case gone
        /// It never ran against this database.
        case neverRun
    }

    /// Data is stale when no new hour arrived for this long (docs/REFERENCE.md §7).
    public static let staleAfter: TimeInterval = 3 * 3600

    public var daemon: Daemon
    /// The last record dustd wrote, if any.
    public var status: DaemonStatus?
    /// The end of the newest stored hour of the station, if any.
    public var newestHourEnd: Date?
    /// How long ago the newest hour ended; nil with no data.
    public var dataAge: TimeInterval?
    /// True when there is no data or the newest hour ended more than three hours ago.
    public var stale: Bool
    /// How far this machine's clock is behind the end of the newest stored hour, when it is by more than
    /// `clockBehindAfter`: a Raspberry Pi with no clock battery starts at the time it last saved, or at
    /// 1970, until NTP sets it, and every "today" it shows meanwhile is a day with nothing stored.
    public var clockBehind: TimeInterval? { dataAge.flatMap { Self.clockBehind(newestHourEndingIn: -$0) } }
    /// An hour: no stored hour ends after the moment it is stored, so an hour's margin is the clocks' own.
    public static let clockBehindAfter: TimeInterval = 3600
    /// How far the clock is behind, for a newest stored hour that ends `seconds` after it: those
    /// seconds when they are more than `clockBehindAfter`, else nil (the one rule `clockBehind`,
    /// `DaemonHealth.read` and `dustctl today` follow).
    public static func clockBehind(newestHourEndingIn seconds: TimeInterval) -> TimeInterval? {
        seconds > clockBehindAfter ? seconds : nil
    }
    /// The dustd that wrote the record runs on another machine (several dustd on one database,
    /// docs/REFERENCE.md §20): its PID cannot be checked here, so its heartbeat's age alone says
    /// whether it runs.
    public var elsewhere: Bool

    /// - Parameter thisHost: this machine's name, against which the record's `host` is compared.
    public init(
        status: DaemonStatus?, newestSlot: Slot?, now: Date, processIsDustd: (Int32) -> Bool,
        thisHost: String = DaemonStatus.localHost
    ) {
        self.status = status
        newestHourEnd = newestSlot?.end
        dataAge = newestSlot.map { now.timeIntervalSince($0.end) }
        stale = dataAge.map { $0 > Self.staleAfter } ?? true
        elsewhere = status?.host.map { $0 != thisHost } ?? false
        guard let status else {
            daemon = .neverRun
            return
        }
        if status.state == .stopped {
            daemon = .stopped
        } else if elsewhere {
            daemon = now.timeIntervalSince(status.heartbeatAt) < Self.lateAfter(status) ? .running : .gone
        } else if !processIsDustd(status.pid) {
            daemon = .gone
        } else if now.timeIntervalSince(status.heartbeatAt) < Self.lateAfter(status) {
            daemon = .running
        } else {
            daemon = .notResponding
        }
    }

    /// How old a heartbeat may be while dustd runs: two of its intervals, so one slow write is not
    /// taken for a hang.
    public static func lateAfter(_ status: DaemonStatus) -> TimeInterval { 2 * status.heartbeatSeconds }

    /// The exit status of `dustctl status`: 0 healthy, 3 dustd not running, 4 dustd running but
    /// not responding, stale data, a clock behind the data, or a failed last poll (README, "dustctl status").
    public var exitStatus: Int32 {
        switch daemon {
        case .stopped, .gone, .neverRun: return 3
        case .notResponding: return 4
        case .running: return stale || clockBehind != nil || status?.lastPollFailed == true ? 4 : 0
        }
    }

    /// What the poll loop is doing now, or nil when that is not known: the recorded state is true
    /// only while dustd runs (a killed dustd's last record says `idle`); a stopped one is `stopped`.
    public var currentState: DaemonStatus.State? {
        switch daemon {
        case .running: status?.state
        case .stopped: .stopped
        case .notResponding, .gone, .neverRun: nil
        }
    }

    /// When dustd polls next; nil unless it runs (a stopped or killed dustd polls never).
    public var nextPoll: Date? { daemon == .running ? status?.nextPollAt : nil }

    /// When dustd fetches the forecast next; nil unless it runs.
    public var nextForecastFetch: Date? { daemon == .running ? status?.forecast?.nextFetchAt : nil }

    /// One line for a person: what dustd is doing.
    public var daemonSummary: String {
        switch daemon {
        case .neverRun:
            return "has not run against this database"
        case .stopped:
            let how = status?.mode == .once ? "ran once (--once)" : "stopped cleanly"
            return "\(how)" + (status?.stoppedAt.map { " at \(KoreaStandardTime.iso8601($0))" } ?? "")
        case .gone where elsewhere:
            guard let status else { return "not running" }
            return
                "not running: its heartbeat is late (PID \(status.pid) on \(status.host ?? "?"), last heard from at \(KoreaStandardTime.iso8601(status.heartbeatAt)); "
                + "judged by the heartbeat alone, another machine's process cannot be checked); check `journalctl -u dustd` on \(status.host ?? "it")"
        case .gone:
            let pid = status.map { " (PID \($0.pid))" } ?? ""
            let heartbeat = status.map { ", last heard from at \(KoreaStandardTime.iso8601($0.heartbeatAt))" } ?? ""
            return "not running: it ended without stopping\(pid)\(heartbeat); check `journalctl -u dustd`"
        case .notResponding:
            guard let status else { return "not responding" }
            return
                "not responding: PID \(status.pid) is alive but last wrote its heartbeat at \(KoreaStandardTime.iso8601(status.heartbeatAt))"
                + " (every \(Int(status.heartbeatSeconds)) s expected); check `journalctl -u dustd` and the disk, or restart it with `systemctl restart dustd`"
        case .running:
            guard let status else { return "running" }
            let doing: String =
                switch status.state {
                case .starting: "starting"
                case .polling: "polling AirKorea now"
                case .idle: "idle"
                case .backingOff: "retrying after a passing fault"
                case .quotaExhausted: "waiting for the daily quota to reset (00:00 KST)"
                case .waitingForNextHour: "waiting for the next hour (a key or configuration problem)"
                case .stopping: "stopping"
                case .stopped: "stopped"
                }
            guard elsewhere else { return "running (PID \(status.pid)), \(doing)" }
            return "running (PID \(status.pid) on \(status.host ?? "?"), judged by its heartbeat alone), \(doing)"
        }
    }

    /// How old the data is, in words: `newest hour ended 48 h ago`.
    public var dataSummary: String {
        guard let dataAge else { return "no hours stored" }
        if let behind = clockBehind {
            return "newest hour ends \(Self.age(behind)) after this machine's clock — check the clock (timedatectl)"
        }
        return "newest hour ended \(Self.age(dataAge)) ago" + (stale ? " — stale" : "")
    }

    /// `12 min`, `5 h`, `3 days`; with other units (`12분`, `5시간`, `3일`) for another language.
    public static func age(
        _ seconds: TimeInterval, minutesUnit: String = " min", hoursUnit: String = " h", daysUnit: String = " days"
    ) -> String {
        let minutes = Int(max(seconds, 0) / 60)
        if minutes < 120 { return "\(minutes)\(minutesUnit)" }
        let hours = minutes / 60
        if hours < 72 { return "\(hours)\(hoursUnit)" }
        return "\(hours / 24)\(daysUnit)"
    }
}

/// Whether a PID is a running dustd: alive, and named dustd in /proc (a reused PID is not ours).
public func processIsDustd(_ pid: Int32) -> Bool {
    guard pid > 0, kill(pid, 0) == 0 || errno == EPERM else { return false }
    guard let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return true }
    return name.trimmingCharacters(in: .whitespacesAndNewlines) == "dustd"
}
