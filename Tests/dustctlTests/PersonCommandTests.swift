import DustServices
import DustStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import dustctl

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
        // A computed distance, rounded to 3 decimals as every document writes one (REFERENCE §6, "Numbers").
        #expect(exported.standardOutput.contains(#""metres":199.328,"#), "\(exported.standardOutput.prefix(400))")

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
        let empty = try await dustctl("person", "export", "me", "--db", db)
        #expect(
            empty.standardOutput.contains(
                "\"walking\":[],\"heartRate\":[],\"restingHeartRate\":[],\"sleep\":[],\"positions\":[],\"alerts\":[]"))
        // me is who an installation without people: is: nothing stored is no news.
        #expect(empty.status == 0 && empty.standardError.isEmpty, "\(empty.standardError)")
        // A name nobody is configured by, with nothing stored (mistyped, most likely): the empty document, and said.
        let mistyped = try await dustctl("person", "export", "mom", "--db", db)
        #expect(mistyped.status == 0 && mistyped.standardOutput.hasPrefix("{\"person\":\"mom\","))
        #expect(
            mistyped.standardError
                == "dustctl: Nothing is stored for mom, and no person of that name is configured (configured: me); the document is empty.\n",
            "\(mistyped.standardError)")

        let bad = try await dustctl("person", "forget", "x'; DROP TABLE activity_source; --", "--db", db)
        #expect(bad.status == 64)
        #expect(bad.standardError.contains("is not a person's name"))
    }

    @Test(
        "export writes as it reads: 20,000 heart-rate samples in pieces, the same document to stdout and --output; a full disk mid-way is the output's failure (74), an older --output left whole"
    )
    func exportStreams() async throws {
        let directory = try TemporaryDirectory("finedust-person-ctl")
        defer { directory.remove() }
        let db = directory.path("db.sqlite")
        let export = directory.path("export.xml")
        // 20,000 samples a minute apart from 2026-11-01 00:00 KST: about 2.5 MB of JSON, many pieces of 64 KiB.
        let start = try #require(ISO8601DateFormatter().date(from: "2026-10-31T15:00:00Z"))
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "Asia/Seoul")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"ko_KR\">\n"
        for minute in 0..<20_000 {
            let at = format.string(from: start.addingTimeInterval(Double(minute) * 60))
            xml +=
                " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Apple Watch\" unit=\"count/min\" "
                + "startDate=\"\(at) +0900\" endDate=\"\(at) +0900\" value=\"\(60 + minute % 50)\"/>\n"
        }
        try (xml + "</HealthData>\n").write(toFile: export, atomically: true, encoding: .utf8)
        let imported = try await dustctl("activity", "import", export, "--db", db, "--person", "me", "--quiet")
        #expect(imported.status == 0, "\(imported.standardError)")

        let exported = try await dustctl("person", "export", "me", "--db", db)
        #expect(exported.status == 0, "\(exported.standardError)")
        #expect(exported.standardOutput.utf8.count > 1_000_000)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.standardOutput.utf8)) as? [String: Any])
        let samples = try #require(document["heartRate"] as? [[String: Any]])
        #expect(samples.count == 20_000)
        #expect(samples.first?["at"] as? String == "2026-11-01T00:00:00+09:00")
        #expect(samples.last?["bpm"] as? Int == 60 + 19_999 % 50)
        #expect((document["walking"] as? [Any])?.isEmpty == true && (document["alerts"] as? [Any])?.isEmpty == true)

        // The same bytes to a file (but for the time of the export).
        let file = directory.path("me.json")
        #expect(try await dustctl("person", "export", "me", "--db", db, "--output", file).status == 0)
        let withoutTime = { (text: String) in
            text.replacingOccurrences(of: #""exportedAt":"[^"]*""#, with: "", options: .regularExpression)
        }
        #expect(withoutTime(try String(contentsOfFile: file, encoding: .utf8)) == withoutTime(exported.standardOutput))

        // A full disk (its first piece refused): the output's sentence and 74, not a storage failure.
        let device = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let full = try await dustctl(["person", "export", "me", "--db", db], standardOutput: device)
        #expect(full.status == 74)
        #expect(full.standardError == "dustctl: Cannot write the output: No space left on device.\n")
        // An export into a file that fails leaves the file that was there as it was.
        try "the export before\n".write(toFile: file, atomically: true, encoding: .utf8)
        let unreadable = directory.path("missing.sqlite")
        let failed = try await dustctl("person", "export", "me", "--db", unreadable, "--output", file)
        #expect(failed.status != 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "the export before\n")
    }

    @Test(
        "The document is handed over in pieces of about 64 KiB as records come, each after a whole record; a failing sink's error is kept")
    func streamPieces() throws {
        let pieces = Mutex<[[UInt8]]>([])
        let sample = { (second: Int64) in
            PersonRecord.heartRate(.init(source: "health", at: 1_795_000_000 + second, beatsPerMinute: 61, importedAt: 1_795_100_000))
        }
        let stream = PersonExportStream(
            person: "민지", exportedAt: Date(timeIntervalSince1970: 1_795_200_000), timeZone: TimeZone(identifier: "Asia/Seoul")!
        ) { piece in pieces.withLock { $0.append(piece) } }
        for second in Int64(0)..<3000 { try stream.add(sample(second)) }
        // Handed over while records were still coming, not at the end.
        let early = pieces.withLock { $0.count }
        #expect(early >= 2)
        try stream.add(.position(.init(source: "gpx:a.gpx", minute: 1_795_000_020, latitude: 37.5, longitude: 127, importedAt: 1)))
        try stream.finish()
        let all = pieces.withLock { $0 }
        #expect(all.dropLast().allSatisfy { $0.count >= 64 * 1024 && $0.count < 64 * 1024 + 200 && $0.last == UInt8(ascii: "}") })
        let text = String(decoding: all.joined(), as: UTF8.self)
        #expect(
            text.hasPrefix(#"{"person":"민지","exportedAt":"2026-11-21T03:40:00+09:00","walking":[],"heartRate":[{"#)
                && text.hasSuffix("]}\n"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((document["heartRate"] as? [Any])?.count == 3000 && (document["positions"] as? [Any])?.count == 1)
        #expect(
            Array(document.keys).sorted() == [
                "alerts", "exportedAt", "heartRate", "person", "positions", "restingHeartRate", "sleep", "walking",
            ])

        // A sink failing at its third piece: the error is thrown and kept for the command to say.
        let handed = Mutex(0)
        let failing = PersonExportStream(person: "a", exportedAt: Date(), timeZone: TimeZone(identifier: "UTC")!) { _ in
            try handed.withLock { count in
                count += 1
                if count == 3 { throw OutputError.failed(errno: ENOSPC) }
            }
        }
        #expect(throws: OutputError.self) { for second in Int64(0)..<3000 { try failing.add(sample(second)) } }
        #expect(handed.withLock { $0 } == 3)
        if case .failed(ENOSPC)? = failing.failure as? OutputError {} else { Issue.record("kept: \(String(describing: failing.failure))") }
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
