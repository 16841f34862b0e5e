@testable import CourierCache
import Foundation
import FuzzSupport
import HTTPTypes

/// `Cache-Control` values as a server (or a request) sends them: parsed, then the freshness rules
/// applied, which must never trap and never produce a negative lifetime.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let directives = CacheControl(values: input.parts)
    for value in [directives.maxAge, directives.sharedMaxAge, directives.staleIfError, directives.staleWhileRevalidate,
                  directives.minFresh, directives.maxStale] {
        if let value, value < 0 { fuzzFailure("negative delta-seconds \(value)") }
    }
    var fields = HTTPFields()
    for part in input.parts { fields.append(HTTPField(name: .cacheControl, value: part)) }
    fields.append(HTTPField(name: .date, value: "Sun, 06 Nov 1994 08:49:37 GMT"))
    let now = Date(timeIntervalSince1970: 784_111_777)
    let stored = StoredResponse(
        response: HTTPResponse(status: .ok, headerFields: fields), requestTime: now, responseTime: now, varySelection: .none)
    let rules = CacheRules()
    if rules.freshnessLifetime(of: stored.response, responseTime: now) < 0 { fuzzFailure("negative lifetime") }
    _ = rules.evaluate(request: HTTPRequest(method: .get, scheme: "https", authority: "a", path: "/", headerFields: fields), stored: stored, now: now)
    return 0
}
