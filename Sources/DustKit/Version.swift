/// FineDust's version: what `--version` prints, what the status record carries and what the
/// Debian package is named after. Change it here only.
public enum FineDustVersion {
    public static let current = "0.3.0"
}
