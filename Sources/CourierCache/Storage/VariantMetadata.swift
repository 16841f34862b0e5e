import Foundation
import HTTPTypes

/// One stored variant without its body: everything needed to decide freshness and to serve headers.
public struct VariantMetadata: Sendable, Hashable {
    /// The storage's id for it; a replaced variant gets a new one, so a stale snapshot never reads a newer body.
    public let id: Int64
    /// The key the variant is stored under.
    public let key: CacheKey
    /// The request header values the variant was selected by.
    public let varySelection: VarySelection
    /// The stored status code.
    public let status: Int
    /// The stored response header fields, in order, duplicates kept.
    public let headers: HTTPFields
    /// When the request that produced the response was sent.
    public let requestTime: Date
    /// When the response was received (or last revalidated).
    public let responseTime: Date
    /// The body length in bytes.
    public let bodySize: Int
    /// When the variant was written.
    public let storedAt: Date
    /// When the variant was last stored, touched or revalidated.
    public let lastAccess: Date

    /// Creates a metadata snapshot (a storage creates these as it reads them).
    public init(
        id: Int64, key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields,
        requestTime: Date, responseTime: Date, bodySize: Int, storedAt: Date, lastAccess: Date
    ) {
        self.id = id
        self.key = key
        self.varySelection = varySelection
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.bodySize = bodySize
        self.storedAt = storedAt
        self.lastAccess = lastAccess
    }

    /// The same variant, last used at `date`.
    func used(at date: Date) -> VariantMetadata {
        VariantMetadata(
            id: id, key: key, varySelection: varySelection, status: status, headers: headers, requestTime: requestTime,
            responseTime: responseTime, bodySize: bodySize, storedAt: storedAt, lastAccess: date)
    }

    /// The stored response head as an `HTTPResponse`.
    ///
    /// A status outside `100...999` (only possible through a hand-built value; the store refuses
    /// them) is reported as `502` rather than trapping in `HTTPResponse.Status`.
    package var response: HTTPResponse {
        let code = (100...999).contains(status) ? status : 502
        return HTTPResponse(status: .init(code: code), headerFields: headers)
    }

    /// The view of this variant that ``CacheRules`` evaluates.
    package var storedResponse: StoredResponse {
        StoredResponse(response: response, requestTime: requestTime, responseTime: responseTime, varySelection: varySelection)
    }
}

extension CacheRules {
    /// The variant to use for `request`: the most recent one whose vary selection matches; `nil` when none does.
    package func selectVariant(for request: HTTPRequest, among variants: [VariantMetadata]) -> VariantMetadata? {
        selectVariant(for: request, among: variants.map(\.storedResponse)).map { variants[$0] }
    }
}
