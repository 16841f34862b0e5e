/// The response of an endpoint that expects no body (204 No Content, or a body it ignores).
public struct Empty: Codable, Sendable, Hashable {
    /// Creates the empty value.
    public init() {}
}
