import DustConfig
import DustKit
import DustServices
import Foundation
import Logging
import ServiceLifecycle

/// Asks each configured indoor monitor for its reading every `indoor.sampleSeconds` and stores one
/// sample a minute per sensor (docs/REFERENCE.md §21). A task of its own beside the poll: a monitor
/// that never answers costs this loop its 5 s deadline and nothing else. Each answer is hostile input
/// (`SensorAnswer`); a sensor's problem is logged once when it starts and once when it ends, and kept
/// for `dustctl indoor` and `dustctl status`.
public struct IndoorSamplingService: Service, CustomStringConvertible {
    public var description: String { "IndoorSamplingService" }

    /// No answer within this is a problem; the next round asks again.
    public static let answerDeadline: Duration = .seconds(5)
    /// A Home Assistant backfill reaches back at most this far.
    public static let backfillSeconds: TimeInterval = 10 * 86_400

    private let live: LiveConfiguration
    private let database: DaemonDatabase
    private let http: any IndoorSensorHTTP
    private let clock: any WallClock
    private let logger: Logger
    private let environment: [String: String]
    /// Learns Home Assistant's token, so that no log line can carry it.
    private let redactor: SecretRedactor?

    public init(
        live: LiveConfiguration, database: DaemonDatabase, http: any IndoorSensorHTTP, clock: any WallClock, logger: Logger,
        environment: [String: String], redactor: SecretRedactor? = nil
    ) {
        self.redactor = redactor
        self.live = live
        self.database = database
        self.http = http
        self.clock = clock
        self.logger = logger
        self.environment = environment
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var sampler = IndoorSampler(http: http, logger: logger)
            while !Task.isCancelled {
                let started = clock.now
                let settings = live.snapshot.settings.indoor
                let token = Self.homeAssistantToken(settings, environment: environment, redactor: redactor)
                await sampler.round(settings: settings, token: token, at: started, database: database)
                let period = TimeInterval(settings.sampleSeconds)
                do {
                    try await clock.sleep(until: started.addingTimeInterval(period), atMost: period)
                } catch {
                    return
                }
            }
        }
    }

    /// Why `token` cannot be sent in a header, if it cannot: a control byte, a space or a letter beyond ASCII
    /// made NIO refuse the request, which was then said as the server's fault ("answered, but not in HTTP").
    public static func headerProblem(of token: SecretText) -> SensorProblem? {
        guard !AlertSinks.isHeaderToken(token.revealedForSending) else { return nil }
        return .tokenUnusable(
            "the token file (or the credential homeassistant-token) must hold the token alone, in printable ASCII without spaces; make it again from Home Assistant's profile"
        )
    }

    /// Home Assistant's token, read each round (a reload or a rotated file takes effect at once); nil
    /// when no sensor needs it; a failure (none set up, a file that cannot be read) those sensors say.
    public static func homeAssistantToken(
        _ settings: IndoorSettings, environment: [String: String], redactor: SecretRedactor?
    ) -> Result<SecretText, SensorProblem>? {
        guard settings.sensors.contains(where: { $0.kind == .homeassistant }) else { return nil }
        do {
            guard let token = try settings.homeAssistantToken(environment: environment).password else { return .failure(.noToken) }
            redactor?.add(token)
            if let problem = Self.headerProblem(of: token) { return .failure(problem) }
            return .success(token)
        } catch {
            return .failure(.tokenUnusable(error.problem))
        }
    }
}

/// One round of sampling at a time, with what the rounds before it learned: each sensor's state
/// (so a problem is logged when it starts and ends, not each minute) and which Home Assistant
/// sensors need their history read (on start, and after a gap).
public struct IndoorSampler: Sendable {
    private let http: any IndoorSensorHTTP
    private let logger: Logger
    private var states: [String: IndoorSensorState] = [:]
    private var loaded = false
    /// Home Assistant sensors whose history is read before the next sample: every one at first.
    private var needsBackfill: Set<String>?
    /// Sensors whose samples wait for the clock to pass their last one (`clockPassed`).
    private var clockBehind: Set<String> = []
    private var problemLog = SensorProblemLog()

    public init(http: any IndoorSensorHTTP, logger: Logger) {
        self.http = http
        self.logger = logger
    }

