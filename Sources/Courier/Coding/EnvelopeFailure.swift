/// An error reported inside an envelope: its message and code.
public struct EnvelopeFailure: Error, Sendable, Hashable {
    /// The server's message, if any.
    public var message: String?
    /// The server's code, if any, as text.
    public var code: String?

    /// Creates a failure.
    public init(message: String?, code: String? = nil) {
        self.message = message
        self.code = code
    }
}
