import AirKorea
import DustKit
import Foundation
import TestSupport
import Testing

/// Peak resident set size of this process so far, in bytes.
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss * 1024
}

/// Parses `body`, expecting a typed error; returns it with the seconds it took and the growth of the peak RSS.
func hostile(_ body: Data, limits: ParserLimits = ParserLimits()) -> (error: AirKoreaError?, seconds: Double, peakGrowth: Int) {
    let rssBefore = peakResidentBytes()
    let clock = ContinuousClock()
    var caught: AirKoreaError?
    let elapsed = clock.measure {
        do {
            _ = try AirKoreaResponseParser(limits: limits).parseMeasurements(body, requestedStation: "x")
        } catch let error as AirKoreaError {
            caught = error
        } catch {
            Issue.record("untyped error \(error)")
        }
    }
    return (caught, elapsed.seconds, peakResidentBytes() - rssBefore)
}

// The time and memory bounds below are hang and blow-up guards (a failure means minutes or
// gigabytes), not performance targets; Benchmarks/ measures speed.
let hangGuardSeconds = 10.0
let blowUpGuardBytes = 256 * 1024 * 1024

@Suite("Hostile XML fails fast with a typed error and reads no local file", .timeLimit(.minutes(10)))
struct HostileInputTests {
    @Test("An external entity pointing at a local file is refused and the file's content appears nowhere")
    func externalEntity() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secretPath = directory.path("secret.txt")
        let sentinel = "FINEDUST-SENTINEL-\(UUID().uuidString)"
        try sentinel.write(toFile: secretPath, atomically: true, encoding: .utf8)
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE response [ <!ENTITY xxe SYSTEM "file://\(secretPath)"> ]>
            <response><header><resultCode>00</resultCode></header><body><items><item>
            <stationName>&xxe;</stationName><dataTime>2026-11-20 10:00</dataTime><pm10Value>30</pm10Value>
            </item></items></body></response>
            """
        let result = hostile(Data(xml.utf8))
        #expect(result.error == .doctypeNotAllowed)
        #expect(!String(describing: result.error).contains(sentinel))

        let committed = hostile(try TestFixtures.data("hostile/xxe-local-file.xml"))
        #expect(committed.error == .doctypeNotAllowed)
        #expect(!String(describing: committed.error).contains("root:"))
    }

    @Test("Parameter entities are refused", arguments: ["hostile/parameter-entity.xml"])
    func parameterEntity(fixture: String) throws {
        #expect(hostile(try TestFixtures.data(fixture)).error == .doctypeNotAllowed)
    }

    @Test("Billion laughs: refused in bounded time and memory")
    func billionLaughs() throws {
        let result = hostile(try TestFixtures.data("hostile/billion-laughs.xml"))
        #expect(result.error == .doctypeNotAllowed)
        #expect(result.seconds < hangGuardSeconds)
        #expect(result.peakGrowth < blowUpGuardBytes)
    }

    @Test("An entity declared after a long internal subset is still refused")
    func quadraticBlowup() throws {
        let entity = String(repeating: "A", count: 100_000)
        let references = String(repeating: "&a;", count: 50_000)
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE response [<!ENTITY a \"\(entity)\">]><response>\(references)</response>"
        let result = hostile(Data(xml.utf8))
        #expect(result.error == .doctypeNotAllowed)
        #expect(result.seconds < hangGuardSeconds)
        #expect(result.peakGrowth < blowUpGuardBytes)
    }

    @Test("Deep nesting: 1,000 and 100,000 levels", arguments: [1_000, 100_000])
    func deepNesting(levels: Int) throws {
        let xml = "<response>" + String(repeating: "<a>", count: levels) + String(repeating: "</a>", count: levels) + "</response>"
        let result = hostile(Data(xml.utf8))
        #expect(result.error == .nestingTooDeep(limit: ParserLimits().maxDepth))
        #expect(result.seconds < hangGuardSeconds)
    }

    @Test("An item with 140,000 attributes is refused before libxml2 reads it (three took 213 s of CPU)")
    func manyAttributes() throws {
        let many = (0..<140_000).map { "a\($0)=\"\"" }.joined(separator: " ")
        let xml =
            "<response>\n<header><resultCode>00</resultCode></header>\n<body><items><item " + many + "></item></items></body></response>"
        let result = hostile(Data(xml.utf8))
        #expect(result.error == .malformedXML(line: 3, reason: "an element with more than 1000 attributes"))
    }

    @Test("Invalid UTF-8 is a typed error naming the line")
    func invalidUTF8() throws {
        let result = hostile(try TestFixtures.data("hostile/invalid-utf8.xml"))
        guard case .invalidUTF8(let line)? = result.error else {
            Issue.record("expected invalidUTF8, got \(String(describing: result.error))")
            return
        }
        #expect(line > 1)
    }

    @Test("A 10 MB text node in a field is refused; one in an ignored element is bounded")
    func hugeTextNode() throws {
        let huge = String(repeating: "가", count: 10 * 1024 * 1024 / 3)
        let inField =
            "<response><header><resultCode>00</resultCode></header><body><items><item><stationName>\(huge)</stationName></item></items></body></response>"
        let fieldResult = hostile(Data(inField.utf8), limits: ParserLimits(maxDocumentBytes: 32 * 1024 * 1024))
        guard case .fieldTooLong(field: "stationName", _)? = fieldResult.error else {
            Issue.record("expected fieldTooLong(stationName), got \(String(describing: fieldResult.error))")
            return
        }
        #expect(fieldResult.seconds < hangGuardSeconds)
        #expect(fieldResult.peakGrowth < blowUpGuardBytes)

        let ignored =
            "<response><header><resultCode>00</resultCode></header><body><items><item><khaiComment>\(huge)</khaiComment></item></items></body></response>"
        // 10 MB is above the document limit (8 MiB): raised here, to reach libxml2's own text cap.
        let ignoredResult = hostile(Data(ignored.utf8), limits: ParserLimits(maxDocumentBytes: 32 * 1024 * 1024))
        #expect(ignoredResult.error == .fieldTooLong(field: "text", limit: 10_000_000))
        #expect(ignoredResult.seconds < hangGuardSeconds)
        #expect(ignoredResult.peakGrowth < blowUpGuardBytes)
    }

    @Test("Allowed deeper than libxml2 goes, nesting stops at libxml2's own limit of 256 levels")
    func libxml2DepthLimit() throws {
        let levels = 300
        let xml = "<response>" + String(repeating: "<a>", count: levels) + String(repeating: "</a>", count: levels) + "</response>"
        let result = hostile(Data(xml.utf8), limits: ParserLimits(maxDepth: 1_000))
        #expect(result.error == .nestingTooDeep(limit: 256))
        #expect(result.seconds < hangGuardSeconds)
    }

    @Test("Allowed longer than libxml2's 10,000,000-byte text cap, a field stops there and is named")
    func libxml2TextCapInField() throws {
        let huge = String(repeating: "a", count: 10_000_001)
        let xml =
            "<response><header><resultCode>00</resultCode></header><body><items><item><stationName>\(huge)</stationName></item></items></body></response>"
        let result = hostile(Data(xml.utf8), limits: ParserLimits(maxDocumentBytes: 32 * 1024 * 1024, maxFieldBytes: 20_000_000))
        #expect(result.error == .fieldTooLong(field: "stationName", limit: 10_000_000))
        #expect(result.peakGrowth < blowUpGuardBytes)
    }

    @Test(
        "Bytes that are not UTF-8 are invalid UTF-8 on the line they stand on",
        arguments: [
            [0xFF], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xEA, 0xB0],
        ] as [[UInt8]])
    func invalidUTF8OnItsLine(bytes: [UInt8]) throws {
        // 0xFF never occurs in UTF-8, 0x80 continues nothing, C0 AF is an overlong "/", ED A0 80 an
        // encoded UTF-16 surrogate, EA B0 the first two bytes of 가 without the third.
        let body =
            Data("<response>\n<header><resultCode>00</resultCode></header>\n<body><items><item>\n<stationName>".utf8)
            + bytes + Data("</stationName>\n</item></items></body>\n</response>\n".utf8)
        #expect(hostile(body).error == .invalidUTF8(line: 4))
    }

    @Test(
        "A well-encoded character XML forbids is malformed XML, not invalid UTF-8",
        arguments: [
            "\u{01}", "\u{00}", "\u{FFFE}", "&#1;",
        ])
    func forbiddenCharacter(character: String) throws {
        let xml =
            "<response>\n<header><resultCode>00</resultCode></header>\n<body><items><item>\n<stationName>a\(character)b</stationName>\n</item></items></body>\n</response>\n"
        let error = hostile(Data(xml.utf8)).error
        guard case .malformedXML(line: 4, _)? = error else {
            Issue.record("expected malformedXML on line 4, got \(String(describing: error))")
            return
        }
    }

    @Test(
        "A station name or 시도 holding a bidirectional control, a line separator or a C1 control is refused as it came, not after its replacement: the item is dropped, the 시도 unknown",
        arguments: [[0xE2, 0x80, 0xAE], [0xE2, 0x80, 0x8F], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xA9], [0xC2, 0x85]] as [[UInt8]])
    func replacedNameRefused(bytes: [UInt8]) throws {
        func item(_ name: [UInt8], sido: [UInt8]) -> Data {
            Data("<item><stationName>".utf8) + Data(name) + Data("</stationName><sidoName>".utf8) + Data(sido)
                + Data("</sidoName><addr>".utf8) + Data(sido)
                + Data("</addr><dataTime>2026-11-20 10:00</dataTime><pm10Value>30</pm10Value><pm25Value>12</pm25Value></item>".utf8)
        }
        let body =
            Data("<response><header><resultCode>00</resultCode></header><body><items>".utf8)
            + item(Array("종로구".utf8) + bytes, sido: Array("서울".utf8)) + item(Array("중구".utf8), sido: Array("서울".utf8) + bytes)
            + Data("</items><totalCount>2</totalCount></body></response>".utf8)
        let page = try AirKoreaResponseParser().parseMeasurements(body)
        #expect(page.readings.map(\.station) == ["중구"], "\(bytes)")
        #expect(page.skippedItems == 0 && page.refusedNameItems == 1)
        #expect(page.unknownValues == 3)
        // The same items as a station list's (a list carries no dataTime).
        let stations = try AirKoreaResponseParser().parseStations(withoutDataTime(body))
        #expect(stations.stations.map(\.name) == ["중구"])
        #expect(stations.stations.first?.address == ServerVocabulary.unknownValue)
    }

    @Test("A station, 시도 or address in decomposed Hangul is the composed name: one station, not a second that looks the same")
    func decomposedNamesComposed() throws {
        let (jongno, seoul) = ("종로구".decomposedStringWithCanonicalMapping, "서울".decomposedStringWithCanonicalMapping)
        let body = Data(
            """
            <response><header><resultCode>00</resultCode></header><body><items>
            <item><stationName>\(jongno)</stationName><sidoName>\(seoul)</sidoName><addr>\(seoul) 종로구</addr>
            <dataTime>2026-11-20 10:00</dataTime><pm10Value>30</pm10Value><pm25Value>12</pm25Value></item>
            </items><totalCount>1</totalCount></body></response>
            """.utf8)
        let page = try AirKoreaResponseParser().parseMeasurements(body)
        #expect(page.readings.map { Array($0.station.utf8) } == [Array("종로구".utf8)] && page.unknownValues == 0)
        let stations = try AirKoreaResponseParser().parseStations(withoutDataTime(body)).stations
        #expect(stations.map { Array($0.name.utf8) } == [Array("종로구".utf8)])
        #expect(stations.map { Array(($0.address ?? "").utf8) } == [Array("서울 종로구".utf8)])
    }

    @Test("A body above the size limit, 8 MiB, is not parsed at all")
    func documentTooLarge() throws {
        let body = Data(repeating: UInt8(ascii: " "), count: 8 * 1024 * 1024 + 1)
        #expect(hostile(body).error == .documentTooLarge(limit: 8 * 1024 * 1024))
    }

    @Test("More items than the limit are refused")
    func tooManyItems() throws {
        let items = String(repeating: "<item><stationName>x</stationName></item>", count: 11)
        let xml = "<response><header><resultCode>00</resultCode></header><body><items>\(items)</items></body></response>"
        #expect(hostile(Data(xml.utf8), limits: ParserLimits(maxItems: 10)).error == .tooManyItems(limit: 10))
    }

    /// A normal answer of `count` hours of 종로구 going back from 2026-11-20 24:00, each item as a
    /// ver=1.5 answer writes it (about 730 bytes), with `filler` bytes of white space after each.
    static func realisticItems(_ count: Int, filler: Int = 0) -> Data {
        let last = KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00")!
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n"
        xml += "    <resultMsg>NORMAL_CODE</resultMsg>\n  </header>\n  <body>\n    <items>\n"
        let pad = String(repeating: " ", count: filler)
        for offset in 0..<count {
            xml += """
                      <item>
                        <so2Grade>1</so2Grade><coFlag/><khaiValue>47</khaiValue><so2Value>0.003</so2Value><coValue>0.4</coValue>
                        <pm10Flag/><pm10Value>45</pm10Value><pm25Value>22</pm25Value><pm10Value24>41</pm10Value24>
                        <pm25Value24>20</pm25Value24><o3Grade>1</o3Grade><khaiGrade>1</khaiGrade><pm25Flag/><no2Flag/>
                        <no2Grade>1</no2Grade><o3Flag/><so2Flag/><dataTime>\(KoreaStandardTime.dataTime(of: last.advanced(by: -offset)))</dataTime>
                        <coGrade>1</coGrade><no2Value>0.026</no2Value><pm10Grade>2</pm10Grade><pm25Grade>2</pm25Grade>
                        <pm10Grade1h>2</pm10Grade1h><pm25Grade1h>2</pm25Grade1h><o3Value>0.028</o3Value>
                        <stationName>종로구</stationName><mangName>도시대기</mangName><sidoName>서울</sidoName>
                      </item>\(pad)

