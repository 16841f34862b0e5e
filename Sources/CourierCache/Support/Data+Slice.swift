import Foundation
import OpenAPIRuntime

extension Data {
    /// The bytes at `offsets` (counted from the first byte) as a body; nil when they run past the end.
    func body(at offsets: Range<Int>) -> HTTPBody? {
        guard offsets.lowerBound >= 0, offsets.upperBound <= count else { return nil }
        return HTTPBody(self[(startIndex + offsets.lowerBound)..<(startIndex + offsets.upperBound)])
    }
}
