import Foundation

/// One query item or form field: a name and a value, both unescaped.
public struct QueryItem: Sendable, Hashable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String

    /// Creates an item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A parameter's value once converted: strings, numbers, booleans, arrays, nested objects, nil.
///
/// Write plain values in a ``Parameters`` literal (`["limit": limit, "tags": tags]`); they become
/// these through ``ParameterConvertible``.
public enum ParameterValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean, sent as `true`/`false`.
    case bool(Bool)
    /// Several values: repeated query items, or a JSON array.
    case array([ParameterValue])
    /// Named values: `outer[inner]` query items, or a JSON object.
    case object([String: ParameterValue])
    /// No value: omitted from queries and forms, `null` in JSON.
    case null

    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: ParameterValue...) { self = .array(elements) }
    /// Nil.
    public init(nilLiteral: ()) { self = .null }

    var json: JSON {
        switch self {
        case .string(let value): .string(value)
        case .int(let value): .number(Double(value))
        case .double(let value): .number(value)
        case .bool(let value): .bool(value)
        case .array(let values): .array(values.map(\.json))
        case .object(let members): .object(members.mapValues(\.json))
        case .null: .null
        }
    }
}

/// A type that chooses its own query items or form fields instead of the automatic `Encodable` flattening.
public protocol QueryItemsConvertible: Sendable {
    /// The items that represent this value.
    var queryItems: [QueryItem] { get }
}

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
    public var isEmpty: Bool {
        switch storage {
        case .items(let items): items.isEmpty
        case .dictionary(let pairs): pairs.isEmpty
        case .encodable: false
        }
    }
}
