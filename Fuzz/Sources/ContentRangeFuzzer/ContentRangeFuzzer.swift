@testable import Courier
import FuzzSupport

/// `Content-Range` of a 206: a parsed range is never empty, backwards or past its complete length.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    if let range = ContentRange(input.text) {
        if range.first < 0 || range.last < range.first || range.count < 1 { fuzzFailure("bad range \(range) from '\(input.text)'") }
        if let length = range.completeLength, range.last >= length { fuzzFailure("range past its length \(range) from '\(input.text)'") }
    }
    return 0
}
