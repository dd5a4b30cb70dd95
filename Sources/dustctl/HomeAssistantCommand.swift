import ArgumentParser
import DustKit
import Foundation

/// `dustctl homeassistant`: the Home Assistant package for this household, as the README shows it for
/// one person (docs/REFERENCE.md §13): one request for the air and the first person's dose, and for
/// each further person one more request (`?person=`) for their own dose, with their own token.
struct HomeAssistantCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "homeassistant",
            abstract: helpAbstract(
                "설정된 가구의 Home Assistant 패키지(packages/finedust.yaml)를 출력합니다.",
                "Print the Home Assistant package (packages/finedust.yaml) for the configured household."),
            discussion: helpText(
                """
                공기와 첫 구성원의 흡입량은 REST 요청 하나로, 그 밖의 구성원은 저마다 자기
                흡입량을 요청 하나씩으로 가져오며, 요청마다 토큰을 담은 시크릿이 따로
                있습니다(그 구성원의 people[].tokenFile의 토큰, 또는 관리자의 토큰). 예:
                  dustctl homeassistant --url http://192.168.0.10:8478 > packages/finedust.yaml
                """,
                """
                One REST request for the air and the first person's dose, and one more per
                further person for their own dose, each with its own secret for the token
                (their people[].tokenFile's, or the administrator's). Example:
                  dustctl homeassistant --url http://192.168.0.10:8478 > packages/finedust.yaml
                """))
    }

    @OptionGroup var options: GlobalOptions

    @Option(help: .localized("Home Assistant가 접속하는 dustd의 주소.", "dustd's address as Home Assistant reaches it.", valueName: "url"))
    var url = "http://192.168.0.10:8478"

    func validate() throws {
        // dustd's address and nothing else: the package adds each path and `?person=` after it, so a query
        // or a fragment would be cut into every resource (`http://h/?person=jiho/api/v1/today`), and a
        // user and password would sit in the YAML in clear: no `?`, `#` or `@` at all.
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil,
            url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" && $0 != "?" && $0 != "#" && $0 != "@" })
        else {
            throw ValidationError(
                korean: "--url은 dustd의 http(s) 주소여야 합니다. 예: http://192.168.0.10:8478.",
                english: "--url must be dustd's http(s) address, e.g. http://192.168.0.10:8478.")
        }
    }

    func run() throws {
        let settings = try options.settings()
        try standardOutput(
            HomeAssistantPackage.text(
                url: url, people: settings.people.map(\.name), indoor: settings.people.first.map { !$0.indoorSensors.isEmpty } ?? false,
                tokens: settings.http.requiresTokens))
    }
}

/// The package's YAML: the README's block for the first person, a dose block per further person.
enum HomeAssistantPackage {
    /// - Parameter indoor: whether the first person has indoor sensors (docs/REFERENCE.md §21): the
    ///   package then reads the latest hour their monitor measured.
    /// - Parameter tokens: whether dustd asks for tokens (`http.tokenFile`, `people[].tokenFile`): each
    ///   request then names a secret for its token. Without, no secret is named: Home Assistant
    ///   refuses a package naming a secret `secrets.yaml` does not hold.
    ///
    /// Every sensor whose value can be missing (an hour AirKorea did not measure, no hour yet today,
    /// no forecast stored) has an `availability` template: the REST integration passes a rendered
    /// `none` on as the text "None", which a numeric sensor refuses and a text sensor shows.
    static func text(url: String, people: [String], indoor: Bool = false, tokens: Bool = true) -> String {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        var text = "rest:\n" + resource(base + "/api/v1/today", secret: tokens ? "finedust_token" : nil) + firstPersonSensors
        if indoor { text += indoorSensor }
        let slugs = slugs(for: people)
        for (index, person) in people.enumerated().dropFirst() {
            let slug = slugs[index]
            let query = person.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? person
            text += resource(base + "/api/v1/today?person=" + query, secret: tokens ? "finedust_token_" + slug : nil)
            text += """
                    sensor:
                      - name: "FineDust PM10 intake today \(person)"
                        unique_id: finedust_pm10_intake_today_\(slug)
                        value_template: "{{ value_json.intake.pm10 }}"
                        availability: "{{ value_json.intake is mapping and value_json.intake.pm10 is number }}"
                        device_class: weight
                        unit_of_measurement: "µg"
                        state_class: total_increasing
                        suggested_display_precision: 1
                      - name: "FineDust PM2.5 intake today \(person)"
                        unique_id: finedust_pm25_intake_today_\(slug)
                        value_template: "{{ value_json.intake.pm25 }}"
                        availability: "{{ value_json.intake is mapping and value_json.intake.pm25 is number }}"
                        device_class: weight
                        unit_of_measurement: "µg"
                        state_class: total_increasing
                        suggested_display_precision: 1

                """
        }
        return text
    }