    /// Asks every sensor at once, then stores the samples and states in one write.
    public mutating func round(
        settings: IndoorSettings, token: Result<SecretText, SensorProblem>?, at now: Date, database: DaemonDatabase
    ) async {
        let asked = settings.sensors.filter { $0.kind != .imported }
        guard !asked.isEmpty else { return }
        let store: any FineDustStore
        do { store = try database.current() } catch {
            logger.error("Could not store indoor samples: \(error)")
            return
        }
        if !loaded {
            // What was known before this start (the last sample), not its counts: those are since start.
            for state in (try? await store.indoorSensorStates()) ?? [] {
                states[state.sensor] = IndoorSensorState(sensor: state.sensor, kind: state.kind, lastSampleAt: state.lastSampleAt)
            }
            needsBackfill = Set(asked.filter { $0.kind == .homeassistant }.map(\.name))
            loaded = true
        }
        // A Home Assistant sensor a reload added has its history read too.
        for sensor in asked where sensor.kind == .homeassistant && states[sensor.name] == nil { needsBackfill?.insert(sensor.name) }
        let http = http
        let answers = await withTaskGroup(of: (IndoorSensorSettings, Result<SensorValues, SensorProblem>).self) { group in
            for sensor in asked {
                group.addTask { (sensor, await Self.ask(sensor, token: token, http: http)) }
            }
            var answers: [(IndoorSensorSettings, Result<SensorValues, SensorProblem>)] = []
            for await answer in group { answers.append(answer) }
            return answers.sorted { $0.0.name < $1.0.name }
        }
        // A round cut short by dustd's stop ends here: its unanswered questions are no sensor's problem
        // (`dustctl status` said "cannot be reached" of a monitor that answered 2.5 s later), and the
        // samples of those that answered are stored by the next start's first round.
        guard !Task.isCancelled else { return }
        var samples: [IndoorSample] = []
        // Home Assistant sensors whose history is read once this round's samples are stored, from where.
        var backfills: [(sensor: IndoorSensorSettings, from: Date)] = []
        for (sensor, answer) in answers {
            var state = states[sensor.name] ?? IndoorSensorState(sensor: sensor.name, kind: sensor.kind.rawValue)
            state.kind = sensor.kind.rawValue
            state.checkedAt = now
            let before = state.problem
            switch answer {
            case .success(let values):
                if sensor.kind == .homeassistant, needsBackfill?.contains(sensor.name) ?? false {
                    // Where the gap starts is asked now, before this round's sample closes it.
                    if let from = await backfillStart(sensor, since: state.lastSampleAt, now: now, store: store) {
                        backfills.append((sensor, from))
                    }
                    needsBackfill?.remove(sensor.name)
                }
                let hold = sensor.kind == .homeassistant ? IndoorSample.stateHoldSeconds : IndoorSample.sampledHoldSeconds
                guard clockPassed(state.lastSampleAt, of: sensor.name, at: now) else {
                    // What `dustctl status` shows meanwhile: not the problem of before the power cut.
                    if state.problem != Self.waitingForClock { state.problemSince = now }
                    state.problem = Self.waitingForClock
                    break
                }
                samples.append(IndoorSample(sensor: sensor.name, at: now, value: values.value, holdSeconds: hold))
                state.lastSampleAt = IndoorSample.minute(containing: now)
                state.unknownSamples += values.unknown
                state.problem = nil
                state.problemSince = nil
                problemLog.round(sensor.name, problem: nil, at: now, logger: logger)
            case .failure(let problem):
                if problem == .implausible || problem == .channelsDisagree { state.unknownSamples += 1 }
                let text = problem.description
                if text != before { state.problemSince = now }
                // Home Assistant says the device is gone: a sample of no value, once, ends the hold of
                // its last value, which counted on for up to an hour of a device known to be away.
                if problem == .unavailable, text != before, clockPassed(state.lastSampleAt, of: sensor.name, at: now) {
                    samples.append(
                        IndoorSample(
                            sensor: sensor.name, at: now, value: DustPair(repeating: nil), holdSeconds: IndoorSample.stateHoldSeconds))
                }
                problemLog.round(sensor.name, problem: text, at: now, logger: logger)
                state.problem = text
                // A gap: Home Assistant holds what happened meanwhile.
                if sensor.kind == .homeassistant { needsBackfill?.insert(sensor.name) }
            }
            states[sensor.name] = state
        }
        do {
            try await store.saveIndoor(samples: samples, states: answers.compactMap { states[$0.0.name] })
        } catch {
            logger.error("Could not store indoor samples: \(error)")
        }
        // After the round's samples: a slow Home Assistant's ten days (up to 5 s a day asked) held every
        // other monitor's sample back, one sensor's history after another's (docs/RELIABILITY.md,
        // "seventeenth session"); now they are read side by side, once the round is stored.
        // Two at a time: each holds one answer (up to 8 MiB) while it reads, under the unit's MemoryMax. They end
        // at the minute of this round's sample, which a state read back must not write over.
        let sampler = self
        let until = IndoorSample.minute(containing: now)
        for start in stride(from: 0, to: backfills.count, by: 2) {
            await withTaskGroup(of: Void.self) { group in
                for (sensor, from) in backfills[start..<min(start + 2, backfills.count)] {
                    group.addTask { await sampler.backfill(sensor, token: token, from: from, until: until, store: store) }
                }
            }
        }
    }

