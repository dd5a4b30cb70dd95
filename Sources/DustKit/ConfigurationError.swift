import Foundation

/// A configuration problem: which key, what is wrong, and where the value came from. The one error
/// for every setting FineDust refuses: what DustConfig reads, what the intake model accepts and what
/// dustd can run with.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var key: String?
    public var problem: String
    public var source: String?

    public init(key: String?, problem: String, source: String? = nil) {
        self.key = key
        self.problem = problem
        self.source = source
    }

    /// The problem as a sentence of its own (`station.name is not set, … (in /etc/finedust/dustd.yaml).`):
    /// what a refused reload records after "refused, still running the previous configuration:".
    public var statement: String {
        let location = source.map { " (in \($0))" } ?? ""
        if let key { return "\(key) \(problem)\(location)." }
        return "\(problem)\(location)."
    }

    public var description: String { "Invalid configuration: \(statement)" }
}
