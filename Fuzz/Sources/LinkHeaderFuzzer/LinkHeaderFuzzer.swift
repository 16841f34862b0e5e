@testable import Courier
import FuzzSupport

/// `Link` header values (RFC 8288), one field line per NUL-separated part. Invariants: no crash, a
/// target never holds the `>` that ends it, and relation types are lowercase and without spaces.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    for part in input.parts {
        let header = LinkHeader(part)
        for link in header.links {
            if link.target.contains(">") { fuzzFailure("target '\(link.target)' of '\(part)'") }
            for relation in link.relations where relation != relation.lowercased() || relation.contains(" ") || relation.isEmpty {
                fuzzFailure("relation '\(relation)' of '\(part)'")
            }
        }
        _ = header.target(of: "next")
    }
    return 0
}
