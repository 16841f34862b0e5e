import Courier
import CourierCache
import Foundation
import HTTPTypes
import Testing

/// Builders shared by the rule tests.
enum RuleFixtures {
    /// A fixed reference instant (2023-11-14 22:13:20 UTC).
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// Header fields from name/value pairs, in order, duplicates kept.
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            guard let fieldName = HTTPField.Name(name) else {
                Issue.record("invalid test field name \(name)")
                continue
            }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return fields
    }

    /// A GET request for `https://api.example.com/items?page=1` with the given headers.
    static func request(
        _ headers: [(String, String)] = [], method: HTTPRequest.Method = .get, path: String = "/items?page=1"
    ) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: "api.example.com", path: path, headerFields: fields(headers))
    }

    /// A response with the given status and headers.
    static func response(_ headers: [(String, String)] = [], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: .init(code: status), headerFields: fields(headers))
    }

    /// A stored response received at `t0` (Date header = `t0` unless overridden), selected for `request`.
    static func stored(
        _ headers: [(String, String)] = [], status: Int = 200, request: HTTPRequest = request(),
        receivedAt: Date = t0, withDate: Bool = true
    ) -> StoredResponse {
        var pairs = headers
        if withDate, !headers.contains(where: { $0.0.lowercased() == "date" }) {
            pairs.insert(("Date", HTTPDate.string(from: receivedAt)), at: 0)
        }
        let response = response(pairs, status: status)
        return StoredResponse(
            response: response, requestTime: receivedAt, responseTime: receivedAt,
            varySelection: VarySelection(response: response, request: request) ?? .none)
    }
}

/// A comparable summary of a ``CacheDecision`` for matrices.
enum DecisionKind: String, Sendable, CustomTestStringConvertible {
    case fresh, staleAcceptable, staleWhileRevalidate, revalidate, unusable, onlyIfCachedMiss

    init(_ decision: CacheDecision) {
        switch decision {
        case .fresh: self = .fresh
        case .staleAcceptable: self = .staleAcceptable
        case .staleWhileRevalidate: self = .staleWhileRevalidate
        case .revalidate: self = .revalidate
        case .unusable: self = .unusable
        case .onlyIfCachedMiss: self = .onlyIfCachedMiss
        }
    }

    var testDescription: String { rawValue }
}
