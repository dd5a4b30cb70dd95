import DustStore
import Foundation
import TestSupport
import Testing

@Suite("dustctl person export and forget (docs/REFERENCE.md §13)", .timeLimit(.minutes(10)))
struct PersonCommandTests {
    @Test("export writes one JSON document of the person's records (0600 with --output); forget removes them all and says what went")
    func exportAndForget() async throws {
        let directory = try TemporaryDirectory("finedust-person-ctl")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let route = fixture("activity/route_2024-01-01_8.20am.gpx")
        #expect(try await dustctl("activity", "import", route, "--db", db, "--quiet").status == 0)

        let exported = try await dustctl("person", "export", "me", "--db", db)
        #expect(exported.status == 0, "\(exported.standardError)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.standardOutput.utf8)) as? [String: Any])
        #expect(document["person"] as? String == "me")
        let positions = try #require(document["positions"] as? [[String: Any]])
        #expect(positions.count == 3)
        #expect(positions.first?["source"] as? String == "gpx:route_2024-01-01_8.20am.gpx")
        #expect(positions.first?["minute"] as? String == "2024-01-01T08:20:00+09:00")
        #expect((document["walking"] as? [Any])?.count == 1)

        let file = directory.path("me.json")
        #expect(try await dustctl("person", "export", "me", "--db", db, "--output", file).status == 0)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "health and location data: the owner's alone, not \(String(mode, radix: 8))")

        let forgot = try await dustctl("person", "forget", "me", "--db", db)
        #expect(forgot.status == 0, "\(forgot.standardError)")
        #expect(forgot.standardOutput == "Removed for me: 1 walking slot, 3 positions.\n")
        #expect(try await dustctl("person", "forget", "me", "--db", db).standardOutput == "Nothing was stored for me.\n")
        let json = try await dustctl("person", "forget", "me", "--db", db, "--json")
        #expect(json.standardOutput.hasPrefix("{\"person\":\"me\",\"removed\":{\"walkingSlots\":0,"))
        let empty = try await dustctl("person", "export", "me", "--db", db).standardOutput
        #expect(empty.contains("\"walking\":[],\"heartRate\":[],\"restingHeartRate\":[],\"sleep\":[],\"positions\":[],\"alerts\":[]"))

        let bad = try await dustctl("person", "forget", "x'; DROP TABLE activity_source; --", "--db", db)
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("is not a person's name"))
    }

    @Test("signout records the person's sign-out time (the web then refuses their older cookies); a name nobody has is refused")
    func signOut() async throws {
        let directory = try TemporaryDirectory("finedust-person-ctl")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let before = Date()
        let done = try await dustctl("person", "signout", "me", "--db", db)
        #expect(done.status == 0, "\(done.standardError)")
        #expect(done.standardOutput == "Every session of me opened before now is ended; they sign in again with their token.\n")
        #expect(try await dustctl("person", "signout", "--administrator", "--db", db).status == 0)
        let times = try await SQLiteStore(path: db).sessionRevocations()
        #expect(Set(times.keys) == ["p:me", "*"] && times.values.allSatisfy { $0.last >= before.addingTimeInterval(-1) && $0.count == 1 })
        // A name given with a trailing no-break or zero-width space is the person, as §11 says.
        for padded in ["me\u{00A0}", "me\u{200B}", " me\u{3000}"] {
            #expect(try await dustctl("person", "signout", padded, "--db", db).status == 0, "\(padded.unicodeScalars.map(\.value))")
        }
        let nobody = try await dustctl("person", "signout", "dad", "--db", db)
        #expect(nobody.status == 64 && nobody.standardError.contains("dad is not a configured person; configured people: me."))
        #expect(try await dustctl("person", "signout", "--db", db).status == 64)
    }
}
