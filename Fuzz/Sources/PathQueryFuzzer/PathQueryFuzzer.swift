@testable import Courier
import Foundation
import FuzzSupport

/// Path segments and query items from user data: every byte outside the allowed set is escaped,
/// a value can never add a segment or a query item, and escaping round-trips.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    let parts = input.parts
    let value = parts.first ?? ""
    let path: EndpointPath = "/users/\(value)/friends"
    if path.problem == nil {
        let segments = path.encoded.split(separator: "/", omittingEmptySubsequences: false)
        if segments.count != 4 { fuzzFailure("'\(value)' changed the number of segments: \(path.encoded)") }
        if segments[2].removingPercentEncoding != value { fuzzFailure("'\(value)' does not round-trip: \(segments[2])") }
        for byte in path.encoded.utf8 where !(pathSegmentAllowed.contains(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "%")) {
            fuzzFailure("unescaped byte \(byte) in \(path.encoded)")
        }
    }
    var items: [QueryItem] = []
    for index in stride(from: 0, to: parts.count - 1, by: 2) { items.append(QueryItem(name: parts[index], value: parts[index + 1])) }
    let query = encodeQuery(items)
    if !items.isEmpty {
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        if pairs.count != items.count { fuzzFailure("\(items.count) items became \(pairs.count): \(query)") }
    }
    for byte in query.utf8 where !(queryAllowed.contains(byte) || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "=")) {
        fuzzFailure("unescaped byte \(byte) in \(query)")
    }
    _ = Redaction().redact(url: "https://a/b?" + query)
    return 0
}
