// swift-tools-version: 6.2
import PackageDescription

// Strict settings for every Courier target: Swift 6 language mode (the tools version),
// existential `any` spelled out, and imports that must be visible where members are used.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
        .library(name: "CourierCache", targets: ["CourierCache"]),
        .library(name: "CourierCachePostgres", targets: ["CourierCachePostgres"]),
        .library(name: "CourierCacheTesting", targets: ["CourierCacheTesting"]),
        .library(name: "CourierCallbacks", targets: ["CourierCallbacks"]),
        .library(name: "CourierOutbox", targets: ["CourierOutbox"]),
        .library(name: "CourierCombine", targets: ["CourierCombine"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .executable(name: "courier-demo", targets: ["courier-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // TLS and HTTP/2: AsyncHTTPClient's own dependencies, for server trust and the mock server.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // SHA-256 and HMAC (CryptoKit on Apple platforms, BoringSSL's on Linux).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // PostgreSQL's wire protocol and a connection pool, for the cache storage a fleet shares.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // `swift package generate-documentation --target Courier` (DocC catalogs and snippets).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system's zlib (Linux: zlib1g-dev; Apple platforms: the SDK's), for gzip request bodies
    // and, in the AsyncHTTPClient transport, compressed responses.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // A file's status (size, modification time, device, inode) in fixed-width fields, for
        // downloads' partial files and file uploads.
        .target(name: "CFileStatus"),
        .target(
            name: "Courier",
            dependencies: [
                "CZlib",
                "CFileStatus",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                "Courier",
                "CZlib",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CourierCache",
            dependencies: [
                "Courier",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for reading a large stored body a chunk at a time (GRDB links the same library).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The cache storage a fleet of servers shares, in PostgreSQL: a product of its own, so an
        // app that doesn't use it doesn't build postgres-nio.
        .target(
            name: "CourierCachePostgres",
            dependencies: [
                "Courier", "CourierCache",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Writes kept on disk while offline and sent once each, in order: a product of its own, so an
        // app that doesn't queue writes doesn't link it.
        .target(
            name: "CourierCacheTesting",
            dependencies: [
                "Courier", "CourierCache",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CourierOutbox",
            dependencies: [
                "Courier",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Completion handlers on a dispatch queue, with a handle that cancels.
        .target(name: "CourierCallbacks", dependencies: ["Courier"], swiftSettings: strict),
        .target(
            name: "CourierCombine",
            dependencies: [
                "Courier",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux, .windows, .android])),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CourierTesting",
            dependencies: [
                "Courier",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The script that made the test certificates, kept beside them to make them again.
            exclude: ["TLS/make-test-certificates.py"],
            swiftSettings: strict
        ),
        // The worked examples from the source designs (FriendsService, BindUser, ThreadRequest) and
        // the sample social API that the demo serves and the example tests run against.
        .target(name: "CourierExamples", dependencies: ["Courier", "CourierTesting"], swiftSettings: strict),
        .executableTarget(
            name: "courier-demo",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierCache", "CourierCallbacks", "CourierCombine", "CourierOutbox",
                "CourierTesting", "CourierExamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // What the test targets share (a mock server run around a test, a level tests wait on
        // instead of sleeping); not a product.
        .target(name: "CourierTestSupport", dependencies: ["Courier", "CourierTesting"], path: "Tests/Support", swiftSettings: strict),
        .testTarget(
            name: "CourierTests",
            dependencies: [
                "Courier", "CourierCallbacks", "CourierTesting", "CourierExamples", "CourierTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CourierTransportTests",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierCache", "CourierCallbacks", "CourierCombine", "CourierTesting",
                "CourierExamples", "CourierTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CourierTestingTests",
            dependencies: [
                "Courier", "CourierTesting", "CourierTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // A second server of a fleet, in a process of its own, for the PostgreSQL cache's fleet tests.
        .executableTarget(
            name: "courier-cache-peer",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierCache", "CourierCachePostgres", "CourierTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/CachePeer",
            swiftSettings: strict
        ),
        // An app that enqueues writes and is killed with SIGKILL, for the outbox's crash tests.
        .executableTarget(
            name: "courier-outbox-peer",
            dependencies: ["Courier", "CourierOutbox", "CourierAsyncHTTPClient", "CourierTestSupport"],
            path: "Tests/OutboxPeer",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CourierOutboxTests",
            dependencies: [
                "Courier", "CourierOutbox", "CourierAsyncHTTPClient", "CourierCombine", "CourierTesting", "CourierTestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                // To damage an outbox's file from outside, as another version of the app could.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CourierCacheTests",
            dependencies: [
                "Courier", "CourierCache", "CourierCachePostgres", "CourierCacheTesting", "CourierCombine", "CourierTesting", "CourierAsyncHTTPClient",
                "CourierTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
    ]
)
