import ArgumentParser
import DustConfig
import Foundation

extension ReportLanguage {
    /// The language of the locale dustctl was started in (`LC_ALL`, `LC_MESSAGES`, `LANG`): what
    /// `--help` and `export`'s messages speak (docs/REFERENCE.md §6, "Text"). Read once: ArgumentParser
    /// asks for every command's `configuration` many times a run, and a process's locale does not change.
    /// Only those three are read: `ProcessInfo`'s environment is a dictionary of every variable, built
    /// anew at each ask (docs/PERFORMANCE.md, "Start-up").
    static let process = ReportLanguage(environment: EnvironmentVariables.read(named: ["LC_ALL", "LC_MESSAGES", "LANG"]))
}

/// `korean` under a Korean locale, `english` otherwise: a command's discussion in `--help`, its
/// lines broken by hand (each fits 80 columns, a Hangul syllable taking two).
///
/// ArgumentParser reads a command's `configuration` and builds its property wrappers when it parses
/// and when it renders help, so a computed `configuration` and a `help:` that calls this speak the
/// locale's language. The English text is the one the tests and docs quote.
func helpText(_ korean: String, _ english: String) -> String {
    ReportLanguage.process.say(korean, english)
}

/// `korean` under a Korean locale, `english` otherwise: a command's abstract, which `--help` shows
/// beside the command's name in its parent's list and after `OVERVIEW:`.
///
/// ArgumentParser wraps help at a number of characters, not of terminal columns: a line of Hangul
/// would run past 80 columns. The Korean is broken here, between words, to fit beside the label
/// column; the English is left to ArgumentParser, as it always was.
func helpAbstract(_ korean: String, _ english: String, followedBy suffix: String = "") -> String {
    ReportLanguage.process == .korean ? wrappedForHelp(korean, followedBy: suffix) : english
}

extension ArgumentHelp {
    /// The help of an option, flag or argument in the locale's language (the Korean broken as
    /// `helpAbstract` breaks it); `valueName` is the same in both. `suffix`: what ArgumentParser appends to
    /// the last line of an option with values or a default (`(values: day, week; default: day)`), for which
    /// the Korean leaves room (it ran to 91 columns); `HelpLanguageTests` holds every line to 80.
    static func localized(_ korean: String, _ english: String, valueName: String? = nil, suffix: String = "") -> ArgumentHelp {
        ArgumentHelp(helpAbstract(korean, english, followedBy: suffix), valueName: valueName)
    }
}

/// `text` broken at spaces into lines of at most `columns` terminal columns: 80 less the 26 where
/// ArgumentParser starts the help of an option or subcommand (`HelpGenerator.labelColumnWidth`). A
/// word wider than that keeps a line of its own.
func wrappedForHelp(_ text: String, columns: Int = 80 - 26, followedBy suffix: String = "") -> String {
    var lines = wrappedLines(text, columns: columns)
    // The last line keeps room for what ArgumentParser writes after it, one space and the suffix: when it has
    // none, its last words go to a line of their own, as many as leave that room.
    if !suffix.isEmpty, let last = lines.last, displayWidth(last) + 1 + displayWidth(suffix) > columns {
        var words = last.split(separator: " ").map(String.init)
        var tail: [String] = []
        while words.count > 1, let word = words.last,
            displayWidth(([word] + tail).joined(separator: " ")) + 1 + displayWidth(suffix) <= columns
        {
            tail.insert(words.removeLast(), at: 0)
        }
        if !tail.isEmpty {
            lines.removeLast()
            lines += [words.joined(separator: " "), tail.joined(separator: " ")]
        }
    }
    return lines.joined(separator: "\n")
}

/// `text` broken at spaces into lines of at most `columns` terminal columns.
private func wrappedLines(_ text: String, columns: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
        if line.isEmpty {
            line = String(word)
        } else if displayWidth(line) + 1 + displayWidth(String(word)) <= columns {
            line += " " + word
        } else {
            lines.append(line)
            line = String(word)
        }
    }
    lines.append(line)
    return lines
}
