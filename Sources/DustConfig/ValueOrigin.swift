/// Where a key's value came from, so an error says where to fix it.
enum ValueOrigin: Sendable, Hashable {
    case environment(variable: String)
    case file(path: String, line: Int?)
    case defaultValue

    /// The `source` of a `ConfigurationError` about the value.
    var source: String? {
        switch self {
        case .environment(let variable): "environment variable \(variable)"
        case .file(let path, let line): line.map { "\(path), line \($0)" } ?? path
        case .defaultValue: nil
        }
    }
}
