import CourierTesting

/// Runs `body` against a fresh mock server on 127.0.0.1:0 (HTTPS when `tls` is given) and shuts the
/// server down after it, whether `body` returns or throws.
package func withServer<T>(tls: MockTLS? = nil, _ body: (MockServer) async throws -> T) async throws -> T {
    let server = try await MockServer.start(tls: tls)
    do {
        let result = try await body(server)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}
