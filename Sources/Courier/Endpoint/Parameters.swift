import Foundation

/// Parameters of a request: a dictionary literal, query items, or any `Encodable` value.
///
/// Where they go depends on how they are used: ``Endpoint/query`` always puts them in the URL,
/// ``Endpoint/parameters`` follows the method (query for GET, HEAD and DELETE; JSON body otherwise).
/// Optional fields that are `nil` are omitted, never sent as `null` in a query.
public struct Parameters: Sendable, ExpressibleByDictionaryLiteral {
    enum Storage: Sendable {
        case items([QueryItem])
        case dictionary([(String, ParameterValue)])
        case encodable(any Encodable & Sendable)
    }

    let storage: Storage

    /// No parameters.
    public static let none = Parameters(storage: .items([]))

    private init(storage: Storage) { self.storage = storage }

    /// Parameters from a dictionary literal, order kept: `["limit": limit, "since": date, "tags": tags]`.
    ///
    /// Values are anything ``ParameterConvertible``: strings, numbers, booleans, dates, UUIDs, URLs,
    /// arrays and string-keyed dictionaries of those, and optionals, whose `nil` is omitted.
    public init(dictionaryLiteral elements: (String, (any ParameterConvertible)?)...) {
        storage = .dictionary(elements.map { ($0.0, $0.1?.parameterValue ?? .null) })
    }

    /// Parameters from a dictionary (sorted by name, so the URL is stable).
    public init(_ dictionary: [String: ParameterValue]) {
        storage = .dictionary(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Parameters from ready-made items, order kept.
    public init(items: [QueryItem]) { storage = .items(items) }

    /// Parameters from an `Encodable` value; nested objects become `a[b]`, arrays repeat the name.
    public static func encodable(_ value: some Encodable & Sendable) -> Parameters {
        Parameters(storage: .encodable(value))
    }

    /// Whether there is nothing to send.
    package var isEmpty: Bool {
        switch storage {
        case .items(let items): items.isEmpty
        case .dictionary(let pairs): pairs.isEmpty
        case .encodable: false
        }
    }
}
