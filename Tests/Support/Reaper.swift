import Foundation
import Synchronization

extension Process {
    /// Starts the program as `run()` does, and makes sure it ends with the test process: a program
    /// still running when the tests exit is killed (SIGKILL), whatever became of the test that
    /// started it. A test's own cleanup (a `deinit`, a `stop()`) covers the test that ends or
    /// throws; not the test whose task never resumes (past its time limit, or waiting on something
    /// that never comes), whose daemon lived on after `swift test` returned: four dustd processes
    /// outlived one full run on a loaded machine.
    public func runReaped() throws {
        try run()
        Reaper.shared.adopt(self)
    }
}

/// The programs the tests started with `Process`, killed at the test process's exit.
public final class Reaper: Sendable {
    /// One per test process: the `atexit` handler has no context to carry another.
    public static let shared: Reaper = {
        let reaper = Reaper()
        atexit { Reaper.shared.killRunning() }
        return reaper
    }()

    private let children = Mutex<[Process]>([])

    public init() {}

    public func adopt(_ process: Process) {
        children.withLock { children in
            // Those that have ended are let go: their PIDs may be another program's by now.
            children.removeAll { !$0.isRunning }
            children.append(process)
        }
    }

    /// `isRunning` is Foundation's word that it has not reaped the PID, so no stranger is killed.
    public func killRunning() {
        let running = children.withLock { children in children.filter(\.isRunning) }
        for process in running { kill(process.processIdentifier, SIGKILL) }
    }
}
