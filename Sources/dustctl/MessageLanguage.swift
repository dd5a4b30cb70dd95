import ArgumentParser
import DustConfig
import DustKit
import DustServices

// dustctl's own sentences on stderr — its failures, refusals and warnings — follow the locale as its
// reports and `--help` do (docs/REFERENCE.md §6, "Text"): Korean under a Korean locale, English
// otherwise, the English byte for byte the one tests and docs quote. What another layer wrote stays
// as it wrote it: ArgumentParser's usage errors, what a parser, the database server or the system
// says, and a configuration error's sentence (DustConfig's).

extension ValidationError {
    /// An option's refusal (`Error: …` before the usage) in the process's language.
    init(korean: String, english: String) {
        self.init(ReportLanguage.process.say(korean, english))
    }
}

/// A warning on stderr (`dustctl: warning: …`, `dustctl: 경고: …`) in the process's language.
func standardWarning(_ korean: String, _ english: String) {
    standardError(ReportLanguage.process.say("경고: " + korean, "warning: " + english))
}

/// A settings warning (`FineDustSettings.warnings`, DustConfig's English) in Korean when it is the
/// one the loader writes for a misspelt `DUSTD_…` variable; any other as it was written.
func koreanSettingsWarning(_ warning: String) -> String {
    let pattern = /the environment variable (.+?) is not a FineDust setting and is ignored(?: \(did you mean (.+)\?\))?/
    guard let match = warning.wholeMatch(of: pattern) else { return warning }
    return "환경 변수 \(match.1)은(는) FineDust 설정이 아니어서 무시합니다" + (match.2.map { " (혹시 \($0)인가요?)" } ?? "")
}

/// A configuration error in Korean when it is the one met most, a misspelt key in the file
/// (`station.nmae is not a FineDust setting (did you mean station.name?)`); any other as DustConfig wrote it.
func koreanConfigurationError(_ error: ConfigurationError) -> String {
    guard let key = error.key, let match = error.problem.wholeMatch(of: /is not a FineDust setting(?: \(did you mean (.+)\?\))?/)
    else { return error.description }
    let location = error.source.map { " (\($0.replacing(/, line (\d+)$/) { ", \($0.1)번째 줄" }))" } ?? ""
    return "설정이 잘못되었습니다: \(key)은(는) FineDust 설정이 아닙니다" + (match.1.map { " (혹시 \($0)인가요?)" } ?? "") + "\(location)."
}

