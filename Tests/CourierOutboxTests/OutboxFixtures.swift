import Courier
import CourierAsyncHTTPClient
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import Testing

/// The transports every outbox test runs over.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    func make() -> any ClientTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }

    var testDescription: String { rawValue }
}

/// A message posted to a conversation: the write the tests keep.
struct PostMessage: Endpoint {
    typealias Response = Posted
    var conversation: Int
    var text: String
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/conversations/\(conversation)/messages" }
    var body: RequestBody? { .json(["text": text]) }
}

/// The server's answer to a posted message.
struct Posted: Codable, Sendable, Hashable {
    var text: String
}

/// A client of `server` whose credentials come from `store` (alice's by default).
func signedInClient(
    _ server: MockServer, _ transport: Transport, store: CredentialStore = CredentialStore(.bearer("token-of-alice", identity: "alice")),
    configure: (inout Client.Configuration) -> Void = { _ in }
) -> Client {
    Client(baseURL: server.baseURL, transport: transport.make(), middlewares: [CredentialsMiddleware(provider: store)], configure: configure)
}

/// A fresh folder for an outbox, removed after `body`.
func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-outbox-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// A mock server, a client for it signed in as `alice` (through `store`), and an outbox in a
/// fresh folder on a manual clock with the longest jitter; stopped and removed after `body`.
func withOutbox<T>(
    _ transport: Transport,
    limits: Outbox.Limits = Outbox.Limits(),
    backoff: Outbox.Backoff = Outbox.Backoff(),
    logger: Logger = Logger(label: "courier.outbox", factory: { _ in SwiftLogNoOpLogHandler() }),
    store: CredentialStore = CredentialStore(.bearer("token-of-alice", identity: "alice")),
    configure: (inout Client.Configuration) -> Void = { _ in },
    _ body: (MockServer, Outbox, ManualClock, URL) async throws -> T
) async throws -> T {
    try await withServer { server in
        try await withFolder { folder in
            let client = signedInClient(server, transport, store: store, configure: configure)
            let clock = ManualClock()
            let outbox = try Outbox(
                client: client, folder: folder, limits: limits, backoff: backoff, logger: logger, clock: clock, random: { 1 })
            let watchdog = Task { await reportAWait(of: outbox, clock: clock, server: server, after: .seconds(90)) }
            defer { watchdog.cancel() }
            do {
                let result = try await body(server, outbox, clock, folder)
                await outbox.stop()
                return result
            } catch {
                await outbox.stop()
                throw error
            }
        }
    }
}

/// Prints what `outbox`, `clock` and `server` show once `limit` has passed (unless cancelled first):
/// an outbox test takes seconds, so one still running has most likely waited for something that
/// never came, and the suite's time limit alone would not say for what. Printed, not recorded: a
/// machine slowed down (Thread Sanitizer beside other suites) must not fail a test that would pass.
func reportAWait(of outbox: Outbox, clock: ManualClock, server: MockServer, after limit: Duration) async {
    do { try await Task.sleep(for: limit) } catch { return }
    let sleeps = clock.sleeps.map { "\($0)" }.joined(separator: ", ")
    let items = (try? await outbox.items())?.map { item in
        "\(item.id) \(item.state) sends \(item.sends) failure \(item.lastFailure.map { "\($0.kind) \($0.status.map(String.init) ?? "-") \($0.detail)" } ?? "none")"
    } ?? ["unreadable"]
    print("""
        An outbox test still running after \(limit): outbox \(await outbox.diagnosis); items \(items); \
        \(clock.pendingDeadlines.count) sleeping on the clock (sleeps asked: \(sleeps)); the server saw \
        \(server.recordedRequests.count) requests
        """)
}

/// Echoes a posted message's text back with `201`, recording each request.
func acceptMessages(on server: MockServer) {
    server.route("POST", "/conversations/*") { request in
        .json(request.bodyText, status: 201)
    }
}

/// The texts of the messages the server received, in order.
func texts(_ server: MockServer) -> [String] {
    server.recordedRequests.compactMap { try? JSONDecoder().decode(Posted.self, from: Data($0.body)).text }
}

/// Collects changes until `count` have arrived, the outbox stops, or 60 s have passed (a backstop,
/// far beyond a passing run, so a change that never comes fails the test instead of hanging it).
func collect(_ changes: AsyncStream<OutboxChange>, count: Int) async -> [OutboxChange] {
    let collected = Locked<[OutboxChange]>([])
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await change in changes {
                let total = collected.withLock { collected in
                    collected.append(change)
                    return collected.count
                }
                if total == count { break }
            }
        }
        group.addTask { try? await Task.sleep(for: .seconds(60)) }
        await group.next()
        group.cancelAll()
    }
    return collected.current
}

extension OutboxChange {
    /// A short name of the change, for comparing sequences.
    var name: String {
        switch self {
        case .enqueued: "enqueued"
        case .sending: "sending"
        case .sent: "sent"
        case .willRetry: "willRetry"
        case .parked: "parked"
        case .discarded: "discarded"
        case .storageFailed: "storageFailed"
        case .storageWorksAgain: "storageWorksAgain"
        }
    }
}
