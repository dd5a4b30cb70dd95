import AirKorea
import Benchmark
import BenchmarkFixtures
import CBaselines
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Foundation's XMLParser extracting the same four fields as the C floor.
final class FoundationExtractor: NSObject, XMLParserDelegate {
    struct Item {
        var dataTime = ""
        var stationName = ""
        var pm10: Double? = nil
        var pm25: Double? = nil
    }
    var items: [Item] = []
    private var field: String?
    private var text = ""

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        if name == "item" { items.append(Item()) }
        field = ["dataTime", "stationName", "pm10Value", "pm25Value"].contains(name) ? name : nil
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if field != nil { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard let field, !items.isEmpty else { return }
        switch field {
        case "dataTime": items[items.count - 1].dataTime = text
        case "stationName": items[items.count - 1].stationName = text
        case "pm10Value": items[items.count - 1].pm10 = Double(text)
        case "pm25Value": items[items.count - 1].pm25 = Double(text)
        default: break
        }
        self.field = nil
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 3, maxDuration: .seconds(4), maxIterations: 2000)
    let parser = AirKoreaResponseParser()
    for response in responses {
        Benchmark("parse \(response.name) FineDust") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try parser.parseMeasurements(response.body))
            }
        }
        Benchmark("parse \(response.name) C xmlTextReader floor") { benchmark in
            var items = [fd_item](repeating: fd_item(), count: response.items + 8)
            for _ in benchmark.scaledIterations {
                let count = response.body.withUnsafeBytes { bytes in
                    fd_xml_floor(bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count), &items, items.count)
                }
                precondition(count == response.items)
                blackHole(items)
            }
        }
        Benchmark("parse \(response.name) FoundationXML") { benchmark in
            for _ in benchmark.scaledIterations {
                let extractor = FoundationExtractor()
                let xml = XMLParser(data: response.body)
                xml.delegate = extractor
                precondition(xml.parse() && extractor.items.count == response.items)
                blackHole(extractor.items)
            }
        }
    }
}
