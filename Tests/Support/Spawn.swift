import Foundation

/// Runs a program to its end with `posix_spawn` and `waitpid` on its own pid, every descriptor but
/// stdin, stdout and stderr closed in the child, its signal mask empty and every signal's action the
/// default (a test's thread may block SIGTERM; a child must not inherit that).
///
/// Not Foundation's `Process`: on Linux it learns that a child ended when a socket it handed the
/// child closes, so any other process that inherited that socket keeps the wait going. A
/// PostgreSQL server or its watchdog started by another test at the same moment inherited it (the
/// test process's descriptors are not all close-on-exec), lived as long as the test process, and
/// the suite hung on a `dustctl` that had long ended (seen as a zombie under a spinning
/// `waitUntilExit`). So no child started here inherits anything, and the wait is the kernel's.
public enum Spawn {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29), which
    /// Swift's Glibc module does not import.
    private static let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: CloseFrom.self)
    }
    private static let changeDirectory = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: ChangeDirectory.self)
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` with `arguments` and exactly `environment`, stdin from /dev/null, stdout and
    /// stderr into the files at `standardOutput` and `standardError` (created or truncated; the same
    /// path for both shares one file), in `currentDirectory` when given. Returns the exit status, or
    /// 128 + the signal that ended it.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], currentDirectory: String? = nil,
        standardOutput: String, standardError: String
    ) throws -> Int32 {
        guard let closeFrom, let changeDirectory else {
            throw Failure(
                description: "this C library has no posix_spawn_file_actions_addclosefrom_np or _addchdir_np (glibc 2.34 or later)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if standardError == standardOutput {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        _ = closeFrom(&actions, 3)
        if let currentDirectory { _ = changeDirectory(&actions, currentDirectory) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            throw Failure(
                description:
                    "cannot run \(executable) in \(currentDirectory ?? "the current directory") with output to \(standardOutput): "
                    + String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid \(pid): \(String(cString: strerror(errno)))") }
        }
        // WIFEXITED, WEXITSTATUS and WTERMSIG, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
