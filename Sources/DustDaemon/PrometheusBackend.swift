import CoreMetrics
import Prometheus

/// swift-metrics' backend in dustd: swift-prometheus' registry, which `/metrics` renders (docs/REFERENCE.md §13).
/// It is swift-prometheus' own factory, except that a counter FineDust names gets its HELP text (the stock
/// factory registers every metric without one, and `/metrics` has always carried them).
public struct PrometheusBackend: MetricsFactory {
    /// Everything counted through this backend, for `/metrics`.
    public let registry: PrometheusCollectorRegistry
    private let help: [String: String]
    private let stock: PrometheusMetricsFactory

    /// - Parameter help: HELP text by metric name; a name not in it is registered as swift-prometheus does.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), help: [String: String] = RequestCounters.help) {
        self.registry = registry
        self.help = help
        stock = PrometheusMetricsFactory(registry: registry)
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let help = help[label] else { return stock.makeCounter(label: label, dimensions: dimensions) }
        // The label is the whole Prometheus name, unit suffix included (`RequestCounters`).
        return registry.makeCounter(descriptor: MetricNameDescriptor(metricName: label, unitName: "", helpText: help), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        stock.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        stock.makeMeter(label: label, dimensions: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        stock.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        stock.makeTimer(label: label, dimensions: dimensions)
    }

    public func destroyCounter(_ handler: any CounterHandler) { stock.destroyCounter(handler) }

    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { stock.destroyFloatingPointCounter(handler) }

    public func destroyMeter(_ handler: any MeterHandler) { stock.destroyMeter(handler) }

    public func destroyRecorder(_ handler: any RecorderHandler) { stock.destroyRecorder(handler) }

    public func destroyTimer(_ handler: any TimerHandler) { stock.destroyTimer(handler) }
}
