import Courier
import Foundation
import HTTPTypes

extension CacheRules {
    /// Whether the request's own conditions find the stored response unchanged, so that the cache
    /// answers them with a `304` instead of the body (RFC 9111 §4.3.2), evaluated in the order of
    /// RFC 9110 §13.2.2: `If-None-Match`, when present, decides alone (`*`, or a tag equal to the
    /// stored `ETag` by weak comparison); otherwise a valid `If-Modified-Since` holds the stored
    /// response unchanged when its `Last-Modified`, else its `Date`, is not later. Only a stored
    /// `200` is a representation a `304` stands for.
    static func requestFindsUnchanged(_ request: HTTPRequest, _ stored: HTTPResponse) -> Bool {
        guard stored.status.code == 200 else { return false }
        let fields = request.headerFields
        let ifNoneMatch = FieldList.elements(fields[values: .ifNoneMatch])
        if !ifNoneMatch.isEmpty {
            if ifNoneMatch.contains("*") { return true }
            guard let storedTag = entityTag(of: stored.headerFields).map(opaqueTag) else { return false }
            return ifNoneMatch.contains { opaqueTag(String($0)) == storedTag }
        }
        let values = fields[values: .ifModifiedSince]
        guard values.count == 1, let since = HTTPDate.parse(values[0]) else { return false }
        let storedFields = stored.headerFields
        guard let modified = storedFields[.lastModified].flatMap(HTTPDate.parse) ?? storedFields[.date].flatMap(HTTPDate.parse)
        else { return false }
        return modified <= since
    }

    /// The `304` the cache sends for a stored response its request's conditions found unchanged:
    /// the fields RFC 9110 §15.4.5 asks for (and `Last-Modified`, which guides a cache that has no
    /// tag), no content fields, no body.
    static func notModified(from served: HTTPResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for field in served.headerFields where notModifiedFieldNames.contains(field.name) {
            fields.append(field)
        }
        return HTTPResponse(status: .notModified, headerFields: fields)
    }

    private static let notModifiedFieldNames: Set<HTTPField.Name> = [
        .cacheControl, .contentLocation, .date, .eTag, .expires, .vary, .age, .lastModified,
    ]
}
