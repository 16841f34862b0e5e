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

    init(_ stream: ResponseStream, deadline: Deadline) {
        reader = Reader(stream: stream, deadline: deadline)
    }

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        let reader: Reader

        mutating func next() async throws -> ArraySlice<UInt8>? {
            do {
                guard var chunk = try await reader.stream.nextChunk() else { return nil }
                return chunk.readBytes(length: chunk.readableBytes)?[...] ?? []
            } catch {
                throw AsyncHTTPClientTransport.map(error, deadline: reader.deadline)
            }
        }
    }

    /// The one owner of the stream on the reading side: when the last copy goes, so does the request.
    final class Reader: Sendable {
        let stream: ResponseStream
        let deadline: Deadline

        init(stream: ResponseStream, deadline: Deadline) {
            self.stream = stream
            self.deadline = deadline
        }

        deinit { stream.abandon() }
    }
}
