import NIOHTTP1

/// What the response to one request must respect: HTTP version, keep-alive and HEAD.
struct MockExchange: Sendable {
    let version: HTTPVersion
    let requestKeepAlive: Bool
    let isHead: Bool

    init(head: HTTPRequestHead, forceClose: Bool) {
        self.version = head.version
        self.requestKeepAlive = head.isKeepAlive && !forceClose
        self.isHead = head.method == .HEAD
    }

    /// Whether body bytes go on the wire (not for HEAD requests).
    var sendsBody: Bool { !isHead }

    /// Whether the connection stays open after this response.
    func keepAlive(after response: MockResponse) -> Bool {
        requestKeepAlive && !response.headers.contains { header in
            header.name.lowercased() == "connection" && header.value.lowercased().contains("close")
        }
    }

    /// The head to send: the response's lines plus `Content-Length` and `Connection` where needed.
    func responseHead(for response: MockResponse) -> HTTPResponseHead {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        let hasFraming = response.headers.contains(name: "content-length") || response.headers.contains(name: "transfer-encoding")
        if !hasFraming && Self.statusAllowsBody(response.status) {
            headers.add(name: "Content-Length", value: String(response.body.count))
        }
        if !response.headers.contains(name: "connection") {
            if !requestKeepAlive {
                headers.add(name: "Connection", value: "close")
            } else if version == .http1_0 {
                headers.add(name: "Connection", value: "keep-alive")
            }
        }
        return HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
    }

    /// Whether a response with this status may carry a body (RFC 9110 §6.4.1).
    static func statusAllowsBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }
}
