import DustConfig
import DustKit
import Foundation
import TestSupport
import Testing

/// One name, one string of bytes (docs/RELIABILITY.md, "The identity of names"): what a Mac, Windows'
/// Notepad or a web page put into a name is taken as the name it looks like.
@Suite("Configuration: names in one Unicode form, files with a byte-order mark", .timeLimit(.minutes(10)))
struct NameIdentityTests: SettingsFileTests {
    /// 종로구 as a Mac's file name spells it: seven conjoining jamo.
    let decomposedJongno = "종로구".decomposedStringWithCanonicalMapping

    @Test("NameForm: decomposed Hangul composed, composed text returned as it is, the other form derived")
    func nameForm() {
        #expect(Array(decomposedJongno.utf8).count == 21 && Array("종로구".utf8).count == 9)
        #expect(Array(NameForm.composed(decomposedJongno).utf8) == Array("종로구".utf8))
        #expect(Array(NameForm.decomposed("종로구").utf8) == Array(decomposedJongno.utf8))
        // Latin with a combining acute, and an LV syllable followed by a trailing jamo (가 + ᆨ = 각).
        #expect(Array(NameForm.composed("Cafe\u{301}").utf8) == Array("Caf\u{E9}".utf8))
        #expect(NameForm.composed("\u{AC00}\u{11A8}") == "\u{AC01}" && Array(NameForm.composed("\u{AC00}\u{11A8}").utf8).count == 3)
        // Names already composed take the short path, punctuation and emoji included.
        for name in ["종로구", "Jiho’s Apple Watch", "지호의 Apple Watch 🏃\u{FE0F}", "ｊｉｈｏ", "北京", "gpx:산책.gpx"] {
            #expect(NameForm.isComposed(name), "\(name)")
            #expect(NameForm.composed(name) == name)
        }
        #expect(!NameForm.isComposed(decomposedJongno) && !NameForm.isComposed("\u{2000}"))
        // The two stored forms, told apart by their bytes (a Swift `Set` takes them for one).
        #expect(NameForm.storedForms(of: "민지").map { Array($0.utf8).count } == [6, 15] && NameForm.storedForms(of: "jiho") == ["jiho"])
        #expect(Set(NameForm.storedForms(of: "민지")).count == 1)
        // U+2000 is NFC's U+2002: never taken as composed.
        #expect(NameForm.composed("a\u{2000}b").unicodeScalars.map(\.value) == [0x61, 0x2002, 0x62])
    }

    @Test("A decomposed station name in the file is the station AirKorea and the database know")
    func decomposedStationInFile() throws {
        let settings = try load(
            """
            station:
              name: \(decomposedJongno)
              fallbacks: [\("중구".decomposedStringWithCanonicalMapping)]
            people:
              - { name: \("민지".decomposedStringWithCanonicalMapping), station: \("중구".decomposedStringWithCanonicalMapping) }
              - { name: jiho }
            """)
        #expect(settings.station.name.map { Array($0.utf8) } == Array("종로구".utf8))
        #expect(settings.station.fallbacks.map { Array($0.utf8) } == [Array("중구".utf8)])
        #expect(Array(settings.people[0].name.utf8) == Array("민지".utf8))
        #expect(settings.people[0].station.map { Array($0.utf8) } == Array("중구".utf8))
        #expect(Array((settings.people[1].station ?? "").utf8) == Array("종로구".utf8))
    }

    @Test("The environment's station names are composed too")
    func decomposedStationInEnvironment() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dustd.yaml")
        try "poll:\n  minute: 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        let settings = try SettingsLoader(environment: ["DUSTD_STATION_NAME": " \(decomposedJongno)\u{3000}"]).load(
            configurationFile: path, now: settingsLoadedAt)
        #expect(settings.station.name.map { Array($0.utf8) } == Array("종로구".utf8))
    }

    @Test("A file saved by Windows' Notepad (a byte-order mark, CRLF) loads as the same file without them")
    func byteOrderMark() throws {
        let yaml = "station:\r\n  name: 종로구\r\nstorage:\r\n  path: /tmp/finedust-bom.sqlite\r\n"
        let plain = try load(yaml)
        let marked = try load("\u{FEFF}" + yaml)
        #expect(marked.station.name == "종로구" && marked.storagePath == plain.storagePath && plain.storagePath == "/tmp/finedust-bom.sqlite")
    }

    @Test("A key or token file with a byte-order mark is read without it")
    func secretWithByteOrderMark() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("key")
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data("\u{FEFF}abcdefghijklmnop\r\n".utf8), attributes: [.posixPermissions: 0o600]))
        let text = try readSecretFile(path, key: "api.serviceKeyFile", role: "the key file")
        #expect(Array(text.utf8) == Array("abcdefghijklmnop\r\n".utf8))
    }
}
