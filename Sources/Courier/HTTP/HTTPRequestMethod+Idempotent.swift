import HTTPTypes

extension HTTPRequest.Method {
    /// The methods whose request may be sent twice with the effect of once (RFC 9110 §9.2.2): what
    /// a retry may repeat by default, and what a transport may send again on a new connection.
    @usableFromInline package static let idempotent: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options, .trace]

    /// Whether the method is one of ``idempotent``.
    package var isIdempotent: Bool { Self.idempotent.contains(self) }
}
