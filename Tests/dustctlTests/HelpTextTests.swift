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

    /// dustctl parses without swift-argument-parser's completion-script probe unless the arguments ask
    /// for one (it says it runs under its own name while it parses, docs/PERFORMANCE.md): the
    /// completions the package ships are still written, and nothing dustctl prints names it twice.
    @Test("Completion scripts are still written for bash, zsh and fish; usage, help and the help dump name dustctl once")
    func completionsAndNames() async throws {
        for (shell, marker) in [("bash", "_dustctl()"), ("zsh", "#compdef dustctl"), ("fish", "complete -c 'dustctl'")] {
            for arguments in [["--generate-completion-script", shell], ["--generate-completion-script=\(shell)"]] {
                let script = try await Executables.run("dustctl", arguments)
                #expect(script.status == 0, "\(arguments): \(script.standardError)")
                #expect(script.standardOutput.contains(marker), "\(arguments)")
                #expect(script.standardOutput.contains("week"), "\(arguments)")
            }
        }
        let wrong = try await Executables.run("dustctl", ["week", "--no-such-option"])
        #expect(wrong.status == 64)
        #expect(wrong.standardError.contains("Usage: dustctl week"), "\(wrong.standardError)")
        let help = try await Executables.run("dustctl", ["week", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("USAGE: dustctl week"), "\(help.standardOutput)")
        let helpCommand = try await Executables.run("dustctl", ["help", "week"])
        #expect(helpCommand.standardOutput == help.standardOutput)
        for text in [wrong.standardError, help.standardOutput] {
            #expect(!text.contains("dustctl dustctl"), "\(text)")
        }
        let dump = try await Executables.run("dustctl", ["--experimental-dump-help"])
        #expect(dump.status == 0)
        let root = try #require(
            (try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])?["command"] as? [String: Any])
        #expect(root["superCommands"] == nil)
        let subcommands = try #require(root["subcommands"] as? [[String: Any]])
        #expect(subcommands.count >= 15)
        for subcommand in subcommands {
            #expect(subcommand["superCommands"] as? [String] == ["dustctl"], "\(subcommand["commandName"] ?? "?")")
        }
    }
}
