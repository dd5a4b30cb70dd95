import Foundation

/// Locates the repository's `Fixtures/` and temporary directories for tests.
public enum TestFixtures {
    /// The repository root, found from this file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Fixtures/<relativePath>`.
    public static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// The bytes of `Fixtures/<relativePath>`.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// A recorded response as AirKorea would answer it today, for tests that run a real dustd on the
    /// real clock: every `dataTime` moved by whole days so the newest falls `daysAgo` days before today
    /// (KST; 1: yesterday, its 24:00 being today's midnight), each hour kept. dustd stores only what a request's window covers, so the fixtures' fixed dates would
    /// otherwise age out of every window (scripts/fake-airkorea.py --live does the same).
    public static func liveData(_ relativePath: String, daysAgo: Int = 1, now: Date = Date()) throws -> Data {
        var text = String(decoding: try data(relativePath), as: UTF8.self)
        let pattern = try NSRegularExpression(pattern: "<dataTime>(\\d{4}-\\d\\d-\\d\\d) (\\d\\d:00)</dataTime>")
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let dayFormat = DateFormatter()
        dayFormat.calendar = utc
        dayFormat.timeZone = utc.timeZone
        dayFormat.locale = Locale(identifier: "en_US_POSIX")
        dayFormat.dateFormat = "yyyy-MM-dd"
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        let days = matches.compactMap { Range($0.range(at: 1), in: text).flatMap { dayFormat.date(from: String(text[$0])) } }
        guard let newest = days.max() else { return Data(text.utf8) }
        let yesterday = dayFormat.date(from: dayFormat.string(from: now.addingTimeInterval(9 * 3600 - 86_400 * Double(daysAgo))))!
        let shift = utc.dateComponents([.day], from: newest, to: yesterday).day ?? 0
        for match in matches.reversed() {
            guard let dayRange = Range(match.range(at: 1), in: text), let day = dayFormat.date(from: String(text[dayRange])),
                let moved = utc.date(byAdding: .day, value: shift, to: day)
            else { continue }
            text.replaceSubrange(dayRange, with: dayFormat.string(from: moved))
        }
        return Data(text.utf8)
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(_ label: String = "finedust") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// The result of running a program to completion.
public struct ProcessResult: Sendable {
    /// The exit status, or 128 + the signal that ended it (137 for SIGKILL, as a shell says).
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Builds and runs the project's executables in tests.
public enum Executables {
    /// The directory holding the built products (next to the test bundle).
    public static let productsDirectory: URL = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: bundleDirectory.appendingPathComponent("dustd").path) { return bundleDirectory }
        return TestFixtures.repositoryRoot.appendingPathComponent(".build/debug")
    }()

    public static func url(_ name: String) -> URL { productsDirectory.appendingPathComponent(name) }

    /// Runs `name` with `arguments`; stdout and stderr go through files, so no pipe can fill up. It
    /// waits on a thread of its own (`aside`), never on one of the few the tests' tasks share, and
    /// at most `concurrentRuns` of these runs go at once, so the suite's hundreds do not all start
    /// together on a two-core machine and push a timed test past its deadline. (The daemons and
    /// imports a few tests start with `Process` are not counted.)
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String]? = nil,
        currentDirectory: URL? = nil
    ) async throws -> ProcessResult {
        try await runs.withTurn {
            try await aside { try runHere(name, arguments, environment: environment, currentDirectory: currentDirectory) }
        }
    }

    /// How many `run`s may run at once: twice the cores.
    private static let concurrentRuns = max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
    private static let runs = RunLimit(concurrentRuns)

    private static func runHere(
        _ name: String, _ arguments: [String], environment: [String: String]?, currentDirectory: URL?
    ) throws -> ProcessResult {
        let scratch = try TemporaryDirectory("finedust-run")
        defer { scratch.remove() }
        let outPath = scratch.path("stdout")
        let errPath = scratch.path("stderr")
        var env = environment ?? ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        // dustctl's reports follow the locale (docs/REFERENCE.md §6): English unless a test asks for
        // another with LC_ALL, whatever the machine running the tests is set to.
        if env["LC_ALL"] == nil { env["LC_ALL"] = "C.UTF-8" }
        // posix_spawn and waitpid, nothing inherited (Spawn's comment: Foundation's Process can wait forever).
        let status = try Spawn.run(
            url(name).path, arguments, environment: env, currentDirectory: (currentDirectory ?? scratch.url).path,
            standardOutput: outPath, standardError: errPath)
        return ProcessResult(
            status: status,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
