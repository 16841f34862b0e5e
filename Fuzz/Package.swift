// swift-tools-version: 6.2
import PackageDescription

// libFuzzer targets for every parser that reads bytes from a server or a user. Built and run by
// `Fuzz/run.sh` (libFuzzer + AddressSanitizer, coverage on Courier's modules too); `@testable
// import` reaches the internal parsers (debug builds compile Courier with testability).
let fuzzers: [(name: String, library: String)] = [
    ("CacheControlFuzzer", "CourierCache"),
    ("HTTPDateFuzzer", "CourierCache"),
    ("RetryAfterFuzzer", "Courier"),
    ("FieldListFuzzer", "CourierCache"),
    ("WWWAuthenticateFuzzer", "Courier"),
    ("ServerMessageFuzzer", "Courier"),
    ("PathQueryFuzzer", "Courier"),
    ("RedirectLocationFuzzer", "Courier"),
    ("ContentRangeFuzzer", "Courier"),
    ("EventStreamFuzzer", "Courier"),
    ("LinkHeaderFuzzer", "Courier"),
]

let package = Package(
    name: "CourierFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "Courier", path: "..")],
    targets: [
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
    ] + fuzzers.map { fuzzer in
        .executableTarget(
            name: fuzzer.name,
            dependencies: ["FuzzSupport", .product(name: fuzzer.library, package: "Courier")],
            path: "Sources/\(fuzzer.name)",
            // libFuzzer supplies `main`.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
