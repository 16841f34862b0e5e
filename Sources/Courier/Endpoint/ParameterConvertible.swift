import Foundation

/// A value that can stand in a ``Parameters`` literal as it is: `["limit": limit]` with an `Int`
/// variable, `["members": members]` with a `[String]`.
///
/// Conform a type of your own to send it as one parameter.
public protocol ParameterConvertible: Sendable {
    /// The value as a parameter.
    var parameterValue: ParameterValue { get }
}

extension ParameterValue: ParameterConvertible {
    /// Itself.
    public var parameterValue: ParameterValue { self }
}

extension String: ParameterConvertible {
    /// A string.
    public var parameterValue: ParameterValue { .string(self) }
}

extension Substring: ParameterConvertible {
    /// A string.
    public var parameterValue: ParameterValue { .string(String(self)) }
}

extension Int: ParameterConvertible {
    /// An integer.
    public var parameterValue: ParameterValue { .int(self) }
}

extension Int64: ParameterConvertible {
    /// An integer (clamped to `Int` on 32-bit platforms).
    public var parameterValue: ParameterValue { .int(Int(clamping: self)) }
}

extension Int32: ParameterConvertible {
    /// An integer.
    public var parameterValue: ParameterValue { .int(Int(self)) }
}

extension Double: ParameterConvertible {
    /// A number.
    public var parameterValue: ParameterValue { .double(self) }
}

extension Float: ParameterConvertible {
    /// A number.
    public var parameterValue: ParameterValue { .double(Double(self)) }
}

extension Bool: ParameterConvertible {
    /// `true` or `false`.
    public var parameterValue: ParameterValue { .bool(self) }
}

extension Date: ParameterConvertible {
    /// An ISO 8601 instant in UTC, e.g. `2026-11-23T06:00:00Z`.
    public var parameterValue: ParameterValue { .string(formatted(.iso8601)) }
}

extension UUID: ParameterConvertible {
    /// The UUID's string.
    public var parameterValue: ParameterValue { .string(uuidString) }
}

extension URL: ParameterConvertible {
    /// The absolute URL's string.
    public var parameterValue: ParameterValue { .string(absoluteString) }
}

extension Optional: ParameterConvertible where Wrapped: ParameterConvertible {
    /// The wrapped value; `nil` is omitted from queries and forms, `null` in JSON.
    public var parameterValue: ParameterValue { self?.parameterValue ?? .null }
}

extension Array: ParameterConvertible where Element: ParameterConvertible {
    /// Repeated query items, or a JSON array.
    public var parameterValue: ParameterValue { .array(map(\.parameterValue)) }
}

extension Dictionary: ParameterConvertible where Key == String, Value: ParameterConvertible {
    /// `name[key]` query items, or a JSON object.
    public var parameterValue: ParameterValue { .object(mapValues(\.parameterValue)) }
}
