#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The variables of this process's environment that a caller asks for, read from the C
/// environment without making a Swift string of every other variable.
///
/// `ProcessInfo.processInfo.environment` builds a new dictionary of the whole environment on
/// every access; a login shell's 50–150 variables cost dustctl 0.1–0.3 ms a time, and both the
/// settings and the terminal style asked (docs/PERFORMANCE.md, "Start-up").
public enum EnvironmentVariables {
    /// The variables whose names start with `prefix`, and those in `names`, with their values.
    /// A variable set twice (possible with `execve`) counts once, as `getenv` sees it: the first.
    public static func read(prefixed prefix: String? = nil, named names: Set<String> = []) -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        guard let prefix, !prefix.isEmpty else { return result }
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        guard entry != nil else { return result }
        let prefixLength = prefix.utf8.count
        while let variable = entry?.pointee {
            entry = entry.map { $0 + 1 }
            guard strncmp(variable, prefix, prefixLength) == 0 else { continue }
            let text = String(cString: variable)
            guard let equals = text.firstIndex(of: "=") else { continue }
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
        }
        return result
    }
}