/// The storage layer's failures in Korean, from their parts.
///
/// A `StorageFailure` is a kind, an English sentence and, where FineDust wrote the sentence itself (an
/// SQLite database's failures), its parts: the database it names and why. From those the Korean is
/// said with the same path and reason — FineDust's own reasons translated, SQLite's and the system's
/// words as they were given. A failure without parts (a PostgreSQL server's words) stays as written.
enum StorageText {
    static func korean(_ failure: StorageFailure) -> String? {
        guard let detail = failure.detail else { return nil }
        let path = detail.database
        switch (failure.kind, detail.reason) {
        case (.missing, nil):
            return "\(path)에 데이터베이스가 없습니다. `dustctl import FILE…`로 만들거나, dustd를 한 번 실행하거나, --db PATH를 주세요."
        case (.unwritable, .readOnlyFileSystem):
            return "\(path)이(가) 있는 파일 시스템은 여기서 읽기 전용입니다: 쓰기 오류가 난 SD 카드를 커널이 이렇게 두고(dmesg를 확인한 뒤 읽기-쓰기로 "
                + "다시 마운트하거나 데이터베이스를 성한 디스크로 옮기세요), dustd의 유닛은 /var/lib/dustd 아래에만 쓰게 합니다(다른 storage.path는 "
                + "유닛에 ReadWritePaths=가 필요합니다). 아무것도 쓰지 않았고 저장된 데이터는 읽을 수 있습니다."
        case (.unwritable, .readOnlyWithoutSharedMemory):
            return "데이터베이스 \(path)을(를) 읽을 수 없습니다: \(korean(StorageFailure.Reason.readOnlyWithoutSharedMemory))."
        case (.unwritable, .noSharedMemory(let directory)):
            return "데이터베이스 \(path)을(를) 읽을 수 없습니다: 읽으려면 SQLite에 -shm 파일이 있어야 하는데, \(directory)에는 데이터베이스의 주인만 "
                + "만들 수 있습니다. dustd가 실행 중이면 만들어 둡니다: dustd를 시작하거나(systemctl start dustd) 그 사용자로 읽으세요(sudo -u dustd dustctl …)."
        case (.unwritable, .noAccess(let problem)):
            return "데이터베이스 \(path)을(를) 열 수 없습니다: \(korean(problem))."
        case (.unwritable, .some(let reason)):
            return "데이터베이스 \(path)을(를) 열 수 없습니다 (\(korean(reason))). 디렉터리가 있는지, 이 사용자가 읽고 쓸 수 있는지 확인하세요."
        case (.diskFull, nil):
            return "\(path)이(가) 있는 디스크가 가득 찼습니다. 아무것도 쓰지 않았고 저장된 데이터는 그대로입니다. 공간을 비운 뒤 다시 해 보세요."
        case (.locked, nil):
            return "데이터베이스 \(path)을(를) 다른 프로세스가 잠그고 있습니다(SQLite: busy). 다시 해 보세요."
        case (.unusable, .notARegularFile(let file, let type)):
            return "\(file)은(는) 일반 파일이 아니라 \(korean(type))입니다. 데이터베이스와 그 -wal, -shm은 일반 파일이어야(또는 아직 없어야) 합니다. "
                + "지우거나 다른 데이터베이스 경로를 지정하세요."
        case (.unusable, .unreadableRow(let problem)):
            return "데이터베이스 \(path)을(를) 읽을 수 없습니다: \(problem)."
        case (.unusable, .some(let reason)):
            return "\(path) 파일은 쓸 수 있는 FineDust 데이터베이스가 아닙니다 (\(korean(reason))). 백업에서 되살리거나 다른 곳으로 옮기세요."
        case (.schemaTooNew, nil):
            return "데이터베이스 \(path)은(는) 더 새로운 FineDust가 썼습니다. dustd와 dustctl을 업그레이드하세요."
        case (.io, .some(let reason)):
            return "데이터베이스 \(path)을(를) 읽거나 쓰지 못했습니다 (\(korean(reason)))."
        default:
            return nil
        }
    }

    /// A reason in Korean: FineDust's own translated, SQLite's and the system's words as they are.
    private static func korean(_ reason: StorageFailure.Reason) -> String {
        switch reason {
        case .noFineDustTables: "FineDust 테이블이 없습니다"
        case .olderSchema:
            "예전 FineDust가 쓴 것이라 업그레이드되어야 이 버전이 읽습니다. dustd를 다시 시작하면(systemctl restart dustd) 업그레이드되니, 그 뒤에 다시 해 보세요"
        case .cannotCreateDirectory(let words): "디렉터리를 만들 수 없습니다: " + words
        case .unreadableRow(let problem): problem
        case .tablesAltered(let words): "테이블이 마이그레이션이 만든 것과 다릅니다: " + words
        case .readOnlyFileSystem: "파일 시스템이 읽기 전용으로 마운트되어 있습니다"
        case .notARegularFile(let file, let type): "\(file)은(는) 일반 파일이 아니라 \(korean(type))입니다"
        case .noSharedMemory(let directory): "-shm 파일이 없고 \(directory)에 만들 수 없습니다"
        case .readOnlyWithoutSharedMemory:
            "파일 시스템이 읽기 전용이고 옆에 -shm 파일이 없습니다. SQLite는 이 파일이 있어야 읽을 수 있는데 그곳에 만들 수 없습니다: "
                + "데이터베이스를(-wal 파일이 있으면 함께) cp로 쓸 수 있는 디스크에 복사해 그 복사본을 읽거나, 파일 시스템을 읽기-쓰기로 "
                + "다시 마운트하세요. 아무것도 쓰지 않았습니다"
        case .noAccess(let problem): korean(problem)
        case .given(let words): words
        }
    }

