import Foundation

/// A JSON value: a `Sendable`, `Codable` tree with typed accessors, read from loosely specified
/// responses and written in ``Parameters``.
///
/// ```swift
/// let json = try await client.send(RawThread(id: 1))   // Response == JSON
/// json["status"]?.string  // "ok"
/// json["data"]?["members"]?[0]?["name"]?.string
/// json[path: "data.members.0.name"]?.string
/// ```
///
/// Integers stay exact: a whole number that fits `Int` is ``integer(_:)``, any other number
/// ``number(_:)``. Read either through ``int`` or ``double``.
public enum JSON: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// `null`; omitted from queries and forms.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number that fits `Int`, kept exact (a `Double` loses integers above 2^53).
    case integer(Int)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSON])
    /// An object.
    case object([String: JSON])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A number.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// An object; a repeated key keeps its last value.
    public init(dictionaryLiteral members: (String, JSON)...) {
        self = .object(Dictionary(members, uniquingKeysWith: { $1 }))
    }
    /// `null`.
    public init(nilLiteral: ()) { self = .null }

    /// Parses JSON bytes.
    public init(data: Data) throws { self = try JSONDecoder().decode(JSON.self, from: data) }

    /// The value of a key, when this is an object.
    public subscript(key: String) -> JSON? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at an index, when this is an array and the index is in range.
    public subscript(index: Int) -> JSON? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    /// A nested value by a dotted path of keys and indices, e.g. `"data.members.0.name"`.
    public subscript(path path: String) -> JSON? {
        var current: JSON? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            let key = String(component)
            if case .array = current, let index = Int(key) {
                current = current?[index]
            } else {
                current = current?[key]
            }
            if current == nil { return nil }
        }
        return current
    }

    /// The string, when this is a string.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, when this is a number (an integer above 2^53 rounded to the nearest `Double`).
    public var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }
    /// The number as an integer, when this is a whole number that `Int` holds exactly.
    public var int: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value): value.rounded() == value && abs(value) < 9.0e15 ? Int(value) : nil
        default: nil
        }
    }
    /// The boolean, when this is a boolean.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var array: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var object: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
}
