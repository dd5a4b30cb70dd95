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

    /// Runs `name` with `arguments`; stdout and stderr go through files, so no pipe can fill up.
    public static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil,
                           currentDirectory: URL? = nil) throws -> ProcessResult {
        let scratch = try TemporaryDirectory("finedust-run")
        defer { scratch.remove() }
        let outPath = scratch.path("stdout"), errPath = scratch.path("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = url(name)
        process.arguments = arguments
        var env = environment ?? ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        process.environment = env
        process.currentDirectoryURL = currentDirectory ?? scratch.url
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
