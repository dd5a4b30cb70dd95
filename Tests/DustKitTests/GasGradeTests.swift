import DustKit
import Testing

/// The Korean CAI bands of docs/REFERENCE.md §17, checked by hand at each edge: a value on a bound
/// belongs to the band below it, the next step up (0.001 ppm, 0.01 ppm for CO) to the band above.
@Suite("Gases are graded by the CAI bands, exactly at every edge", .timeLimit(.minutes(10)))
struct GasGradeTests {
    struct Edge: Sendable, CustomTestStringConvertible {
        let gas: Gas
        let text: String
        let grade: DustGrade
        var testDescription: String { "\(gas.displayName) \(text) ppm is \(grade.koreanName)" }
    }

    static let edges: [Edge] = [
        Edge(gas: .o3, text: "0.000", grade: .good),
        Edge(gas: .o3, text: "0.030", grade: .good), Edge(gas: .o3, text: "0.031", grade: .moderate),
        Edge(gas: .o3, text: "0.090", grade: .moderate), Edge(gas: .o3, text: "0.091", grade: .bad),
        Edge(gas: .o3, text: "0.150", grade: .bad), Edge(gas: .o3, text: "0.151", grade: .veryBad),
        Edge(gas: .no2, text: "0.030", grade: .good), Edge(gas: .no2, text: "0.031", grade: .moderate),
        Edge(gas: .no2, text: "0.060", grade: .moderate), Edge(gas: .no2, text: "0.061", grade: .bad),
        Edge(gas: .no2, text: "0.200", grade: .bad), Edge(gas: .no2, text: "0.201", grade: .veryBad),
        Edge(gas: .co, text: "2.00", grade: .good), Edge(gas: .co, text: "2.01", grade: .moderate),
        Edge(gas: .co, text: "9.00", grade: .moderate), Edge(gas: .co, text: "9.01", grade: .bad),
        Edge(gas: .co, text: "15.00", grade: .bad), Edge(gas: .co, text: "15.01", grade: .veryBad),
        Edge(gas: .so2, text: "0.020", grade: .good), Edge(gas: .so2, text: "0.021", grade: .moderate),
        Edge(gas: .so2, text: "0.050", grade: .moderate), Edge(gas: .so2, text: "0.051", grade: .bad),
        Edge(gas: .so2, text: "0.150", grade: .bad), Edge(gas: .so2, text: "0.151", grade: .veryBad),
    ]

    @Test("Each band edge, from the value's decimal text as AirKorea writes it", arguments: edges)
    func edge(_ edge: Edge) throws {
        let value = try #require(Double(edge.text))
        #expect(DustGrade(ppm: value, of: edge.gas) == edge.grade)
    }

    @Test("New answers carry four decimals: 0.0300 is on the bound, 0.0301 past it")
    func fourDecimals() {
        #expect(DustGrade(ppm: 0.0300, of: .o3) == .good)
        #expect(DustGrade(ppm: 0.0301, of: .o3) == .moderate)
        #expect(DustGrade(ppm: 0.0601, of: .no2) == .bad)
        #expect(DustGrade(ppm: 2.001, of: .co) == .moderate)
    }

    @Test("Plausible ranges: up to 1 ppm for O3, NO2 and SO2, up to 50 ppm for CO")
    func plausibleRanges() {
        #expect(Gas.o3.plausiblePPM.contains(1) && !Gas.o3.plausiblePPM.contains(1.001))
        #expect(Gas.co.plausiblePPM.contains(50) && !Gas.co.plausiblePPM.contains(50.1))
        #expect(!Gas.so2.plausiblePPM.contains(-0.001))
    }
}
