import HTTPTypes

/// A request as the ``MockServer`` received it, kept for assertions.
public struct RecordedRequest: Sendable {
    /// The request method as sent, such as `GET`.
    public var method: String
    /// The raw request target (URI) from the request line, query included.
    public var target: String
    /// The raw path part of the target, before any `?`; not percent-decoded.
    public var path: String
    /// The query items, percent-decoded, in the order sent.
    public var queryItems: [RecordedQueryItem]
    /// The header fields, repeated fields kept; lines whose name is not a valid token are skipped.
    public var headers: HTTPFields
    /// The complete request body (empty for a route registered with ``MockServer/sink(_:_:respond:)``).
    public var body: [UInt8]
    /// How many body bytes arrived.
    public var bodyLength: Int
    /// The SHA-256 in lowercase hex: of the body as it arrived at a sink, else of ``body``.
    public var bodySHA256: String {
        sunkSHA256 ?? BodyDigest(body).hex
    }
    /// Taken as a sink's body arrived; kept bodies are hashed only when asked (debug builds hash slowly).
    private var sunkSHA256: String?
    /// The server-assigned number of the connection the request arrived on, starting at 1.
    public var connectionID: Int

    /// Creates a record, splitting `target` into ``path`` and ``queryItems``.
    public init(method: String, target: String, headers: HTTPFields = [:], body: [UInt8] = [], connectionID: Int = 0) {
        self.init(method: method, target: target, headers: headers, body: body, digest: BodyDigest(counting: body), connectionID: connectionID)
    }

    /// A record whose body's length (and, for a sink, its hash) was taken as it arrived.
    init(method: String, target: String, headers: HTTPFields, body: [UInt8], digest: BodyDigest, connectionID: Int) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyLength = digest.length
        self.sunkSHA256 = digest.hashes ? digest.hex : nil
        self.connectionID = connectionID
        let (path, query) = Self.split(target)
        self.path = path
        self.queryItems = query.map(RecordedQueryItem.parse) ?? []
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return headers[values: fieldName].first
    }

    /// The first value of the query item `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The body decoded as UTF-8, invalid bytes replaced.
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    /// Splits a request target into its raw path and raw query; strips an absolute-form prefix and a fragment.
    static func split(_ target: String) -> (path: String, query: Substring?) {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") {
            rest = rest[..<fragment]
        }
        for scheme in ["http://", "https://"] where rest.lowercased().hasPrefix(scheme) {
            let afterScheme = rest.dropFirst(scheme.count)
            rest = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterScheme[$0...] } ?? "/"
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        return (String(rest[..<mark]), rest[rest.index(after: mark)...])
    }
}