                """
        }
        xml += "    </items>\n    <numOfRows>\(count)</numOfRows>\n    <pageNo>1</pageNo>\n    <totalCount>\(count)</totalCount>\n"
        xml += "  </body>\n</response>\n"
        return Data(xml.utf8)
    }

    // At 200,000 items and 32 MiB, an answer just under both took dustd to 326 MB (its unit allows 256):
    // every item is built before any is dropped. The limits now follow the largest real answers.
    @Test("The limits follow real answers: 10,000 items just under 8 MiB parse whole; 10,001 items, however small, are refused")
    func limitsFromRealAnswers() throws {
        let envelope = Self.realisticItems(0).count
        let itemBytes = Self.realisticItems(1).count - envelope
        let body = Self.realisticItems(10_000, filler: (8 * 1024 * 1024 - envelope) / 10_000 - itemBytes)
        #expect(body.count <= 8 * 1024 * 1024 && body.count > 8 * 1024 * 1024 - 10_000)
        let page = try AirKoreaResponseParser().parseMeasurements(body)
        #expect(page.readings.count == 10_000)
        #expect(page.readings.first?.concentration == DustPair(fineDust: 45, ultraFineDust: 22))
        #expect(page.readings.last?.slot == KoreaStandardTime.slot(forDataTime: "2026-11-20 24:00")!.advanced(by: -9_999))

        let items = String(repeating: "<item><stationName>종로구</stationName><dataTime>2026-11-20 10:00</dataTime></item>", count: 10_001)
        let small = Data("<response><header><resultCode>00</resultCode></header><body><items>\(items)</items></body></response>".utf8)
        #expect(small.count < 1024 * 1024)
        #expect(hostile(small).error == .tooManyItems(limit: 10_000))
    }

    /// A one-item answer holding `count` copies of `node` at `place`.
    static func withNodes(_ node: String, count: Int, at place: NodePlace) -> Data {
        let run = String(repeating: node, count: count)
        func at(_ spot: NodePlace) -> String { spot == place ? run : "" }
        return Data(
            ("\(at(.beforeRoot))<response>\(at(.underResponse))<header><resultCode>00</resultCode></header><body>\(at(.underBody))"
                + "<items><item><stationName>종로구</stationName>\(at(.inItem))<dataTime>2026-11-20 10:00</dataTime>"
                + "<pm10Value>4\(at(.inField))5</pm10Value></item></items></body></response>\(at(.afterRoot))").utf8)
    }

    enum NodePlace: CaseIterable, Sendable { case beforeRoot, underResponse, underBody, inItem, inField, afterRoot }

    // libxml2's reader keeps a run of comments or processing instructions until an element follows:
    // 4.5 million `<!---->` in a 31.5 MB answer took dustd to 1.49 GB, and none counted against a limit.
    @Test(
        "Over 100 comments or processing instructions are refused, wherever they stand; 100 are read past",
        arguments: ["<!---->", "<?a?>", "<!-- 에어코리아 -->", "<?xml-stylesheet href=\"a.xsl\"?>"], NodePlace.allCases)
    func commentsBounded(node: String, place: NodePlace) throws {
        let hundred = try AirKoreaResponseParser().parseMeasurements(Self.withNodes(node, count: 100, at: place))
        #expect(hundred.readings.map(\.concentration.fineDust) == [45])
        #expect(hostile(Self.withNodes(node, count: 101, at: place)).error == .tooManyComments(limit: 100))
        // Comments and instructions mixed count together.
        let mixed = Self.withNodes(String(repeating: "<!---->", count: 60) + String(repeating: "<?a?>", count: 41), count: 1, at: place)
        #expect(hostile(mixed).error == .tooManyComments(limit: 100))
    }

    // The reader parses on to the next tag before it hands over a node: counted as they were read, a
    // million comments had already taken 157 MB when the 101st was seen.
    @Test(
        "Comments and processing instructions are counted before libxml2 reads the body: the count is refused before an error on line 1",
        arguments: ["<!---->", "<?a?>", "<\0!\0-\0-\0-\0-\0>\0"])
    func commentsCountedFirst(node: String) throws {
        let body = Data(("<response>&undeclared;\n" + String(repeating: node, count: 102) + "\n</response>").utf8)
        #expect(hostile(body).error == .tooManyComments(limit: 100))
        // The XML declaration is no comment: 101 openings with it pass the count, and the reader sees the error.
        let declared = Data(
            ("<?xml version=\"1.0\"?><response>&undeclared;\n" + String(repeating: node, count: 100) + "\n</response>").utf8)
        let error = hostile(declared).error
        guard case .malformedXML(line: 1, _)? = error else {
            Issue.record("expected malformedXML on line 1, got \(String(describing: error))")
            return
        }
    }

    @Test("A million empty comments (7 MB, in one run) are refused, in bounded memory")
    func millionComments() throws {
        let result = hostile(Self.withNodes("<!---->", count: 1_000_000, at: .inItem))
        #expect(result.error == .tooManyComments(limit: 100))
        #expect(result.peakGrowth < blowUpGuardBytes)
        let pi = hostile(Self.withNodes("<?a?>", count: 1_000_000, at: .underBody))
        #expect(pi.error == .tooManyComments(limit: 100))
    }

    @Test("Random garbage never crashes the parser")
    func garbage() throws {
        var generator = SystemRandomNumberGenerator()
        let seed = try TestFixtures.data("synthesized/station-gangnam-ver1.5-DAILY-24h00-from-real-json.xml")
        for _ in 0..<300 {
            var mutated = [UInt8](seed)
            for _ in 0..<Int.random(in: 1...20, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // Any outcome but a crash is acceptable: a page, or a typed error.
            _ = try? AirKoreaResponseParser().parseMeasurements(Data(mutated), requestedStation: "x")
        }
    }
}

/// `body` with every `<dataTime>2026-11-20 10:00</dataTime>` taken out: its items as a station list's.
private func withoutDataTime(_ body: Data) -> Data {
    var result = body
    let field = Data("<dataTime>2026-11-20 10:00</dataTime>".utf8)
    while let range = result.range(of: field) { result.removeSubrange(range) }
    return result
}
