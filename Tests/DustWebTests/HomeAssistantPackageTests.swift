import DustKit
import DustServices
import Foundation
import HummingbirdTesting
import TestSupport
import Testing
import Yams

/// The README's Home Assistant package (the YAML block after `<!-- home-assistant-package -->`).
private func readmePackage() throws -> [String: Any] {
    let readme = try String(
        contentsOf: TestFixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let marker = try #require(readme.range(of: "<!-- home-assistant-package -->\n```yaml\n"))
    let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
    // `!secret` is Home Assistant's own tag; Yams keeps its value as a plain string.
    let yaml = String(readme[marker.upperBound..<end.lowerBound])
    return try #require(try Yams.load(yaml: yaml) as? [String: Any])
}

/// Every `value_json…` path a template reads, with `{% set NAME = value_json.PATH %}` aliases
/// followed: `gases.latest.o3` for `{% set g = value_json.gases.latest %}… g.o3 …`.
func templatePaths(_ template: String) -> [[String]] {
    let path = #/(?<root>[A-Za-z_][A-Za-z0-9_]*)(?<rest>(?:\.[A-Za-z_][A-Za-z0-9_]*|\[-?\d+\])+)/#
    var aliases: [String: [String]] = ["value_json": []]
    for set in template.matches(of: #/\{%\s*set\s+(?<name>\w+)\s*=\s*value_json(?<rest>(?:\.\w+|\[-?\d+\])*)\s*%\}/#) {
        aliases[String(set.name)] = segments(String(set.rest))
    }
    var paths: [[String]] = []
    for reference in template.matches(of: path) {
        guard let base = aliases[String(reference.root)] else { continue }
        paths.append(base + segments(String(reference.rest)))
    }
    return paths
}

private func segments(_ rest: String) -> [String] {
    rest.matches(of: #/\.(?<key>\w+)|\[(?<index>-?\d+)\]/#).map { String($0.key ?? $0.index ?? "") }
}

/// The value at `path` in a JSON document; nil when a member or element on the way does not exist
/// (`NSNull` when it exists and is null).
func resolve(_ path: [String], in document: Any) -> Any? {
    var value: Any = document
    for segment in path {
        if let object = value as? [String: Any] {
            guard let next = object[segment] else { return nil }
            value = next
        } else if let array = value as? [Any], let index = Int(segment) {
            let position = index < 0 ? array.count + index : index
            guard array.indices.contains(position) else { return nil }
            value = array[position]
        } else {
            return nil
        }
    }
    return value
}

@Suite("The README's Home Assistant package reads the real /api/v1/today", .timeLimit(.minutes(10)))
struct HomeAssistantPackageTests {
    /// The units Home Assistant accepts for each device class the package uses (its sensor
    /// documentation); `aqi` has none.
    static let units: [String: String?] = [
        "pm10": "µg/m³", "pm25": "µg/m³", "ozone": "µg/m³", "nitrogen_dioxide": "µg/m³", "sulphur_dioxide": "µg/m³",
        "carbon_monoxide": "ppm", "aqi": nil, "weight": "µg",
    ]

    @Test("One request to /api/v1/today; PM10, PM2.5, each gas and the index as measurements; every template path exists in the document")
    func package() async throws {
        let rests = try #require(try readmePackage()["rest"] as? [[String: Any]])
        #expect(rests.count == 1)
        let rest = try #require(rests.first)
        let resource = try #require(rest["resource"] as? String)
        #expect(resource.hasSuffix("/api/v1/today"))
        let sensors = try #require(rest["sensor"] as? [[String: Any]])
        let classes = sensors.compactMap { $0["device_class"] as? String }
        #expect(Set(classes) == Set(Self.units.keys).union(["enum"]), "PM10, PM2.5, O3, NO2, SO2, CO, the CAI and the grades")
        #expect(Set(sensors.compactMap { $0["unique_id"] as? String }).count == sensors.count)

        let rig = try await WebRig()
        defer { rig.directory.remove() }
        try await rig.storeWarningInForce()
        // The demo's last hour, as the dashboard shows it: 2026-11-20 23:59:59 KST.
        let source = try rig.source(clock: FixedClock(DemoReplay.now.addingTimeInterval(-20 * 60 - 1)))
        let body = try await rig.application(source).test(.router) { client in
            try await client.execute(uri: resource.replacing(#/^https?://[^/]+/#, with: "/"), method: .get) { response in
                #expect(response.status == .ok)
                return text(response)
            }
        }
        let document = try JSONSerialization.jsonObject(with: Data(body.utf8))
        var numbers: [String: Double] = [:]
        for sensor in sensors {
            let name = try #require(sensor["name"] as? String)
            let template = try #require(sensor["value_template"] as? String, "\(name)")
            let paths = templatePaths(template)
            #expect(!paths.isEmpty, "\(name) reads the document")
            for path in paths + templatePaths(sensor["availability"] as? String ?? "") {
                #expect(resolve(path, in: document) != nil, "\(name): \(path.joined(separator: ".")) is in /api/v1/today")
            }
            // A value that can be missing makes the sensor unavailable (the REST integration would pass a
            // rendered `none` on as the text "None"): every sensor but the advisory, which says 없음.
            #expect((sensor["availability"] != nil) == (sensor["unique_id"] as? String != "finedust_advisory"), "\(name)")
            if sensor["device_class"] as? String == "enum" {
                // A grade: Home Assistant's enum sensor, text with no unit and no state class (its state is
                // checked against `options` only when there are some; the REST integration takes none).
                #expect(sensor["unit_of_measurement"] == nil && sensor["state_class"] == nil, "\(name)")
                let template = try #require(sensor["value_template"] as? String)
                #expect(template.contains("['좋음', '보통', '나쁨', '매우나쁨']"), "\(name)")
            } else if let deviceClass = sensor["device_class"] as? String {
                // A day's total that starts again at midnight is total_increasing; a concentration a measurement.
                let expected = deviceClass == "weight" ? "total_increasing" : "measurement"
                #expect(sensor["state_class"] as? String == expected, "\(name) keeps long-term statistics")
                #expect(Self.units[deviceClass] == .some(sensor["unit_of_measurement"] as? String), "\(name): \(deviceClass)'s unit")
                // The value the sensor shows, in the document's unit, is a number on the demo's day.
                let value = try #require(paths.max { $0.count < $1.count }.flatMap { resolve($0, in: document) as? Double }, "\(name)")
                numbers[deviceClass] = value
            }
        }
        // The demo's 23:00 hour at 종로구, as dustctl shows it.
        #expect(
            numbers == [
                "pm10": 45, "pm25": 22, "ozone": 0.0184, "nitrogen_dioxide": 0.0262, "sulphur_dioxide": 0.0031, "carbon_monoxide": 0.52,
                "aqi": 62, "weight": 133.463,
            ])
        // The advisory and tomorrow's forecast are in the same document: the 경보 stored and the demo's 매우나쁨.
        #expect(resolve(["advisory", "levelWord"], in: document) as? String == "경보")
        #expect(resolve(["forecastTomorrow", "pm25", "word"], in: document) as? String == "매우나쁨")
    }

    @Test("The path reader follows aliases and indices, and a path that is not in the document is caught")
    func pathReader() throws {
        let document = try JSONSerialization.jsonObject(with: Data(#"{"a":{"b":[{"c":1},{"c":null}]},"d":null}"#.utf8))
        #expect(templatePaths("{% set g = value_json.a %}{{ g.b[-1].c if g else none }}") == [["a"], ["a", "b", "-1", "c"]])
        #expect(resolve(["a", "b", "-1", "c"], in: document) is NSNull)
        #expect(resolve(["a", "b", "0", "c"], in: document) as? Double == 1)
        #expect(resolve(["a", "x"], in: document) == nil)
        #expect(resolve(["a", "b", "2", "c"], in: document) == nil)
        #expect(resolve(["d", "e"], in: document) == nil)
    }

    @Test("dustctl homeassistant prints the README's package for one person, and a dose block per further person that reads the API")
    func generated() async throws {
        let rig = try await WebRig()
        defer { rig.directory.remove() }
        let readme = try String(contentsOf: TestFixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "<!-- home-assistant-package -->\n```yaml\n"))
        let end = try #require(readme.range(of: "\n```", range: marker.upperBound..<readme.endIndex))
        // The README's household asks for tokens (`http.tokenFile`): each request names its secret.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DUSTD_") }
        environment["DUSTD_CONFIG"] = rig.configuration
        environment["DUSTD_HTTP_TOKEN_FILE"] = rig.directory.path("token")
        let one = try await Executables.run("dustctl", ["homeassistant"], environment: environment)
        #expect(one.status == 0, "\(one.standardError)")
        #expect(one.standardOutput == String(readme[marker.upperBound..<end.lowerBound]) + "\n")
        // One that asks for none names no secret: Home Assistant refuses a package naming one secrets.yaml lacks.
        let tokenless = try await rig.dustctl(["homeassistant"])
        #expect(tokenless.status == 0, "\(tokenless.standardError)")
        #expect(!tokenless.standardOutput.contains("!secret") && !tokenless.standardOutput.contains("headers:"))
        #expect(tokenless.standardOutput.replacing(#/    headers:\n      Authorization: [^\n]*\n/#, with: "") == tokenless.standardOutput)
        #expect(one.standardOutput.replacing(#/    headers:\n      Authorization: [^\n]*\n/#, with: "") == tokenless.standardOutput)

        let (data, configuration) = try PersonAPITests().household(rig)
        let household = try await rig.dustctl(["homeassistant", "--config", configuration, "--url", "http://ha.example:8478/"])
        #expect(household.status == 0, "\(household.standardError)")
        let package = try #require(try Yams.load(yaml: household.standardOutput) as? [String: Any])
        let rests = try #require(package["rest"] as? [[String: Any]])
        #expect(
            rests.map { $0["resource"] as? String } == [
                "http://ha.example:8478/api/v1/today", "http://ha.example:8478/api/v1/today?person=%EB%AF%BC%EC%A7%80",
            ])
        let sensors = rests.flatMap { ($0["sensor"] as? [[String: Any]]) ?? [] }
        #expect(Set(sensors.compactMap { $0["unique_id"] as? String }).count == sensors.count, "unique ids")
        let body = try await rig.application(data).test(.router) { client in
            try await client.execute(uri: "/api/v1/today?person=%EB%AF%BC%EC%A7%80", method: .get) { text($0) }
        }
        let document = try JSONSerialization.jsonObject(with: Data(body.utf8))
        for sensor in (rests[1]["sensor"] as? [[String: Any]]) ?? [] {
            let template = try #require(sensor["value_template"] as? String)
            for path in templatePaths(template) { #expect(resolve(path, in: document) != nil, "\(path)") }
            #expect(sensor["state_class"] as? String == "total_increasing")
        }
    }
}
