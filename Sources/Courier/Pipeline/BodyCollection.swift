import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Reads a whole body into memory, failing with ``CourierError/Kind/bodyTooLarge`` past `limit` bytes.
package func collectBody(_ body: HTTPBody?, limit: Int) async throws -> Data {
    guard let body else { return Data() }
    return try await BodyAccumulator.gather(body, limit: limit, overflow: .responseTooLarge)
}

/// The first `limit` bytes of a body, then no more is read: the evidence of an error status, whose
/// page may be larger than any body the call would decode (an HTML 502 from a proxy).
package func collectPrefix(_ body: HTTPBody?, limit: Int) async throws -> Data {
    guard let body else { return Data() }
    var accumulator = try BodyAccumulator(limit: limit, announcedLength: nil)
    for try await chunk in body where !accumulator.appendPrefix(chunk) { break }
    return accumulator.data
}

/// A response's body read into memory: all of a success's within `limit` (else
/// ``CourierError/Kind/bodyTooLarge``), the first `limit` bytes of an error status's (its evidence:
/// over the limit it is still the server's error).
package func collectResponseBody(_ body: HTTPBody?, of head: HTTPResponse, limit: Int) async throws -> Data {
    head.status.kind == .successful ? try await collectBody(body, limit: limit) : try await collectPrefix(body, limit: limit)
}

/// An answer's body in memory, as ``collectResponseBody(_:of:limit:)`` reads it: a body the
/// answer holds whole is taken as it is (no copy), within the same limit.
package func collectResponseBody(of answer: Answer, limit: Int) async throws -> Data {
    guard let whole = answer.whole else { return try await collectResponseBody(answer.body, of: answer.response, limit: limit) }
    guard whole.count > limit else { return whole }
    guard answer.response.status.kind != .successful else { throw CourierError.bodyTooLarge(limit: limit, size: whole.count) }
    return whole.prefix(limit)
}

/// A request body gathered into memory for a transport that sends it whole, failing with
/// ``CourierError/Kind/invalidRequest`` past `limit` bytes; nil without a body.
package func gatherRequestBody(_ body: HTTPBody?, limit: Int) async throws -> Data? {
    guard let body else { return nil }
    let data = try await BodyAccumulator.gather(body, limit: limit, overflow: .requestTooLarge)
    // Sent whole, a short body would reach the server as a complete one.
    if let announced = body.knownLength, announced != data.count {
        throw CourierError(.invalidRequest, detail: "The request body gave \(data.count) bytes, not the \(announced) it announced")
    }
    return data
}

/// A body gathered into one `Data` within a size limit: the one place that applies a limit, for
/// the client and for Courier's transports alike.
package struct BodyAccumulator {
    /// The bytes so far.
    package private(set) var data = Data()
    private let limit: Int
    private let overflow: Overflow

    /// Which body passed its limit: its error is made only then, not for every body read.
    package enum Overflow: Sendable {
        /// A response's body: ``CourierError/Kind/bodyTooLarge``.
        case responseTooLarge
        /// A request body a transport sends from memory: ``CourierError/Kind/invalidRequest``.
        case requestTooLarge

        func error(limit: Int, size: Int? = nil) -> CourierError {
            switch self {
            case .responseTooLarge: .bodyTooLarge(limit: limit, size: size)
            case .requestTooLarge:
                CourierError(.invalidRequest, detail: "The request body exceeds the \(limit) bytes this transport sends from memory")
            }
        }
    }

    /// Starts a body that fails past `limit` bytes (at once when `announcedLength` is over).
    package init(limit: Int, announcedLength: Int?, overflow: Overflow = .responseTooLarge) throws(CourierError) {
        self.limit = limit
        self.overflow = overflow
        if let announced = announcedLength, announced >= 0 {
            guard announced <= limit else { throw overflow.error(limit: limit, size: announced) }
            // A sender's number sizes the buffer only up to 8 MiB (it is not trusted with memory):
            // beyond that the buffer grows as bytes arrive.
            data.reserveCapacity(min(announced, 8 << 20))
        }
    }

    /// Adds one chunk (one copy), failing when the body would pass the limit.
    package mutating func append(_ chunk: some Collection<UInt8>) throws(CourierError) {
        guard data.count + chunk.count <= limit else { throw overflow.error(limit: limit) }
        data.append(contentsOf: chunk)
    }

    /// Adds what fits of one chunk; false when the body goes past the limit (the rest is dropped).
    package mutating func appendPrefix(_ chunk: some Collection<UInt8>) -> Bool {
        let room = limit - data.count
        guard chunk.count > room else {
            data.append(contentsOf: chunk)
            return true
        }
        data.append(contentsOf: chunk.prefix(max(0, room)))
        return false
    }

    /// All of `body`, within `limit` bytes.
    static func gather(_ body: HTTPBody, limit: Int, overflow: Overflow) async throws -> Data {
        var accumulator = try BodyAccumulator(limit: limit, announcedLength: body.knownLength.map { Int(clamping: $0) }, overflow: overflow)
        for try await chunk in body { try accumulator.append(chunk) }
        // A stream such as `AsyncStream` ends early, without an error, when its reader is
        // cancelled: what was read then is not the whole body.
        try Task.checkCancellation()
        return accumulator.data
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

extension HTTPBody {
    /// The announced length, if any.
    var knownLength: Int64? {
        if case .known(let length) = length { length } else { nil }
    }
}
