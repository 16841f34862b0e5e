import Foundation
import HTTPTypes

/// Encodes header fields as a JSON array of `[name, value]` pairs (order and duplicates kept).
///
/// Decoding is lenient because the database file comes from outside: malformed JSON yields
/// `nil`, and pairs with an invalid field name are skipped.
enum HeaderCoding {
    /// The JSON bytes for `fields`.
    static func encode(_ fields: HTTPFields) throws -> Data {
        try JSONEncoder().encode(fields.map { [$0.name.rawName, $0.value] })
    }

    /// The fields decoded from JSON bytes; `nil` when the bytes are not an array of string pairs.
    static func decode(_ data: Data) -> HTTPFields? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: data) else { return nil }
        var fields = HTTPFields()
        for pair in pairs where pair.count == 2 {
            guard let name = HTTPField.Name(pair[0]) else { continue }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        return fields
    }
}
