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

    /// `explanation` in Korean: what a household setting up its key reads on the Korean dashboard and in
    /// `dustctl status` under a Korean locale.
    public var koreanExplanation: String {
        switch self {
        case .ok: "요청이 성공했습니다."
        case .applicationError: "에어코리아 쪽 애플리케이션 오류입니다. FineDust가 간격을 늘려 가며 다시 시도합니다."
        case .databaseError: "에어코리아 쪽 데이터베이스 오류입니다. FineDust가 간격을 늘려 가며 다시 시도합니다."
        case .noData: "에어코리아에 이 요청의 데이터가 없습니다. 측정소 이름이 `dustctl stations list`의 이름과 똑같은지 확인하세요."
        case .httpError: "에어코리아 쪽 HTTP 오류입니다. FineDust가 간격을 늘려 가며 다시 시도합니다."
        case .serviceTimeout:
            "data.go.kr 게이트웨이가 에어코리아에 닿기 전에 시간이 초과되었습니다(첫 호출에서 흔합니다). FineDust가 간격을 늘려 가며 다시 시도합니다."
        case .invalidParameter: "에어코리아가 요청 변수를 받지 않았습니다. 설정의 station.name과 api.version을 확인하세요."
        case .missingParameter: "필수 요청 변수가 빠졌습니다. 설정의 station.name을 확인하세요."
        case .noSuchService: "data.go.kr가 이 기능을 모릅니다. api.baseURL을 확인하세요(/B552584로 끝나야 합니다)."
        case .accessDenied:
            "서비스 키가 이 API에 승인되지 않았습니다. data.go.kr에서 한국환경공단_에어코리아_대기오염정보를 활용신청하세요(마이페이지 → 활용신청)."
        case .serviceKeyTemporarilyDisabled:
            "data.go.kr가 서비스 키를 잠시 막았습니다. data.go.kr 마이페이지를 확인하고 기다리거나, 다시 쓸 수 있게 해 달라고 요청하세요."
        case .dailyQuotaExceeded:
            "서비스 키의 하루 요청 한도를 다 썼습니다. FineDust는 한국 시간 00:01까지 기다립니다. 자주 그러면 data.go.kr에 더 큰 한도(운영계정)를 신청하세요."
        case .perSecondLimitExceeded: "서비스 키로 초당 너무 많이 요청했습니다. FineDust가 1분 기다립니다."
        case .blockedIP: "data.go.kr가 이 컴퓨터의 IP 주소를 막았습니다. data.go.kr 고객지원에 문의하세요."
        case .serviceKeyNotRegistered:
            "등록되지 않은 서비스 키입니다. data.go.kr에 보이는 키를 그대로 쓰세요(Decoding 키가 가장 안전하고, 이미 URL 인코딩된 키를 한 번 더 인코딩하면 실패합니다). 새 키는 쓸 수 있게 되기까지 1~2시간 걸릴 수 있습니다."
        case .serviceKeyExpired:
            "서비스 키의 활용기간이 끝났습니다. data.go.kr에서 연장하고(마이페이지 → 활용기간 연장) 새 키를 설치하세요."
        case .unregisteredIP: "이 컴퓨터의 IP 주소가 서비스 키에 등록되어 있지 않습니다. data.go.kr에서 추가하거나 IP 제한을 없애세요."
        case .unsignedCall: "서비스가 요구하는 서명 없이 호출했습니다. 서비스 키를 확인하세요."
        case .unknown: "에어코리아가 알 수 없는 오류를 알렸습니다. FineDust가 간격을 늘려 가며 다시 시도합니다."
        }
    }

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
            "The daily request quota of the service key is used up; FineDust waits until 00:01 KST. Ask data.go.kr for a larger quota (운영계정) if it keeps happening."
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
