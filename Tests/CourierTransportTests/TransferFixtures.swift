import Courier
import CourierTesting
import Foundation

/// A fresh folder, removed after `body`.
func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transfer-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// The names in `folder`, hidden ones included, sorted.
func contents(of folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}

/// 3 MiB of bytes that don't repeat with any short period, so a misplaced range shows.
let transferBytes = distinctBytes(3 << 20, seed: 7)

/// `count` bytes: copies of a 64 KiB pattern, each copy starting with its own number, so no two
/// 64 KiB stretches are alike. Built by copying, not byte by byte: a debug build spends seconds of
/// the shared pool on a multi-megabyte `map`, stalling every test running beside it.
func distinctBytes(_ count: Int, seed: Int) -> [UInt8] {
    let pattern = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* seed &+ $0 >> 11) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    var copy = 0
    while bytes.count < count {
        bytes.append(UInt8(truncatingIfNeeded: copy))
        bytes.append(contentsOf: pattern.dropFirst().prefix(count - bytes.count))
        copy += 1
    }
    return bytes
}

/// `PUT /upload` with the body a test gives.
struct Upload: Endpoint {
    typealias Response = JSON
    var method: HTTPRequest.Method { .put }
    var path: EndpointPath { "/upload" }
    var body: RequestBody?
    var timeout: Duration? = nil
    var idempotencyKey: IdempotencyKey? = nil
}

/// A client over AsyncHTTPClient for `server` that retries a failed attempt once (a body sent twice).
/// The retry budget and the timeout are not what the tests test: sized for a loaded machine, where
/// a sanitized build once took 28 s for a first 3 MiB attempt.
func clientRetryingOnce(_ server: MockServer) -> Client {
    Client(
        baseURL: server.baseURL, transport: TransportKind.asyncHTTPClient.make(),
        middlewares: [RetryMiddleware(policy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10), totalDeadline: .seconds(600)))]
    ) { $0.timeout = .seconds(300) }
}
