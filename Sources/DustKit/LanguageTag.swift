/// The language a locale name (`ko_KR.UTF-8`, `ko`) or a BCP 47 tag (`ko-KR`) names: its first subtag,
/// lower-cased, up to the first `_`, `-`, `.` or `@`. `kok_IN` is Konkani (`kok`), not Korean: a prefix
/// compared by letters took it for `ko`.
public enum LanguageTag {
    public static func primary(_ tag: some StringProtocol) -> String {
        String(tag.prefix { !"_-.@".contains($0) }).lowercased()
    }
}
