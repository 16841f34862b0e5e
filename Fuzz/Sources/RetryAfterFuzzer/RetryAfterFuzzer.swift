@testable import Courier
import Foundation
import FuzzSupport

/// `Retry-After` values: seconds or an HTTP-date; the wait is never negative.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    if let delay = RetryPolicy.retryAfterDelay(input.text, now: Date(timeIntervalSince1970: 1_700_000_000)), delay < .zero {
        fuzzFailure("negative wait \(delay) for '\(input.text)'")
    }
    _ = RetryPolicy.default.decision(
        afterAttempt: 1, method: .get, isIdempotent: nil, status: .serviceUnavailable, error: nil,
        retryAfter: input.text, elapsed: .zero, now: Date(timeIntervalSince1970: 1_700_000_000))
    return 0
}