    /// `AccessProblem`'s sentence in Korean: the same file, owner, mode and command.
    static func korean(_ problem: AccessProblem) -> String {
        let what =
            switch problem.need {
            case .enter: "이 사용자(\(problem.user))는 \(problem.path)에 들어갈 수 없습니다"
            case .read: "이 사용자(\(problem.user))는 \(problem.path)을(를) 읽을 수 없습니다"
            case .write: "이 사용자(\(problem.user))는 \(problem.path)에 쓸 수 없습니다"
            }
        let whose = "\(problem.owner):\(problem.group), 모드 \(problem.mode)"
        let remedy =
            switch problem.fix {
            case .joinGroup(let group): "\(group) 그룹의 구성원은 할 수 있습니다: `sudo usermod -aG \(group) \(problem.user)` 뒤에 다시 로그인하세요(또는 sudo를 쓰세요)"
            case .giveBack(let owner, let group, let files):
                "이 파일은 \(problem.owner)의 것이고, 이 디렉터리의 주인 \(owner)의 것이 아닙니다(sudo로 실행한 명령이 만들었나요?): `sudo chown \(owner):\(group) \(files)`"
            case .letGroupRead(let file): "그룹이 읽을 수 없습니다: `sudo chmod g+r \(file)`"
            case .runAsOwner(let owner):
                "쓰는 명령(import, activity import, person, stations sync)은 주인으로 실행하세요: `sudo -u \(owner) dustctl …`(또는 sudo)"
            case .askOwner: "주인(\(problem.owner))이나 root가 이 사용자에게 권한을 주거나, 그 사용자로 실행해야 합니다"
            }
        return "\(what) (\(whose)). \(remedy)"
    }

    /// 파이프(FIFO), 디렉터리, …: what a path holds instead of a regular file.
    private static func korean(_ type: StorageFailure.FileType) -> String {
        switch type {
        case .fifo: "FIFO(이름 있는 파이프)"
        case .directory: "디렉터리"
        case .characterDevice: "문자 장치"
        case .blockDevice: "블록 장치"
        case .socket: "소켓"
        case .symbolicLink: "심볼릭 링크"
        case .unknown: "알 수 없는 종류의 파일"
        }
    }
}

/// A date or week typed on the command line that FineDust refuses (`TypedPeriodError`), its sentence
/// in the process's language: ArgumentParser prints it after `The value '…' is invalid for '--end
/// <YYYY-MM-DD>': `.
struct TypedPeriodRefusal: Error, CustomStringConvertible {
    let error: TypedPeriodError
    var language: ReportLanguage = .process

    var description: String {
        language == .korean ? error.korean : error.description
    }
}

extension ForecastRegionError {
    /// The sentence in `language`: the same province and the same choices.
    func sentence(_ language: ReportLanguage = .process) -> String {
        guard language == .korean else { return description }
        let choices = ForecastRegion.allCases.map(\.rawValue).joined(separator: ", ")
        let setting = "forecast.region(또는 DUSTD_FORECAST_REGION)을 \(choices) 중 하나로 설정"
        switch self {
        case .unknownStation(let sido?):
            return "측정소의 시도 \"\(TerminalSafeText.sanitized(sido))\"은(는) FineDust가 예보 권역으로 바꿀 수 있는 시도가 아닙니다. \(setting)하세요."
        case .unknownStation(nil):
            return "FineDust가 아직 측정소의 시도를 모릅니다(저장된 측정도 측정소 목록도 없음). \(setting)하거나, dustctl stations sync를 실행하세요."
        case .cityNeeded(let sido):
            return "측정소가 있는 \(TerminalSafeText.sanitized(sido))은(는) 예보가 시·군별로 나뉘는데, 측정소의 주소를 모릅니다. "
                + "dustctl stations sync를 실행하거나, \(setting)하세요."
        }
    }
}
