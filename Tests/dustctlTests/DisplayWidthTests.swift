import Testing

@testable import dustctl

/// The columns dustctl's tables give a cell (docs/REFERENCE.md §6, "Text"): what a terminal draws, so
/// a name from a file (a GPX file's, a Health app's source) never shifts the columns after it.
@Suite("Display width: what a terminal draws", .timeLimit(.minutes(1)))
struct DisplayWidthTests {
    @Test(
        "ASCII, Hangul (composed and as jamo), combining marks, zero-width letters, emoji of one and of many scalars, dustctl's colours",
        arguments: [
            ("csv", 3),
            ("종로구", 6),
            ("Gangnam-gu 강남구 – µg/m³", 25),  // the scalar-by-scalar path
            ("강남구\u{11A8}", 6),  // a trailing jamo joins the syllable: by characters
            ("\u{1100}\u{1161}\u{11A8}", 2),  // 각 as three jamo
            ("e\u{0301}", 1),
            ("a\u{200B}b", 2),
            ("🏃", 2),
            ("🏃\u{200D}♂\u{FE0F}", 2),  // a man running: four scalars, one picture
            ("👍🏽", 2),  // a skin tone joins the thumb
            ("❤\u{FE0F}", 2),
            ("❤", 1),  // text presentation
            ("1\u{FE0F}\u{20E3}", 2),  // a keycap
            ("🇰🇷", 2),  // a flag: two regional indicators
            ("\u{1B}[1m종로\u{1B}[0m x", 6),
            ("gpx:🏃\u{200D}♂\u{FE0F}run.gpx", 13),
            ("☝🏽", 2),  // a modifier base given a skin tone
            ("☺\u{FE0E}", 1),  // asked for as text
            ("\u{1B}[1m\u{0301}x", 1),  // a mark after an escape's m does not swallow the rest
            ("종\u{1B}[0m\u{0301}로", 4),
        ])
    func widths(text: String, columns: Int) {
        #expect(displayWidth(text) == columns, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test("Names with emoji padded to one column width end at the same column")
    func padded() {
        let names = ["gpx:❤\u{FE0F}love.gpx", "gpx:🏃\u{200D}♂\u{FE0F}run.gpx", "gpx:👍🏽walk.gpx", "csv"]
        let width = names.map(displayWidth).max() ?? 0
        #expect(Set(names.map { displayWidth(pad($0, width + 2)) }) == [width + 2])
        #expect(width == 14)
    }
}
