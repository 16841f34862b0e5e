import Foundation
import OpenAPIRuntime

/// Reads a whole body into memory, failing with ``CourierError/Kind/bodyTooLarge`` past `limit` bytes.
package func collectBody(_ body: HTTPBody?, limit: Int) async throws -> Data {
    guard let body else { return Data() }
    let announced: Int? = if case .known(let length) = body.length { Int(clamping: length) } else { nil }
    var accumulator = try BodyAccumulator(limit: limit, announcedLength: announced)
    for try await chunk in body { try accumulator.append(chunk) }
    return accumulator.data
}

/// A response body gathered into one `Data` within a size limit: the one place that applies the
/// limit, for the client and for Courier's transports alike.
package struct BodyAccumulator {
    /// The bytes so far.
    package private(set) var data = Data()
    private let limit: Int

    /// Starts a body; fails at once when the server announced more than `limit` bytes.
    package init(limit: Int, announcedLength: Int?) throws(CourierError) {
        self.limit = limit
        if let announced = announcedLength, announced >= 0 {
            guard announced <= limit else { throw .bodyTooLarge(limit: limit, size: announced) }
            // A server's number sizes the buffer only up to 8 MiB (it is not trusted with memory):
            // beyond that the buffer grows as bytes arrive.
            data.reserveCapacity(min(announced, 8 << 20))
        }
    }

    /// Adds one chunk (one copy), failing when the body would pass the limit.
    package mutating func append(_ chunk: some Collection<UInt8>) throws(CourierError) {
        guard data.count + chunk.count <= limit else { throw .bodyTooLarge(limit: limit) }
        data.append(contentsOf: chunk)
    }
}

extension CourierError {
    /// The one error for a response body over the size limit, whichever part of Courier read it.
    /// - Parameter size: the body's size when known (announced or fully read), else nil.
    package static func bodyTooLarge(limit: Int, size: Int? = nil) -> CourierError {
        let what = size.map { "The response body (\($0) bytes)" } ?? "The response body"
        return CourierError(.bodyTooLarge, detail: "\(what) exceeds the limit of \(limit) bytes")
    }
}

/// A request body gathered into memory for a transport that sends it whole, failing with
/// ``CourierError/Kind/invalidRequest`` past `limit` bytes; nil without a body.
package func gatherRequestBody(_ body: HTTPBody?, limit: Int) async throws -> Data? {
    guard let body else { return nil }
    var data = Data()
    if case .known(let length) = body.length { data.reserveCapacity(Int(clamping: min(length, Int64(limit)))) }
    for try await chunk in body {
        guard data.count + chunk.count <= limit else {
            throw CourierError(.invalidRequest, detail: "The request body exceeds the \(limit) bytes this transport sends from memory")
        }
        data.append(contentsOf: chunk)
    }
    return data
}
