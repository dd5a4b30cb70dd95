import AirKorea

/// Why a poll failed, typed by where it failed, each with its retry advice and a sentence for the
/// operator (docs/REFERENCE.md §7, §15).
public enum PollFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// AirKorea could not be reached, answered with an error, or sent something unusable.
    case fetch(FetchError)
    /// The database could not store what was fetched.
    case storage(StorageFailure)
    /// The configuration or the service key does not let dustd poll.
    case configuration(String)

    /// The kinds `dustctl status` and the web page name (docs/REFERENCE.md §15).
    public enum Kind: String, Sendable, Hashable, Codable {
        /// No usable answer: connection, timeout, HTTP error, redirect, a body that is not AirKorea's.
        case network
        /// AirKorea answered with a result code other than 00.
        case airKorea
        /// The database.
        case storage
        /// The configuration or the key.
        case configuration

        /// How a Korean reader is told the kind (`dustctl status`, the dashboard's notice).
        public var koreanName: String {
            switch self {
            case .network: "네트워크"
            case .airKorea: "에어코리아 응답"
            case .storage: "저장소"
            case .configuration: "설정"
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .fetch(let error):
            if case .response(.service, _) = error { return .airKorea }
            return .network
        case .storage: return .storage
        case .configuration: return .configuration
        }
    }

    /// When to try again.
    public var retryAdvice: RetryAdvice {
        switch self {
        case .fetch(let error): error.retryAdvice
        case .storage(let failure): failure.kind == .schemaTooNew ? .waitForNextHour : .retryWithBackoff
        case .configuration: .waitForNextHour
        }
    }

    /// The AirKorea result code, when the answer carried one.
    public var resultCode: String? {
        if case .fetch(let error) = self { return error.resultCode }
        return nil
    }

    /// The HTTP status, when a response arrived.
    public var httpStatus: Int? {
        if case .fetch(let error) = self { return error.httpStatus }
        return nil
    }

    public var description: String {
        switch self {
        case .fetch(let error): error.description
        case .storage(let failure): failure.description
        case .configuration(let problem): problem
        }
    }
}
