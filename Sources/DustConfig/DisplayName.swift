import DustKit

/// A name FineDust shows on terminals, pages and in the journal, given by the operator (a station in
/// `station.name`, `station.fallbacks`, a person's `station`, `advisories.area`, or dustctl's
/// `--station`): what it may not be.
public enum DisplayName {
    /// The most characters a name may have: AirKorea's longest station name is a dozen.
    public static let maxCharacters = 64
    /// The most Unicode scalars: four a character (combining marks make one character as long as one likes).
    public static let maxScalars = 4 * maxCharacters

    /// Why a text cannot be a name.
    public enum Problem: Error, Sendable, Hashable {
        /// A control character (C0, C1, DEL, a line separator, a bidirectional control): printed, it could
        /// retitle or clear the terminal or reorder what the reader sees.
        case control(Unicode.Scalar, shown: String)
        /// A character drawn as nothing (`InvisibleText`): a look-alike of a real name.
        case invisible(Unicode.Scalar, shown: String)
        /// Longer than any station's name.
        case tooLong(characters: Int, scalars: Int, shown: String)

        /// The end of a sentence naming the value: "holds …", "is … long".
        public var english: String {
            switch self {
            case .control(let scalar, let shown):
                "holds the control character \(TerminalSafeText.codePoint(scalar)) (\"\(shown)\"); write the name without it"
            case .invisible(let scalar, let shown):
                "holds the invisible character \(TerminalSafeText.codePoint(scalar)) (\"\(shown)\"); write the name without it"
            case .tooLong(let characters, let scalars, let shown) where characters <= DisplayName.maxCharacters:
                "is \(scalars) Unicode scalars in \(characters) characters (\"\(shown)\"); a name has at most \(DisplayName.maxScalars)"
            case .tooLong(let characters, _, let shown):
                "is \(characters) characters long (\"\(shown)\"); a name has at most \(DisplayName.maxCharacters)"
            }
        }

        /// The same in Korean, a sentence of its own about "the name".
        public var korean: String {
            switch self {
            case .control(let scalar, let shown):
                "이름(\"\(shown)\")에 제어 문자(\(TerminalSafeText.codePoint(scalar)))가 들어 있습니다. 그 문자 없이 쓰세요"
            case .invisible(let scalar, let shown):
                "이름(\"\(shown)\")에 보이지 않는 문자(\(TerminalSafeText.codePoint(scalar)))가 들어 있습니다. 그 문자 없이 쓰세요"
            case .tooLong(let characters, let scalars, let shown) where characters <= DisplayName.maxCharacters:
                "이름(\"\(shown)\")이 \(characters)자에 유니코드 스칼라 \(scalars)개입니다. 이름은 스칼라 \(DisplayName.maxScalars)개까지입니다"
            case .tooLong(let characters, _, let shown):
                "이름(\"\(shown)\")이 \(characters)자입니다. 이름은 \(DisplayName.maxCharacters)자까지입니다"
            }
        }
    }

    /// Why `text` cannot be a name; nil when it can.
    public static func problem(in text: String) -> Problem? {
        if let scalar = text.unicodeScalars.first(where: TerminalSafeText.isUnsafe) {
            return .control(scalar, shown: TerminalSafeText.shown(text, characters: 80))
        }
        if let scalar = InvisibleText.first(in: text) {
            return .invisible(scalar, shown: TerminalSafeText.shown(text, characters: 80))
        }
        let scalars = text.unicodeScalars.count
        if scalars > maxScalars || text.count > maxCharacters {
            return .tooLong(characters: text.count, scalars: scalars, shown: TerminalSafeText.shown(text, characters: 40))
        }
        return nil
    }
}
