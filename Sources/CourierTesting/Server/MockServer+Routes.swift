import NIOConcurrencyHelpers

extension MockServer {
    /// Answers matching requests with `handler`.
    ///
    /// - Parameters:
    ///   - method: The method to match (case-insensitive), or nil for any method.
    ///   - path: The raw path to match, without the query; a trailing `*` matches any path with that prefix.
    ///   - handler: Produces the response; it may suspend, for example to sleep.
    ///
    /// When several routes match, the one registered last wins, so a test can override a default.
    /// Requests no route matches get `404` with `{"message":"no route for METHOD PATH"}`.
    public func route(
        _ method: String?,
        _ path: String,
        _ handler: @escaping @Sendable (RecordedRequest) async -> MockResponse
    ) {
        core.add(MockRoute(method: method, pattern: path, handler: handler))
    }

    /// Answers matching requests with the same response every time.
    public func route(_ method: String?, _ path: String, respond response: MockResponse) {
        route(method, path) { _ in response }
    }

    /// Answers matching requests with `response`, reading their bodies without keeping them: the
    /// record has the body's length and SHA-256 (``RecordedRequest/bodyLength``,
    /// ``RecordedRequest/bodySHA256``) and an empty ``RecordedRequest/body``, and no size limit
    /// applies. For uploads too large to hold in a test's memory.
    public func sink(_ method: String?, _ path: String, respond response: MockResponse = .status(201)) {
        core.add(MockRoute(method: method, pattern: path, keepsBody: false) { _ in response })
    }

    /// Answers matching requests with `script` in order, repeating the last one; an empty script answers 500.
    public func route(_ method: String?, _ path: String, script: [MockResponse]) {
        let next = NIOLockedValueBox(0)
        route(method, path) { _ in
            let index = next.withLockedValue { index in
                defer { index += 1 }
                return index
            }
            guard let last = script.last else {
                return .message("empty script for \(path)", status: 500)
            }
            return index < script.count ? script[index] : last
        }
    }
}
