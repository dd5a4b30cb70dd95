import DustKit
import Foundation

/// Every key's value while the settings are read. Each key of `SettingKey.all` sets its field
/// (to the declared default when neither the environment nor the file gives a value) before
/// `settings(origins:configurationFile:)` checks them together; the initial values below are
/// placeholders that no key leaves in place.
struct SettingValues {
    var station = StationSettings(name: nil, fallbacks: [], mode: .single)
    var api = APISettings(baseURL: "", version: "", timeoutSeconds: 0, serviceKeyFile: nil)
    var poll = PollSettings(minute: 0, jitterSeconds: 0, intervalSeconds: 0, retryInitialSeconds: 0, retryMaxSeconds: 0)
    var storagePath = ""
    var postgres: PostgresLocation?
    var storagePasswordFile: String?
    var timeZone = TimeZone.gmt
    var intakeModel = IntakeModelName.ventilation
    var infiltration = 0.0
    var ventilationRates: [ActivityLevel: Double] = [:]
    var schedule: [ScheduleEntry] = []
    var people: [PersonEntry] = []
    var logLevel = LogLevel.info
    var http = HTTPSettings(listen: "", tokenFile: nil)
    var forecast = ForecastSettings(enabled: true, region: nil)
    var advisories = AdvisorySettings(enabled: true, district: nil, area: nil)
    var alerts = AlertSettings()
    var activityMaxInflatedBytes = 0
    var location = LocationSettings(radiusKilometres: 0)
    var retention = RetentionSettings(positionsDays: 0, samplesDays: 0)
    var indoor = IndoorSettings()
}
