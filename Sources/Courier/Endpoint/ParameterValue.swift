import Foundation

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
