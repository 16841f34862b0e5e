import Foundation

extension JSON {
    /// One value of a ``Parameters`` literal as JSON: common scalars directly, anything else
    /// through `JSONEncoder` (dates as ISO 8601).
    init(parameter value: any Encodable & Sendable) throws {
        switch value {
        case let json as JSON: self = json
        case let text as String: self = .string(text)
        // Bool before the numbers, so no bridging can read `true` as 1.
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .integer(number)
        case let number as Double: self = .number(number)
        case let date as Date: self = .string(date.formatted(.iso8601))
        case let uuid as UUID: self = .string(uuid.uuidString)
        case let url as URL: self = .string(url.absoluteString)
        default:
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            self = try JSONDecoder().decode(JSON.self, from: encoder.encode(value))
        }
    }
}
