import DustKit
import Foundation
import Testing

@Suite("The attribute bound: more than 1,000 `=` between two `<` is named by its line", .timeLimit(.minutes(10)))
struct AttributeBoundTests {
    private func line(_ text: String) -> Int? {
        Array(text.utf8).withUnsafeBytes { AttributeBound.lineOfExcess(in: $0) }
    }

    private func attributes(_ count: Int) -> String { (0..<count).map { "a\($0)=\"\"" }.joined(separator: " ") }

    @Test("1,000 in a tag pass, 1,001 are named at their line; each `<` begins the count again; `=` in text counts to the next `<`")
    func counts() {
        #expect(line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<r><a " + attributes(1000) + "/></r>") == nil)
        #expect(line("<?xml version=\"1.0\"?>\n<r>\n\n<a " + attributes(1001) + "/>\n</r>") == 4)
        // 600 and 600 in two tags, and 900 in a tag then 900 in text after another tag: never 1,001 between two `<`.
        #expect(line("<a " + attributes(600) + "/><b " + attributes(600) + "/>") == nil)
        #expect(line("<a " + attributes(900) + "><b/>" + String(repeating: "=", count: 900) + "</a>") == nil)
        // A tag's 600 and its text's 401 are 1,001 between two `<`, on the line of the 1,001st.
        #expect(line("<a " + attributes(600) + ">\n" + String(repeating: "=", count: 401) + "</a>") == 2)
        #expect(line(String(repeating: "=", count: 1001)) == 1)
        #expect(line("") == nil && line("<<<>>>") == nil)
    }
}
