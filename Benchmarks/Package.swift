// swift-tools-version: 6.1
// FineDust benchmarks, run with Benchmarks/run.sh (see docs/PERFORMANCE.md).
// A package of its own so ordo-one/benchmark is built only when benchmarking.
import PackageDescription

let package = Package(
    name: "FineDustBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FineDust", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The floors FineDust is measured against: plain C on the same libxml2 and libsqlite3.
        .target(
            name: "CBaselines",
            cSettings: [.unsafeFlags(["-I/usr/include/libxml2", "-O2"])],
            linkerSettings: [.linkedLibrary("xml2"), .linkedLibrary("sqlite3")]
        ),
        // The responses both benchmark executables read.
        .target(name: "BenchmarkFixtures"),
        .executableTarget(
            name: "Parse",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FineDustCore", package: "FineDust"),
                "CBaselines", "BenchmarkFixtures",
            ],
            path: "Benchmarks/Parse",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Ingest",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FineDustCore", package: "FineDust"),
                "CBaselines", "BenchmarkFixtures",
            ],
            path: "Benchmarks/Ingest",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