    /// The sensor's state while its samples wait for the clock (`clockPassed`).
    public static let waitingForClock =
        "answers, but its samples wait until this machine's clock passes the last one stored (is the time set? NTP?)"

    /// Whether a sample taken `now` may be stored after the sensor's last one (`last`): not when the
    /// clock is behind that minute. A sample is stamped with this machine's clock, and a Raspberry Pi
    /// after a power cut starts from the time it last saved, up to an hour behind, until NTP answers:
    /// its samples wrote over the real ones of that hour. They wait (logged once) until the clock has
    /// passed the last sample. A last sample more than a day ahead is the clock's own earlier mistake
    /// (set ahead, since set right) and does not hold sampling back.
    private mutating func clockPassed(_ last: Date?, of sensor: String, at now: Date) -> Bool {
        let minute = IndoorSample.minute(containing: now)
        guard let last, last > minute, last.timeIntervalSince(now) < 86_400 else {
            if clockBehind.remove(sensor) != nil {
                logger.notice("Indoor sensor \(sensor): this machine's clock has passed its last sample; sampling again")
            }
            return true
        }
        if clockBehind.insert(sensor).inserted {
            logger.warning(
                "Indoor sensor \(sensor): this machine's clock (\(now)) is behind the sensor's last sample (\(last)); its samples wait until the clock passes it, so stored ones are not written over (is the time set? NTP?)"
            )
        }
        return false
    }

    /// Asks one sensor the question its kind documents.
    static func ask(
        _ sensor: IndoorSensorSettings, token: Result<SecretText, SensorProblem>?, http: any IndoorSensorHTTP
    ) async -> Result<SensorValues, SensorProblem> {
        guard let base = sensor.url else { return .failure(.unreachable) }
        do throws(SensorProblem) {
            switch sensor.kind {
            case .airgradient:
                return .success(try SensorAnswer.airGradient(try await body(base + "/measures/current", bearer: nil, http: http)))
            case .purpleair:
                return .success(
                    try SensorAnswer.purpleAir(
                        try await body(base + "/json", bearer: nil, http: http), epa2021: sensor.correction == .epa2021))
            case .homeassistant:
                guard let entity = sensor.entity else { return .failure(.noToken) }
                let answer = try await body(
                    base + "/api/states/" + entity, bearer: try (token ?? .failure(.noToken)).get(), http: http, homeAssistant: true)
                return .success(try SensorAnswer.homeAssistantState(answer, pollutant: sensor.pollutant))
            case .imported:
                return .failure(.unreachable)
            }
        } catch {
            return .failure(error)
        }
    }

    private static func body(
        _ url: String, bearer: SecretText?, http: any IndoorSensorHTTP, homeAssistant: Bool = false,
        maxBytes: Int = SensorAnswer.maxBytes
    ) async throws(SensorProblem) -> Data {
        let answer = try await http.get(url, bearer: bearer, timeout: IndoorSamplingService.answerDeadline, maxBodyBytes: maxBytes)
        if let problem = SensorAnswer.problem(status: answer.status, homeAssistant: homeAssistant) { throw problem }
        return answer.body
    }

    /// Where a Home Assistant sensor's history is to be read from: its newest stored sample (else the
    /// last one its state knows), at most 10 days back; nil when there is no gap of over two minutes.
    private func backfillStart(_ sensor: IndoorSensorSettings, since last: Date?, now: Date, store: any FineDustStore) async -> Date? {
        let stored = (try? await store.newestIndoorSample(sensor: sensor.name, before: now)) ?? last
        let start = max(stored ?? .distantPast, now.addingTimeInterval(-IndoorSamplingService.backfillSeconds))
        return now.timeIntervalSince(start) > 120 ? start : nil
    }

