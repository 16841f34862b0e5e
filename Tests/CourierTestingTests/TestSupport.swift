import CourierTesting

/// A raw HTTP/1.1 request with CRLF line ends; adds `Content-Length` when there is a body.
func rawRequest(_ method: String = "GET", _ target: String, headers: [String] = [], body: String = "") -> String {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers
    if !body.isEmpty {
        lines.append("Content-Length: \(body.utf8.count)")
    }
    return lines.joined(separator: "\r\n") + "\r\n\r\n" + body
}

/// Sends one request on a new connection and returns what came back (first response or ending).
/// The wait ends as soon as either arrives; the generous timeout is for a loaded CI machine.
func fetch(_ server: MockServer, _ request: String, timeout: Duration = .seconds(60)) async throws -> RawSnapshot {
    let connection = try await RawConnection.connect(port: server.port)
    defer { Task { await connection.close() } }
    return try await connection.exchange(request, timeout: timeout)
}
