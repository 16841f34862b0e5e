import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that answers with a closure: the test decides every response or error.
struct ClosureTransport: ClientTransport {
    let handler: @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody?)

    init(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?) async throws -> (HTTPResponse, HTTPBody?)) {
        self.handler = handler
    }

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        try await handler(request, body)
    }

    /// A response with a status, optional header fields and a small body.
    static func respond(_ status: HTTPResponse.Status, _ fields: HTTPFields = [:], body: String = "") -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: status, headerFields: fields), HTTPBody(body))
    }
}

/// The namespace of the resilience suites, so that `swift test --filter Resilience` selects them all.
enum ResilienceTests {
    static let baseURL = URL(string: "https://api.example.com") ?? URL(fileURLWithPath: "/")

    /// A client over a closure transport.
    static func client(_ transport: ClosureTransport, middlewares: [any ClientMiddleware]) -> Client {
        Client(baseURL: baseURL, transport: transport, middlewares: middlewares)
    }

    /// An endpoint whose method, path, idempotency and authentication the test chooses.
    struct Call: Endpoint {
        typealias Response = Data
        var method: HTTPRequest.Method
        var path: EndpointPath
        var isIdempotent: Bool
        var requiresAuthentication: Bool
        var body: RequestBody?

        init(
            _ method: HTTPRequest.Method = .get,
            path: EndpointPath = "/items",
            idempotent: Bool? = nil,
            requiresAuthentication: Bool = true,
            body: RequestBody? = nil
        ) {
            self.method = method
            self.path = path
            self.isIdempotent = idempotent ?? method.isIdempotent
            self.requiresAuthentication = requiresAuthentication
            self.body = body
        }
    }
}

/// A counter that tasks can wait on until it reaches a value.
final class Signal: Sendable {
    private struct State {
        var count = 0
        var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(State())

    /// The current count.
    var count: Int { state.withLock { $0.count } }

    /// Adds one and wakes the waiters whose target is reached; returns the new count.
    @discardableResult
    func increment() -> Int {
        let (count, ready) = state.withLock { state in
            state.count += 1
            let count = state.count
            let ready = state.waiters.filter { $0.target <= count }
            state.waiters.removeAll { $0.target <= count }
            return (count, ready)
        }
        for waiter in ready { waiter.continuation.resume() }
        return count
    }

    /// Whether the count reached `target` within `limit`, checked every 5 ms: for a wait that a
    /// broken behaviour would leave unanswered (the limit is a backstop, far beyond a passing run).
    func wait(for target: Int = 1, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while count < target, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return count >= target
    }

    /// Waits until the count reaches `target`.
    func wait(for target: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.count >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// Makes the request body iterable only once, as a streamed upload would be.
struct SingleUseBodyMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let body else { return try await next(request, body, baseURL) }
        let bytes = try await [UInt8](collecting: body, upTo: 1 << 20)
        let stream = AsyncStream<HTTPBody.ByteChunk> { continuation in
            continuation.yield(bytes[...])
            continuation.finish()
        }
        return try await next(request, HTTPBody(stream, length: .known(Int64(bytes.count)), iterationBehavior: .single), baseURL)
    }
}
