import Foundation

/// Parameters of a request: a dictionary literal, query items, or any `Encodable` value.
///
/// Where they go depends on how they are used: ``Endpoint/query`` always puts them in the URL,
/// ``Endpoint/parameters`` follows the method (query for GET, HEAD and DELETE; JSON body otherwise).
/// Optional fields that are `nil` are omitted, never sent as `null` in a query.
public struct Parameters: Sendable, ExpressibleByDictionaryLiteral {
    enum Storage: Sendable {
        case items([QueryItem])
        case dictionary([(String, JSON)])
        case encodable(any Encodable & Sendable)
        /// A literal value that could not be encoded; building the request fails with this.
        case unencodable(name: String, reason: String)
    }

    let storage: Storage

    /// No parameters.
    public static let none = Parameters(storage: .items([]))

    private init(storage: Storage) { self.storage = storage }

    /// Parameters from a dictionary literal, order kept: `["limit": limit, "since": date, "tags": tags]`.
    ///
    /// Values are anything `Encodable`: strings, numbers, booleans, ``JSON``, arrays and
    /// string-keyed dictionaries, your own types (nested as `outer[inner]` in a query), and
    /// optionals, whose `nil` is omitted. A `Date` is sent as ISO 8601 in UTC
    /// (`2026-11-23T06:00:00Z`), a `URL` as its absolute string.
    public init(dictionaryLiteral elements: (String, (any Encodable & Sendable)?)...) {
        var pairs: [(String, JSON)] = []
        pairs.reserveCapacity(elements.count)
        for (name, value) in elements {
            do {
                pairs.append((name, try value.map(JSON.init(parameter:)) ?? .null))
            } catch {
                storage = .unencodable(name: name, reason: String(describing: error))
                return
            }
        }
        storage = .dictionary(pairs)
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
        case .encodable, .unencodable: false
        }
    }
}
