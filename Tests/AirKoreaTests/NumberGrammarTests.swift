import AirKorea
import DustKit
import Foundation
import Testing

/// One measurement item whose PM10, PM2.5 and carbon monoxide all hold `text`.
private func measured(_ text: String) throws -> HourlyReading {
    let xml = """
        <response><header><resultCode>00</resultCode></header><body><items><item><stationName>종로구</stationName>\
        <dataTime>2026-11-20 10:00</dataTime><pm10Value>\(text)</pm10Value><pm25Value>\(text)</pm25Value>\
        <coValue>\(text)</coValue></item></items></body></response>
        """
    return try #require(try AirKoreaResponseParser().parseMeasurements(Data(xml.utf8)).readings.first)
}

/// One PM10 advisory whose issue, clear and highest values hold `text`.
private func advisory(_ text: String) throws -> Advisory {
    let xml = """
        <response><header><resultCode>00</resultCode></header><body><items><item><sn>90</sn>\
        <districtName>서울</districtName><moveName>도심권</moveName><itemCode>PM10</itemCode><issueGbn>주의보</issueGbn>\
        <issueDate>2026-11-20</issueDate><issueTime>11:00</issueTime><issueVal>\(text)</issueVal>\
        <clearDate>2026-11-20</clearDate><clearTime>18:00</clearTime><clearVal>\(text)</clearVal><maxVal>\(text)</maxVal>\
        </item></items></body></response>
        """
    return try #require(try AirKoreaResponseParser().parseAdvisories(Data(xml.utf8), pollutant: .pm10).advisories.first)
}

@Suite("A number is digits and at most one point, whatever its length: never an exponent", .timeLimit(.minutes(2)))
struct NumberGrammarTests {
    // Past 15 digits the parser handed the text to Double(String), which reads exponents:
    // 0000000000000001e3 was stored as 1000 µg/m³, and …1e-400 as a measured 0.
    @Test(
        "After 15 digits, an exponent, a second point or a letter makes no number (unknown, flagged implausible); the plain digits before it are read",
        arguments: [
            ("0000000000000001e3", "0000000000000001", 1.0), ("0000000000000009e3", "0000000000000009", 9.0),
            ("0000000000000000.5e4", "0000000000000000.5", 0.5), ("000000000000000000001e-400", "000000000000000000001", 1.0),
            ("1234567890123456E-13", "12.34567890123456", 12.34567890123456), ("0000000000000045.5.5", "0000000000000045.5", 45.5),
            ("00000000000000045x", "00000000000000045", 45.0), ("0000000000000004.5e+1", "+0000000000000004.5", 4.5),
            ("00000000000000000000000000000000000000045e0", "45.000000000000000000000000000000000000001", 45.0),
        ])
    func exponentAfterFifteenDigits(text: String, plain: String, value: Double) throws {
        let reading = try measured(text)
        #expect(reading.concentration == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(reading.flag == DustPair<String?>(fineDust: HourlyReading.implausibleFlag, ultraFineDust: HourlyReading.implausibleFlag))
        #expect(reading.gases.ppm.co == nil)
        #expect(reading.gases.flag.co == HourlyReading.implausibleFlag)

        let read = try measured(plain)
        #expect(read.concentration == DustPair<Double?>(fineDust: value, ultraFineDust: value))
        #expect(read.flag == DustPair(fineDust: nil, ultraFineDust: nil))
        #expect(read.gases.ppm.co == value)
    }

    @Test(
        "An advisory's value in exponent form, or above 10,000, is unknown, never a number; long plain values up to 10,000 are read",
        arguments: [
            ("0000000000000001e3", "0000000000000312", 312.0), ("000000000000000000001e-400", "00000000000000000.128", 0.128),
            ("00000000000000000010001", "10000", 10_000.0), ("10000.5", "9999.5", 9_999.5),
            ("0000000000000000012345", "0000000000000000001234", 1_234.0),
            ("0000000000000000.1e5", "0", 0.0),
        ])
    func advisoryValues(text: String, plain: String, value: Double) throws {
        let refused = try advisory(text)
        #expect(refused.issueValue == nil)
        #expect(refused.clearValue == nil)
        #expect(refused.maxValue == nil)
        let read = try advisory(plain)
        #expect(read.issueValue == value)
        #expect(read.clearValue == value)
        #expect(read.maxValue == value)
    }
}
