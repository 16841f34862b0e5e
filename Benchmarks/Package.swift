// swift-tools-version: 6.2
import PackageDescription

// The benchmark harness, a package of its own so that an app which adds Courier resolves and
// builds none of it. Run it from the repository root:
//
//     swift run -c release --package-path Benchmarks courier-bench --help
let package = Package(
    name: "CourierBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Courier", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Counts malloc calls for the allocations-per-request figures (Linux/glibc only).
        .target(name: "CMallocCounter"),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "CMallocCounter",
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierAsyncHTTPClient", package: "Courier"),
                .product(name: "CourierCache", package: "Courier"),
                .product(name: "CourierCachePostgres", package: "Courier"),
                .product(name: "CourierOutbox", package: "Courier"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // SQLite's C API, for the store's floor (the library GRDB and CourierCache link).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
