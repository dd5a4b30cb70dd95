import AirKorea
import DustConfig
import DustDaemon
import DustKit
import DustServices
import DustStore
import DustWeb
import Foundation
import ServiceLifecycle
import TestSupport
import Testing

/// Every way Swift turns a value into text: what a log line, a `dump` or a service group would show.
private func everyDescription<Value>(of value: Value) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), "\(value)", dumped]
}

@Suite(
    "Secrets never print: sinks, tokens, the key and dustd's services describe themselves without them (docs/ALERTS.md)",
    .timeLimit(.minutes(10)))
struct SecretDescriptionTests {
    /// Parts of the sinks below that must never appear.
    static let secrets = ["PASSWORD", "SECRETPATH", "QUERYSECRET", "PRIVATE_TOPIC", "tk_SECRETTOKEN", "ARGSECRET", "user:"]

    @Test(
        "Sinks, the sink list, the dispatcher and every service of the group: description, debugDescription, dump and the service group's name hold no secret"
    )
    func descriptionsHoldNoSecret() async throws {
        let directory = try TemporaryDirectory("secret-descriptions")
        defer { directory.remove() }
        let tokenFile = directory.path("ntfy-token")
        try "tk_SECRETTOKEN\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let empty = directory.path("empty.yaml")
        try "# defaults\n".write(toFile: empty, atomically: true, encoding: .utf8)
        var settings = try SettingsLoader(environment: [:]).load(configurationFile: empty, now: settingsLoadedAt)
        settings.storagePath = directory.path("d.sqlite")
        settings.alerts.sinks = [
            .ntfy(url: "https://ntfy.sh/PRIVATE_TOPIC", tokenFile: tokenFile),
            .webhook(url: "http://user:PASSWORD@home.example/SECRETPATH?token=QUERYSECRET"),
            .command(arguments: ["/usr/local/bin/notify", "--token=ARGSECRET"], timeoutSeconds: 10),
        ]
        let sinks = try AlertSinks(settings: settings.alerts, environment: [:])
        defer { Task { await sinks.shutdown() } }
        let store = try SQLiteStore(path: settings.storagePath)
        let logs = LogCapture()
        let database = DaemonDatabase(store, logger: logs.logger())
        let key = try #require(ServiceKey(testKey))
        let live = LiveConfiguration(settings: settings, key: key)
        let board = await DaemonStatusBoard(
            DaemonStatus(
                state: .starting, mode: .daemon, pid: getpid(), version: "test", station: "",
                startedAt: Date(), heartbeatSeconds: 2), database: database, logger: logs.logger())
        let dispatcher = AlertDispatcher(sinks: sinks.sinks, store: store)
        let services: [any Service] = [
            AlertService(
                live: live, database: database, dispatcher: dispatcher, triggers: AsyncStream { $0.finish() }, logger: logs.logger()),
            PollService(
                configuration: live, database: database, board: board, transport: UnreachableTransport(),
                notifier: SystemdNotifier(environment: [:]), logger: logs.logger(), stop: DaemonStop()),
            ReloadService(
                configurationFile: empty, live: live, board: board, redactor: SecretRedactor(), notifier: SystemdNotifier(environment: [:]),
                logger: logs.logger(), environment: [:], webAccess: nil, stop: DaemonStop()),
        ]
        var texts =
            everyDescription(of: sinks) + everyDescription(of: sinks.sinks) + everyDescription(of: dispatcher)
            + everyDescription(of: settings.alerts) + everyDescription(of: live.snapshot)
        for sink in sinks.sinks { texts += everyDescription(of: sink) }
        for service in services {
            texts += everyDescription(of: service)
            // What swift-service-lifecycle logs at debug level when the group starts each service.
            texts.append(ServiceGroupConfiguration.ServiceConfiguration(service: service).serviceName)
        }
        for text in texts {
            for secret in Self.secrets + [testKey] {
                #expect(!text.contains(secret), "\(secret) shows in: \(text)")
            }
        }
        #expect(
            sinks.sinks.map { "\($0)" } == [
                "ntfy https://ntfy.sh/… (sink 1)", "webhook http://home.example/… (sink 2)",
                "command /usr/local/bin/notify (sink 3)",
            ])
        #expect(
            services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0).serviceName } == [
                "AlertService", "PollService", "ReloadService",
            ])
    }

    @Test("The web token, an ntfy token and the key: every description is masked")
    func tokens() throws {
        let token = try #require(BearerToken("web-SECRETTOKEN"))
        let secret = SecretText("tk_SECRETTOKEN")
        let key = try #require(ServiceKey(testKey))
        for text in everyDescription(of: token) + everyDescription(of: secret) + everyDescription(of: key)
            + everyDescription(of: [token]) + everyDescription(of: Optional(secret))
        {
            #expect(!text.contains("SECRETTOKEN") && !text.contains(testKey) && !text.contains("abc123"), "\(text)")
        }
        // A dump shows no field at all: the token's bytes would be the token, one number a line.
        for value in [token, secret, key] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            #expect(dumped.split(separator: "\n").count == 1, "\(dumped)")
        }
    }
}
