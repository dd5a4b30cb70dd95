import DustKit
import Testing

@Suite("A secret other than the key, withheld from text byte by byte", .timeLimit(.minutes(10)))
struct SecretTextTests {
    @Test(
        "Found whatever follows it or however it is written",
        arguments: [
            ("error: tk_s3cretTok\u{301} refused", "error: ***\u{301} refused"),
            ("tk_s3cretTok\u{1F3FB}", "***\u{1F3FB}"),
            ("a\u{0D4E}tk_s3cretTok", "a\u{0D4E}***"),
            ("tk_s3cretTok tk_s3cretTok", "*** ***"),
            ("tk%5Fs3cretTok", "***"),
            ("&#116;k_s3cretTok", "***"),
            ("tk_s3cretTo", "tk_s3cretTo"),
            ("", ""),
        ])
    func redacted(text: String, expected: String) {
        #expect(SecretText("tk_s3cretTok").redacting(text) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("A secret that holds a percent sign is found as written too; an empty secret withholds nothing")
    func percentAndEmpty() {
        #expect(SecretText("pa%41ss").redacting("password pa%41ss\u{301} refused") == "password ***\u{301} refused")
        #expect(SecretText("").redacting("anything") == "anything")
    }
}
