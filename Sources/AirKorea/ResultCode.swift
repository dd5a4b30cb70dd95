import DustKit
import Foundation

/// AirKorea / data.go.kr result codes (`resultCode`, `returnReasonCode`), each with what to do about it.
public enum ResultCode: String, Sendable, Hashable, CaseIterable {
    case ok = "00"
    case applicationError = "01"
    case databaseError = "02"
    case noData = "03"
    case httpError = "04"
    case serviceTimeout = "05"
    case invalidParameter = "10"
    case missingParameter = "11"
    case noSuchService = "12"
    case accessDenied = "20"
    case serviceKeyTemporarilyDisabled = "21"
    case dailyQuotaExceeded = "22"
    case perSecondLimitExceeded = "23"
    case blockedIP = "29"
    case serviceKeyNotRegistered = "30"
    case serviceKeyExpired = "31"
    case unregisteredIP = "32"
    case unsignedCall = "33"
    case unknown = "99"

    /// The code named by a gateway or legacy message such as `SERVICE_KEY_IS_NOT_REGISTERED_ERROR`
    /// or `LIMITED NUMBER OF SERVICE REQUESTS EXCEEDS ERROR.`; nil if the message names none.
    public init?(errorName: String) {
        let normalized = String(errorName.uppercased().map { $0 == " " ? "_" : $0 })
            .trimmingCharacters(in: ["_", "."])
        guard let code = Self.codesByErrorName[normalized] else { return nil }
        self = code
    }

    /// `reported` when it is one of the codes above, else `ServerVocabulary.unknownValue`: what the
    /// reader keeps of a `resultCode` or `returnReasonCode`, which goes on to the log, the database
    /// (`poll_attempt.result_code`), `dustctl status` and the page. A server that answers eight polls
    /// with eight pieces of the key as their codes leaves eight `(unknown value)`s, not the key.
    public static func inVocabulary(_ reported: String) -> String {
        ResultCode(rawValue: reported) != nil ? reported : ServerVocabulary.unknownValue
    }

    /// `message` when `isKnownMessage`, else `ServerVocabulary.unknownValue`.
    public static func messageInVocabulary(_ message: String) -> String {
        isKnownMessage(message) ? message : ServerVocabulary.unknownValue
    }

    /// A message AirKorea or data.go.kr sends with a result code: one naming a code
    /// (`SERVICE_KEY_IS_NOT_REGISTERED_ERROR`, `NORMAL SERVICE.`), the gateway's `SERVICE ERROR`,
    /// or one in Korean words (`서비스 요청제한횟수 초과에러`). Anything else is not quoted.
    public static func isKnownMessage(_ message: String) -> Bool {
        let trimmed = message.trimmingCharacters(in: .whitespaces)
        return ResultCode(errorName: trimmed) != nil || trimmed == "SERVICE ERROR" || ServerVocabulary.isKoreanText(trimmed)
    }

    private static let codesByErrorName: [String: ResultCode] = [
        "NORMAL_SERVICE": .ok, "NORMAL_CODE": .ok,
        "APPLICATION_ERROR": .applicationError,
        "DB_ERROR": .databaseError,
        "NODATA_ERROR": .noData, "NO_DATA_ERROR": .noData,
        "HTTP_ERROR": .httpError,
        "SERVICETIMEOUT_ERROR": .serviceTimeout, "SERVICE_TIMEOUT_ERROR": .serviceTimeout,
        "INVALID_REQUEST_PARAMETER_ERROR": .invalidParameter,
        "NO_MANDATORY_REQUEST_PARAMETERS_ERROR": .missingParameter,
        "NO_OPENAPI_SERVICE_ERROR": .noSuchService,
        "SERVICE_ACCESS_DENIED_ERROR": .accessDenied,
        "TEMPORARILY_DISABLE_THE_SERVICEKEY_ERROR": .serviceKeyTemporarilyDisabled,
        "LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR": .dailyQuotaExceeded,
        "LIMITED_NUMBER_OF_SERVICE_REQUESTS_PER_SECOND_EXCEEDS_ERROR": .perSecondLimitExceeded,
        "BLOCKED_IP_ERROR": .blockedIP,
        "SERVICE_KEY_IS_NOT_REGISTERED_ERROR": .serviceKeyNotRegistered,
        "DEADLINE_HAS_EXPIRED_ERROR": .serviceKeyExpired,
        "UNREGISTERED_IP_ERROR": .unregisteredIP,
        "UNSIGNED_CALL_ERROR": .unsignedCall,
        "UNKNOWN_ERROR": .unknown,
    ]

    /// What the code means and what to do, in one or two sentences.
    public var explanation: String {
        switch self {
        case .ok:
            "The request succeeded."
        case .applicationError:
            "AirKorea reported an application error on its side; FineDust retries with backoff."
        case .databaseError:
            "AirKorea reported a database error on its side; FineDust retries with backoff."
        case .noData:
            "AirKorea has no data for this request; check that the station name is spelled exactly as in `dustctl stations list`."
        case .httpError:
            "AirKorea reported an HTTP error on its side; FineDust retries with backoff."
        case .serviceTimeout:
            "The data.go.kr gateway timed out reaching AirKorea (this often happens on a first call); FineDust retries with backoff."
        case .invalidParameter:
            "AirKorea rejected a request parameter; check station.name and api.version in the configuration."
        case .missingParameter:
            "A mandatory request parameter was missing; check station.name in the configuration."
        case .noSuchService:
            "data.go.kr does not know this operation; check api.baseURL (it should end in /B552584)."
        case .accessDenied:
            "The service key is not approved for this API; request use of 한국환경공단_에어코리아_대기오염정보 on data.go.kr (마이페이지 → 활용신청)."
        case .serviceKeyTemporarilyDisabled:
            "data.go.kr temporarily disabled the service key; check 마이페이지 on data.go.kr and wait, or ask for it to be re-enabled."
        case .dailyQuotaExceeded:
            "The daily request quota of the service key is used up; FineDust waits until 00:00 KST. Ask data.go.kr for a larger quota (운영계정) if it keeps happening."
        case .perSecondLimitExceeded:
            "Too many requests per second for the service key; FineDust waits a minute."
        case .blockedIP:
            "data.go.kr blocked this machine's IP address; contact data.go.kr support."
        case .serviceKeyNotRegistered:
            "The service key is not registered: use the key exactly as data.go.kr shows it (the Decoding key is safest; a key pasted already URL-encoded twice fails), and note that a new key can take 1–2 hours to start working."
        case .serviceKeyExpired:
            "The service key's period of use has ended; extend it on data.go.kr (마이페이지 → 활용기간 연장) and install the new key."
        case .unregisteredIP:
            "This machine's IP address is not registered for the service key; add it on data.go.kr or remove the IP restriction."
        case .unsignedCall:
            "The call was not signed as the service requires; check the service key."
        case .unknown:
            "AirKorea reported an unknown error; FineDust retries with backoff."
        }
    }
}