    /// Each person's part of their secret's name and their sensors' `unique_id`s: the name itself when it is
    /// ASCII (`-` as `_`), else `personN` (N its place in `people`), and never one another person has. Two
    /// names that would make one (`kid-1` and `kid_1`), or a name one of whose fallbacks is another's
    /// (`민지` second and `person2` third), gave two people one secret and one `unique_id`: Home Assistant
    /// drops the second sensor, and one person's dose was asked for with the other's token. Those get
    /// `personN`, and `personN_2`… when that too is a name of the household's.
    static func slugs(for people: [String]) -> [String] {
        let wanted = people.map { $0.unicodeScalars.allSatisfy(\.isASCII) ? $0.replacingOccurrences(of: "-", with: "_") : nil }
        let wantedCount = Dictionary(wanted.compactMap { $0 }.map { ($0, 1) }, uniquingKeysWith: +)
        var taken = Set<String>()
        return wanted.enumerated().map { index, own in
            var slug = own.flatMap { wantedCount[$0] == 1 ? $0 : nil } ?? "person\(index + 1)"
            var suffix = 2
            while taken.contains(slug) || (slug != own && wantedCount[slug] != nil) {
                slug = "person\(index + 1)_\(suffix)"
                suffix += 1
            }
            taken.insert(slug)
            return slug
        }
    }

    private static func resource(_ address: String, secret: String?) -> String {
        let headers = secret.map { "    headers:\n      Authorization: !secret \($0)     # \"Bearer …\", only with http.tokenFile\n" } ?? ""
        return "  - resource: \(address)\n" + headers + "    scan_interval: 600\n"
    }

    /// The indoor monitor's latest measured hour (docs/REFERENCE.md §21), after the README's sensors.
    static let indoorSensor = """
              - name: "FineDust indoor PM2.5"
                unique_id: finedust_indoor_pm25
                value_template: "{{ (value_json.hourly | selectattr('indoorSource', 'defined') | selectattr('indoor.pm25', 'number') | list)[-1].indoor.pm25 }}"
                availability: "{{ value_json.hourly | selectattr('indoorSource', 'defined') | selectattr('indoor.pm25', 'number') | list | count > 0 }}"
                device_class: pm25
                unit_of_measurement: "µg/m³"
                state_class: measurement

        """