    /// Home Assistant's states since the newest stored sample (at most 10 days back), each holding
    /// until the next change, stored a window at a time; nothing when there is no gap, and what was
    /// read until then when the history cannot be read (logged).
    ///
    /// A day per request, each answer read only for its own window and folded to one state a minute
    /// (`SensorAnswer.homeAssistantHistory`), and each window written before the next is asked: what
    /// a backfill holds at once is one answer and at most 1,441 states, even from a server that
    /// ignores `end_time` and answers the same 8 MiB ten times (docs/RELIABILITY.md, "Indoor monitors").
    ///
    /// The states of no plausible value are counted in the history's log line (ten days of 5,000 µg/m³ were
    /// dropped with no count and no line), not in the sensor's count of unknown answers, which is of the answers
    /// since dustd started: a history reaches days before that, and rereads states the live rounds counted.
    private func backfill(
        _ sensor: IndoorSensorSettings, token: Result<SecretText, SensorProblem>?, from start: Date, until now: Date,
        store: any FineDustStore
    ) async {
        guard case .success(let token)? = token, let base = sensor.url, let entity = sensor.entity else { return }
        var kept = 0
        var unknown = 0
        var windowStart = start
        while windowStart < now {
            let windowEnd = min(windowStart.addingTimeInterval(SensorAnswer.historyWindowSeconds), now)
            // `+` of the offset written %2B: in a query it would read as a space.
            let (from, to) = (HomeAssistantTime.text(windowStart), HomeAssistantTime.text(windowEnd))
            let url =
                base + "/api/history/period/" + from.replacingOccurrences(of: "+", with: "%2B") + "?filter_entity_id=" + entity
                + "&end_time=" + to.replacingOccurrences(of: "+", with: "%2B") + "&minimal_response"
            do throws(SensorProblem) {
                let answer = try await Self.body(
                    url, bearer: token, http: http, homeAssistant: true, maxBytes: SensorAnswer.maxHistoryBytes)
                let history = try SensorAnswer.homeAssistantHistory(
                    answer, entity: entity, pollutant: sensor.pollutant, window: windowStart..<windowEnd)
                unknown += history.unknown
                let samples = history.states.map {
                    IndoorSample(sensor: sensor.name, at: $0.at, value: $0.value, holdSeconds: IndoorSample.stateHoldSeconds)
                }
                if !samples.isEmpty {
                    do {
                        try await store.saveIndoor(samples: samples, states: [])
                    } catch {
                        logger.error("Could not store indoor samples: \(error)")
                        break
                    }
                    kept += samples.count
                }
            } catch {
                logger.warning("Indoor sensor \(sensor.name): Home Assistant's history could not be read: it \(error)")
                break
            }
            windowStart = windowEnd
        }
        if kept > 0 || unknown > 0 {
            logger.info(
                "Indoor sensor \(sensor.name): Home Assistant's history read",
                metadata: ["states": "\(kept)", "implausible": "\(unknown)"])
        }
    }
}

/// How a sensor's problems reach the log: when one starts and when it ends, as a person reading the
/// journal wants them. A sensor that flaps (answering 200 and 502 by turns, or 500, 501, 502 …) once
/// wrote a line every round, 60 an hour. Now, after a line, the next hour's changes are counted and
/// not written, except the plain end of the problem just written; once the hour is over, a state that
/// differs from the last one written is written, with the count.
struct SensorProblemLog {
    static let quietSeconds: TimeInterval = 3600

    private struct Sensor {
        /// The last state written: a problem, or nil for "answers".
        var logged: String?
        /// The state of the round before.
        var current: String?
        /// Changes of state since the last line.
        var changes = 0
        var quietUntil = Date.distantPast
    }

    private var sensors: [String: Sensor] = [:]

    /// One round of `sensor`: its problem, or nil when it answered.
    mutating func round(_ sensor: String, problem: String?, at now: Date, logger: Logger) {
        var known = sensors[sensor] ?? Sensor()
        defer {
            known.current = problem
            sensors[sensor] = known
        }
        if problem != known.current { known.changes += 1 }
        guard problem != known.logged else { return }
        // A clock set back must not stretch the hour.
        let quiet = now < known.quietUntil && known.quietUntil.timeIntervalSince(now) <= Self.quietSeconds
        let plainEnd = problem == nil && known.changes == 1
        guard !quiet || plainEnd else { return }
        let more = known.changes > 1 ? " (after \(known.changes - 1) changes in the hour before, not logged one by one)" : ""
        if let problem {
            logger.warning("Indoor sensor \(sensor) \(problem)\(more)")
        } else {
            logger.notice("Indoor sensor \(sensor) answers again\(more)")
        }
        known.logged = problem
        known.changes = 0
        if !plainEnd { known.quietUntil = now.addingTimeInterval(Self.quietSeconds) }
    }
}
