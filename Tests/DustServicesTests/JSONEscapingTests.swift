import DustReports
import Foundation
import Testing

@Suite("The JSON documents escape what a terminal acts on, and stay the same strings to a parser", .timeLimit(.minutes(10)))
struct JSONEscapingTests {
    @Test("Controls, the line separators and all twelve bidirectional controls are \\u escapes; Korean and quotes as JSON writes them")
    func escapes() throws {
        let text = "종로구\"\\\u{1B}\u{9B}\u{061C}\u{200E}\u{200F}\u{2028}\u{2029}\u{202E}\u{2069}·"
        let serialized = JSON.string(text).serialized
        #expect(serialized == #""종로구\"\\\u001b\u009b\u061c\u200e\u200f\u2028\u2029\u202e\u2069·""#)
        let decoded = try JSONSerialization.jsonObject(with: Data(serialized.utf8), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
        #expect(JSON.string("종로구 PM2.5 µg/m³").serialized == "\"종로구 PM2.5 µg/m³\"")
    }
}
