import HTTPTypes

extension HTTPField.Name {
    /// `Pragma` (RFC 9111 §5.4), which swift-http-types does not predefine.
    static let pragma: HTTPField.Name? = HTTPField.Name("Pragma")
}
