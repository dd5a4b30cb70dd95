import Foundation
import TestSupport
import Testing

@Suite("Help text", .timeLimit(.minutes(10)))
struct HelpTextTests {
    /// The discussion of every command of an executable, from the argument parser's own dump.
    func discussions(_ executable: String) async throws -> [(command: String, text: String)] {
        let dump = try await Executables.run(executable, ["--experimental-dump-help"])
        #expect(dump.status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        var found: [(String, String)] = []
        func walk(_ command: [String: Any], _ path: String) {
            if let text = command["discussion"] as? String { found.append((path, text)) }
            for case let sub as [String: Any] in command["subcommands"] as? [Any] ?? [] {
                walk(sub, "\(path) \(sub["commandName"] as? String ?? "?")")
            }
        }
        walk(try #require(root["command"] as? [String: Any]), executable)
        return found
    }

    /// Columns on a terminal: Hangul and other wide characters take two.
    func columns(_ line: String) -> Int {
        line.unicodeScalars.reduce(0) { total, scalar in
            let wide =
                (0x1100...0x115F).contains(scalar.value) || (0x2E80...0xA4CF).contains(scalar.value)
                || (0xAC00...0xD7A3).contains(scalar.value) || (0xF900...0xFAFF).contains(scalar.value)
                || (0xFF00...0xFF60).contains(scalar.value)
            return total + (wide ? 2 : 1)
        }
    }

    @Test(
        "Every line of every discussion fits 80 columns, so --help and the man pages are not wrapped raggedly",
        arguments: ["dustctl", "dustd"])
    func linesFit(executable: String) async throws {
        let found = try await discussions(executable)
        #expect(found.count >= (executable == "dustctl" ? 15 : 1))
        for (command, text) in found {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where columns(String(line)) > 80 {
                Issue.record("\(command): \(columns(String(line))) columns: \(line)")
            }
        }
    }
}
