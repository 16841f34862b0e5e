@testable import Courier
import Foundation
import FuzzSupport

/// `Expires`, `Date` and `Last-Modified` values: any bytes parse or are refused; a date that
/// parses formats back to an IMF-fixdate that parses to the same instant, exactly too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    // The exact forms are a subset of the lenient ones, naming the same instant.
    if let exact = HTTPDate.parseExact(input.text), HTTPDate.parse(input.text) != exact {
        fuzzFailure("'\(input.text)' parses exactly to \(exact) but leniently to \(String(describing: HTTPDate.parse(input.text)))")
    }
    guard let date = HTTPDate.parse(input.text) else { return 0 }
    let formatted = HTTPDate.string(from: date)
    guard let again = HTTPDate.parse(formatted) else { fuzzFailure("'\(formatted)' (from '\(input.text)') does not parse") }
    if again != date { fuzzFailure("'\(input.text)' → \(date) → '\(formatted)' → \(again)") }
    if HTTPDate.parseExact(formatted) != date { fuzzFailure("'\(formatted)' does not parse exactly") }
    return 0
}
