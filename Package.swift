// swift-tools-version: 6.1
// FineDust is licensed under the Apache License 2.0 (LICENSE), the licence of the Swift server libraries it builds on.
import PackageDescription

let package = Package(
    name: "FineDust",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "dustd", targets: ["dustd"]),
        .executable(name: "dustctl", targets: ["dustctl"]),
        // For Benchmarks/ (a separate package, so its dependencies stay out of normal builds).
        .library(name: "FineDustCore", targets: ["DustKit", "AirKorea", "DustStore", "DustServices"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // No traits: FineDust reads its YAML with Yams itself (see DustConfig/SettingsLoader.swift).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // TLS for dustd's HTTP client (DustHTTP): AirKorea, the monitors, the alert sinks.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // Already in the graph through Hummingbird; named because DustWeb imports them (WebConnections.swift).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        // Counting through the ecosystem's API (Hummingbird's metrics middleware speaks it too);
        // swift-prometheus is the backend dustd bootstraps.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        // SHA-256 of the dashboard's style sheet, for its Content-Security-Policy hash.
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        // The command alert sink: spawn without a shell, no inherited descriptors, process-group teardown.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // Reads Apple Health's export.zip entry by entry, inflating in pieces (DustActivity only).
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
        // The PostgreSQL store for organisations (DustPostgres only, docs/REFERENCE.md §20).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // libxml2 from Debian's libxml2-dev; the shim hides its ICU headers from Foundation.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // zlib from Debian's zlib1g-dev (ZIPFoundation's own module is CZlib): a zip entry's inflate, bounded by its compressed size.
        .systemLibrary(
            name: "CZlibInflate",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // glibc's mallopt, which its Swift module does not export: dustd's malloc arenas (docs/PERFORMANCE.md).
        .systemLibrary(name: "CMalloc"),
        // Pure domain: DustPair, slots and time rules, grades, intake, totals. No I/O.
        .target(name: "DustKit"),
        // AirKorea requests, the libxml2 response parser and the error mapping.
        .target(name: "AirKorea", dependencies: ["DustKit", "CLibXML2"]),
        // Every store port of DustServices written once, as SQL both engines run: the statements, the
        // session an engine hands them and the small dialect where the engines differ (docs/ARCHITECTURE.md).
        .target(name: "DustSQL", dependencies: ["DustKit", "DustServices"]),
        // The SQLite implementation of DustServices' store protocols: schema, migrations and
        // queries (GRDB on the system libsqlite3).
        .target(
            name: "DustStore",
            dependencies: [
                "DustKit", "DustServices", "DustSQL",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The system libsqlite3 as GRDB links it, for sqlite3_file_control (persistent WAL).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        // The PostgreSQL implementation of the same store protocols (docs/REFERENCE.md §20), for
        // organisations running several dustd against one database.
        .target(
            name: "DustPostgres",
            dependencies: [
                "DustKit", "DustServices", "DustConfig", "DustSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // A thread pool of the store's own, where its transactions' statements wait.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // The storage backend chosen once: the one place the executables turn settings into a store.
        .target(
            name: "DustStorage",
            dependencies: [
                "DustKit", "DustConfig", "DustServices", "DustStore", "DustPostgres",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Business logic composed from the modules above, dependencies injected; the store
        // protocols (Storage/) that DustStore implements.
        .target(name: "DustServices", dependencies: ["DustKit", "AirKorea", "DustActivity"]),
        // The JSON documents dustctl prints and dustd serves, and their one encoder.
        .target(name: "DustReports", dependencies: ["DustKit", "DustServices"]),
        // dustd on the web (docs/REFERENCE.md §13): the dashboard, the JSON API and Prometheus metrics.
        .target(
            name: "DustWeb",
            dependencies: [
                "DustKit", "DustServices", "DustReports",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP/1 channel's idle timeout and a handler on every connection (WebConnections.swift).
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTP field types on the wire, as Hummingbird's channel speaks them.
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Walking distances from Apple Health exports and GPX tracks (docs/REFERENCE.md §12).
        .target(
            name: "DustActivity",
            dependencies: [
                "DustKit", "CLibXML2", "CZlibInflate",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        // Settings from Config/dustd.yaml, DUSTD_… variables and systemd credentials, validated.
        .target(
            name: "DustConfig",
            dependencies: [
                "DustKit", "AirKorea",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Yams", package: "Yams"),
            ]),
        // dustd's HTTP client: one exchange a connection on SwiftNIO's codec and NIOSSL (docs/ARCHITECTURE.md,
        // "The HTTP client").
        .target(
            name: "DustHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // AirKorea's HTTPTransport on DustHTTP (the AirKorea target itself stays free of NIO).
        .target(name: "AirKoreaHTTP", dependencies: ["AirKorea", "DustKit", "DustHTTP"]),
        // The daemon as a library, so tests drive it: poll scheduler, systemd notify protocol,
        // journald-aware logging, reload, lifecycle.
        .target(
            name: "DustDaemon",
            dependencies: [
                // DustWeb for the web front end only: the poll and forecast loops count through swift-metrics.
                "DustKit", "AirKorea", "AirKoreaHTTP", "DustStore", "DustStorage", "DustServices", "DustConfig", "DustReports", "DustWeb",
                // glibc's malloc_trim (HeapTrimService.swift).
                "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                // The backend behind swift-metrics in dustd (PrometheusBackend.swift).
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The HTTP client of the alert sinks (ntfy, webhooks) and the monitors, and swift-subprocess
                // for the command sink.
                "DustHTTP",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The key's mark in the database (HMAC), already linked for DustWeb's sessions.
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .executableTarget(
            name: "dustd",
            dependencies: [
                "DustDaemon", "DustConfig", "DustServices", "DustKit", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // MetricsSystem.bootstrap, once, in the executable.
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        // No HTTP client: `dustctl stations sync` runs `dustd --sync-stations`.
        .executableTarget(
            name: "dustctl",
            dependencies: [
                "DustKit", "AirKorea", "DustStorage", "DustServices", "DustConfig", "DustReports", "DustActivity",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // What the test targets share: fixture paths, temporary directories, instants, the manual clock, SQLite in memory.
        .target(
            name: "TestSupport",
            dependencies: [
                "DustKit", "DustServices", "DustConfig", "DustSQL", "DustStore", "DustPostgres",
                // pageCacheBytes: one connection's page cache (sqlite3_db_status).
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // makeZip: exports and their workout routes written as the Health app zips them.
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            path: "Tests/Support"),
        // A loopback fake AirKorea server (SwiftNIO) that serves fixtures and faults.
        .target(
            name: "FakeAirKorea",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ], path: "Tests/FakeAirKorea"),
        .testTarget(name: "DustKitTests", dependencies: ["DustKit", "TestSupport"]),
        .testTarget(name: "AirKoreaTests", dependencies: ["AirKorea", "CLibXML2", "DustKit", "TestSupport"]),
        .testTarget(
            name: "DustStoreTests",
            dependencies: [
                "DustStore", "DustSQL", "DustPostgres", "DustConfig", "DustServices", "DustKit", "AirKorea", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "DustServicesTests",
            dependencies: ["DustServices", "DustReports", "AirKorea", "DustKit", "DustActivity", "DustStore", "DustSQL", "TestSupport"]),
        .testTarget(
            name: "DustWebTests",
            dependencies: [
                "DustWeb", "DustServices", "DustStore", "DustKit", "DustReports", "AirKorea", "TestSupport",
                // BackendEquivalenceTests: the same documents from SQLite and PostgreSQL.
                "DustPostgres", "DustConfig",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // WebConnectionGateTests: the gate's connections as NIO's embedded channels.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The README's Home Assistant package is read as Home Assistant reads it.
                .product(name: "Yams", package: "Yams"),
            ]),
        .testTarget(
            name: "DustActivityTests",
            dependencies: [
                "DustActivity", "DustKit", "TestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(
            name: "DustConfigTests", dependencies: ["AirKorea", "DustConfig", "DustKit", "DustServices", "DustStore", "TestSupport"]),
        // End-to-end tests of the built executables.
        .testTarget(
            name: "dustctlTests",
            dependencies: [
                "dustctl", "DustKit", "DustStore", "DustServices", "AirKorea", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // HomeAssistantSlugTests: the package read as Home Assistant reads it.
                .product(name: "Yams", package: "Yams"),
            ]),
        .testTarget(
            name: "DustDaemonTests",
            dependencies: [
                "dustd", "DustDaemon", "DustWeb", "DustReports", "AirKoreaHTTP", "DustHTTP", "DustConfig", "DustServices", "DustStore",
                "AirKorea",
                "DustKit", "TestSupport",
                "FakeAirKorea",
                // PostgresPollerLeaseTests, against a server the environment names.
                "DustPostgres",
                // HeapTrimServiceTests: the SQLite store's connections.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Graceful shutdown triggered by the test, as a service group would (PollServiceTests).
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
