/// An error from the ``MockServer`` lifecycle, such as using it after ``MockServer/shutdown()``.
public struct MockServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for test output.
    public var description: String

    static let shutDown = MockServerError(description: "the MockServer has been shut down")
    static let notAccepting = MockServerError(description: "the MockServer is not accepting connections")
    static let noLocalAddress = MockServerError(description: "the listening socket has no local port")

    static func badURL(host: String, port: Int) -> MockServerError {
        MockServerError(description: "no URL for host \(host) and port \(port)")
    }
}
