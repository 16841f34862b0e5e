import Foundation
import OpenAPIRuntime

/// Reads a whole body into memory, failing with ``CourierError/Kind/bodyTooLarge`` past `limit` bytes.
func collectBody(_ body: HTTPBody?, limit: Int) async throws -> Data {
    guard let body else { return Data() }
    var data = Data()
    if case .known(let length) = body.length {
        guard length <= limit else { throw CourierError.bodyTooLarge(limit: limit, size: Int(clamping: length)) }
        // An announced length sizes the buffer only up to 8 MiB (a server's number is not trusted with memory).
        data.reserveCapacity(Int(clamping: max(0, min(length, 8 << 20))))
    }
    for try await chunk in body {
        guard data.count + chunk.count <= limit else { throw CourierError.bodyTooLarge(limit: limit) }
        data.append(contentsOf: chunk)
    }
    return data
}

extension CourierError {
    /// The one error for a response body over the size limit, whichever part of Courier read it.
    /// - Parameter size: the body's size when known (announced or fully read), else nil.
    package static func bodyTooLarge(limit: Int, size: Int? = nil) -> CourierError {
        let what = size.map { "The response body (\($0) bytes)" } ?? "The response body"
        return CourierError(.bodyTooLarge, detail: "\(what) exceeds the limit of \(limit) bytes")
    }
}
