/// A type that chooses its own query items or form fields instead of the automatic `Encodable` flattening.
public protocol QueryItemsConvertible: Sendable {
    /// The items that represent this value.
    var queryItems: [QueryItem] { get }
}
