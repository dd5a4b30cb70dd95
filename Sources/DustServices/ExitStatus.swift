/// The exit statuses of dustd and dustctl: sysexits(3) (docs/REFERENCE.md §6), and the two of `dustctl status`
/// (docs/REFERENCE.md §15). One table, so the two programs cannot disagree about what a code means.
public enum ExitStatus: Int32, Sendable, Hashable {
    case ok = 0
    /// `dustctl status`: dustd is not running.
    case daemonNotRunning = 3
    /// `dustctl status`: data is stale or the last poll failed.
    case unhealthy = 4
    case usage = 64
    case dataError = 65
    case noInput = 66
    /// AirKorea is unavailable for now.
    case unavailable = 69
    /// An internal error: something ended that should not have.
    case software = 70
    /// An output file cannot be created (or would replace a device, FIFO or symlink).
    case cannotCreate = 73
    case ioError = 74
    /// Try again later: another dustd holds the database, or another process holds its lock.
    case temporaryFailure = 75
    case configuration = 78

    /// The status for a storage failure.
    public init(_ failure: StorageFailure) {
        self =
            switch failure.kind {
            case .missing: .noInput
            case .unusable, .schemaTooNew: .dataError
            // A lock another process holds passes: trying again later is the advice (docs/REFERENCE.md §6).
            case .locked: .temporaryFailure
            case .diskFull, .unwritable, .replaced, .io, .unreachable: .ioError
            case .denied: .configuration
            }
    }

    /// The status `dustd --once` ends with after a failed poll.
    public init(_ failure: PollFailure) {
        switch failure {
        case .storage(let storage): self.init(storage)
        case .configuration: self = .configuration
        case .fetch:
            self = failure.retryAdvice == .waitForNextHour ? .configuration : .unavailable
        }
    }
}
