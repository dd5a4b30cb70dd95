import DustKit
import DustServices
import Prometheus

/// `finedust_build_info`: the version, as a label on a gauge that is always 1.
struct BuildInfoCollector: GaugeCollector {
    func collect(into registry: PrometheusCollectorRegistry) {
        registry.makeGauge(
            descriptor: .fineDust("build", "info", "FineDust's version; always 1."), labels: [("version", FineDustVersion.current)]
        )
        .set(to: 1)
    }
}
