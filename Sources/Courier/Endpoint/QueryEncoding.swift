import Foundation

extension Parameters {
    /// Flattens the parameters into query items: arrays repeat the name, nested objects become
    /// `outer[inner]`, `nil`/`null` is omitted.
    func queryItems(using encoder: JSONEncoder) throws -> [QueryItem] {
        switch storage {
        case .items(let items):
            return items
        case .dictionary(let pairs):
            var items: [QueryItem] = []
            items.reserveCapacity(pairs.count)
            for (name, value) in pairs { flatten(value, name: name, into: &items) }
            return items
        case .unencodable(let name, let reason):
            throw ParameterEncodingError(description: "parameter \(name) could not be encoded: \(reason)")
        case .encodable(let value):
            if let convertible = value as? any QueryItemsConvertible { return convertible.queryItems }
            let json = try JSON(data: encoder.encode(value))
            guard case .object(let object) = json else {
                throw ParameterEncodingError(description: "query parameters must encode to an object, got \(json)")
            }
            var items: [QueryItem] = []
            for (name, member) in object.sorted(by: { $0.key < $1.key }) { flatten(member, name: name, into: &items) }
            return items
        }
    }

    /// The parameters as a JSON object, encoded with `encoder`.
    func jsonBody(using encoder: any RequestEncoder) throws -> Data {
        switch storage {
        case .items(let items):
            return try encoder.encode(JSON.object(Dictionary(items.map { ($0.name, JSON.string($0.value)) }, uniquingKeysWith: { $1 })))
        case .dictionary(let pairs):
            return try encoder.encode(JSON.object(Dictionary(pairs, uniquingKeysWith: { $1 })))
        case .encodable(let value):
            return try encoder.encode(value)
        case .unencodable(let name, let reason):
            throw ParameterEncodingError(description: "parameter \(name) could not be encoded: \(reason)")
        }
    }
}

/// Adds the query items for one JSON value under `name`.
private func flatten(_ value: JSON, name: String, into items: inout [QueryItem]) {
    switch value {
    case .null: break
    case .bool(let flag): items.append(QueryItem(name: name, value: flag ? "true" : "false"))
    case .integer(let number): items.append(QueryItem(name: name, value: String(number)))
    case .number(let number): items.append(QueryItem(name: name, value: formatNumber(number)))
    case .string(let text): items.append(QueryItem(name: name, value: text))
    case .array(let elements): for element in elements { flatten(element, name: name, into: &items) }
    case .object(let members):
        for (key, member) in members.sorted(by: { $0.key < $1.key }) { flatten(member, name: "\(name)[\(key)]", into: &items) }
    }
}

/// `20` rather than `20.0` for whole numbers.
private func formatNumber(_ number: Double) -> String {
    if number.rounded() == number, abs(number) < 1e15 { return String(Int(number)) }
    return String(number)
}

/// Percent-encodes query items into `a=1&b=two%20words` (also the form-urlencoded body format, with `%20`).
func encodeQuery(_ items: [QueryItem]) -> String {
    var query = ""
    for (index, item) in items.enumerated() {
        if index > 0 { query += "&" }
        query += percentEscape(item.name, keeping: queryAllowed)
        query += "="
        query += percentEscape(item.value, keeping: queryAllowed)
    }
    return query
}

/// Parameters could not be turned into a query or body.
struct ParameterEncodingError: Error, CustomStringConvertible {
    var description: String
}
