import Courier
import NIOCore
import OpenAPIRuntime

/// A response body as `HTTPBody`'s chunks, read from a ``ResponseStream``.
///
/// Dropping it before its end cancels the request, so an unread body (a retried 503, a redirect)
/// never holds its connection until the deadline.
struct ResponseBodyChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    private let reader: Reader

    init(_ stream: ResponseStream, limit: TimeLimit) {
        reader = Reader(stream: stream, limit: limit)
    }

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                guard var chunk = try await reader.stream.nextChunk() else { return nil }
                return chunk.readBytes(length: chunk.readableBytes)?[...] ?? []
            } catch {
                throw AsyncHTTPClientTransport.map(error, limit: reader.limit)
            }
        }
    }

    /// The one owner of the stream on the reading side: when the last copy goes, so does the request.
    final class Reader: Sendable {
        let stream: ResponseStream
        let limit: TimeLimit

        init(stream: ResponseStream, limit: TimeLimit) {
            self.stream = stream
            self.limit = limit
        }

        deinit { stream.abandon() }
    }
}
