import Testing

@testable import dustctl

@Suite("CSV numbers", .timeLimit(.minutes(10)))
struct CSVNumberTests {
    @Test(
        "Numbers have at most 3 decimals, no trailing point and never an exponent",
        arguments: [
            (24_999_999_999_999_995_904.0, "24999999999999995904"), (1e15, "1000000000000000"),
            (41.2, "41.2"), (512.3456, "512.346"), (0.0004, "0"), (-0.0004, "0"), (1234567890123.5, "1234567890123.5"), (10_000, "10000"),
        ])
    func numbers(_ value: Double, _ expected: String) {
        #expect(ExportCSV.number(value) == expected)
    }

    @Test("Unknown and non-finite values are empty fields")
    func unknown() {
        #expect(ExportCSV.number(nil) == "")
        #expect(ExportCSV.number(.infinity) == "")
        #expect(ExportCSV.number(.nan) == "")
    }
}
