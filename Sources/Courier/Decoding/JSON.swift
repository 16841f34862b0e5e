import Foundation

/// A JSON value for loosely specified APIs: a `Sendable`, `Codable` tree with typed accessors.
///
/// ```swift
/// let json = try await client.send(RawThread(id: 1))   // Response == JSON
/// json.status            // "ok"
/// json["data"]?["members"]?[0]?["name"]?.string
/// json[path: "data.members.0.name"]?.string
/// ```
public enum JSON: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
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
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

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
    /// The number, when this is a number.
    public var double: Double? { if case .number(let value) = self { value } else { nil } }
    /// The number as an integer, when this is a number with no fractional part.
    public var int: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }
    /// The boolean, when this is a boolean.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var array: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var object: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The `status` member as a string, common in loosely specified APIs (`"ok"`, `"error"`).
    public var status: String? { self["status"]?.string }
    /// The `message` member as a string.
    public var message: String? { self["message"]?.string }
}
