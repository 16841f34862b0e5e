@testable import Courier
import Foundation
import FuzzSupport

/// `Location` values of redirects: resolved against the request's URL; only http and https
/// targets with a host make an origin, and an origin's base URL names the same origin.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    guard let base = URL(string: "https://api.example.com/v1/items?page=2"),
          let target = URL(string: input.text, relativeTo: base)?.absoluteURL,
          let origin = Origin(target)
    else { return 0 }
    if origin.scheme != "http" && origin.scheme != "https" { fuzzFailure("origin with scheme \(origin.scheme)") }
    if Origin(origin.url) != origin { fuzzFailure("\(origin) does not survive its own base URL \(origin.url)") }
    return 0
}
