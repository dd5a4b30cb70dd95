import Testing

@testable import dustctl

@Suite("TerminalOutput", .timeLimit(.minutes(10)))
struct TerminalOutputTests {
    @Test("dustctl's own colours and line feeds pass; a value's OSC, CSI, C1 CSI, BEL, CR and bidi override do not")
    func stylesPassValuesDoNot() {
        let style = TextStyle(colour: true)
        let header = style.bold("강남대로 · 2026-11-20") + "\n" + style.graded("35 µg/m³", .bad) + "\n"
        #expect(TerminalOutput.safe(header) == header)
        let station = "\u{1B}]2;PWNED\u{07}\u{1B}[2J\u{9B}H\r\u{202E}종로구"
        #expect(
            TerminalOutput.safe(style.bold(station) + "\n")
                == "\u{1B}[1m\u{FFFD}]2;PWNED\u{FFFD}\u{FFFD}[2J\u{FFFD}H \u{FFFD}종로구\u{1B}[0m\n")
        // Only the exact sequences TextStyle writes pass: a cursor move or another colour does not.
        #expect(TerminalOutput.safe("\u{1B}[1;1H\u{1B}[35m\u{1B}[0m") == "\u{FFFD}[1;1H\u{FFFD}[35m\u{1B}[0m")
        let plain = "Station       종로구\nData          24 rows\n"
        #expect(TerminalOutput.safe(plain) == plain)
    }
}