    /// The README's sensors (`HomeAssistantPackageTests` resolves each template against the API;
    /// `scripts/web-e2e.sh` renders them with Jinja2 in the states where a value is missing).
    private static let firstPersonSensors = """
            sensor:
              - name: "FineDust PM10"
                unique_id: finedust_pm10
                value_template: "{{ value_json.latest.pm10 }}"
                availability: "{{ value_json.latest is mapping and value_json.latest.pm10 is number }}"
                device_class: pm10
                unit_of_measurement: "µg/m³"
                state_class: measurement
              - name: "FineDust PM2.5"
                unique_id: finedust_pm25
                value_template: "{{ value_json.latest.pm25 }}"
                availability: "{{ value_json.latest is mapping and value_json.latest.pm25 is number }}"
                device_class: pm25
                unit_of_measurement: "µg/m³"
                state_class: measurement
              - name: "FineDust PM10 grade"
                unique_id: finedust_pm10_grade
                value_template: "{{ ['좋음', '보통', '나쁨', '매우나쁨'][value_json.latest.grade.pm10 - 1] }}"
                availability: "{{ value_json.latest is mapping and value_json.latest.grade.pm10 in [1, 2, 3, 4] }}"
                device_class: enum
                icon: mdi:emoticon-outline
              - name: "FineDust PM2.5 grade"
                unique_id: finedust_pm25_grade
                value_template: "{{ ['좋음', '보통', '나쁨', '매우나쁨'][value_json.latest.grade.pm25 - 1] }}"
                availability: "{{ value_json.latest is mapping and value_json.latest.grade.pm25 in [1, 2, 3, 4] }}"
                device_class: enum
                icon: mdi:emoticon-outline
              - name: "FineDust PM2.5 intake today"
                unique_id: finedust_pm25_intake_today
                value_template: "{{ value_json.intake.pm25 }}"
                availability: "{{ value_json.intake is mapping and value_json.intake.pm25 is number }}"
                device_class: weight
                unit_of_measurement: "µg"
                state_class: total_increasing
                suggested_display_precision: 1
              - name: "FineDust O3"
                unique_id: finedust_o3
                value_template: "{{ (value_json.gases.latest.o3 * 1963.2) | round(1) }}"
                availability: "{% set g = value_json.gases.latest if value_json.gases is mapping %}{{ g is mapping and g.o3 is number }}"
                device_class: ozone
                unit_of_measurement: "µg/m³"
                state_class: measurement
              - name: "FineDust NO2"
                unique_id: finedust_no2
                value_template: "{{ (value_json.gases.latest.no2 * 1881.6) | round(1) }}"
                availability: "{% set g = value_json.gases.latest if value_json.gases is mapping %}{{ g is mapping and g.no2 is number }}"
                device_class: nitrogen_dioxide
                unit_of_measurement: "µg/m³"
                state_class: measurement
              - name: "FineDust SO2"
                unique_id: finedust_so2
                value_template: "{{ (value_json.gases.latest.so2 * 2620.3) | round(1) }}"
                availability: "{% set g = value_json.gases.latest if value_json.gases is mapping %}{{ g is mapping and g.so2 is number }}"
                device_class: sulphur_dioxide
                unit_of_measurement: "µg/m³"
                state_class: measurement
              - name: "FineDust CO"
                unique_id: finedust_co
                value_template: "{{ value_json.gases.latest.co }}"
                availability: "{% set g = value_json.gases.latest if value_json.gases is mapping %}{{ g is mapping and g.co is number }}"
                device_class: carbon_monoxide
                unit_of_measurement: "ppm"
                state_class: measurement
              - name: "FineDust CAI"
                unique_id: finedust_cai
                value_template: "{{ value_json.gases.latest.cai }}"
                availability: "{% set g = value_json.gases.latest if value_json.gases is mapping %}{{ g is mapping and g.cai is number }}"
                device_class: aqi
                state_class: measurement
              - name: "FineDust advisory"
                unique_id: finedust_advisory
                value_template: "{% set a = value_json.advisory %}{{ {'PM10': '미세먼지', 'PM25': '초미세먼지', 'O3': '오존'}.get(a.pollutant, a.pollutant) ~ ' ' ~ a.levelWord if a is mapping else '없음' }}"
                icon: mdi:alert
              - name: "FineDust PM2.5 forecast tomorrow"
                unique_id: finedust_pm25_forecast_tomorrow
                value_template: "{{ value_json.forecastTomorrow.pm25.word }}"
                availability: "{% set f = value_json.forecastTomorrow %}{{ f is mapping and f.pm25 is mapping and f.pm25.word is string }}"
                icon: mdi:weather-hazy

        """
}
