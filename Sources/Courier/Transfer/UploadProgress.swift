import OpenAPIRuntime

extension HTTPBody {
    /// This body, telling `reporter` how many bytes the transport has taken as it reads them; each
    /// reading (a retry's) counts from zero, and the reporter keeps what it passes on monotonic.
    func reportingProgress(to reporter: ProgressReporter?) -> HTTPBody {
        guard let reporter else { return self }
        return HTTPBody(
            CountedChunks(body: self, reporter: reporter, total: knownLength), length: length, iterationBehavior: iterationBehavior
        )
    }
}

/// A body's chunks, counted as they go.
private struct CountedChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let body: HTTPBody
    let reporter: ProgressReporter
    let total: Int64?

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), reporter: reporter, total: total)
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: HTTPBody.AsyncIterator
        let reporter: ProgressReporter
        let total: Int64?
        var sent: Int64 = 0
        var finished = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await chunks.next() else {
                if !finished { reporter.finish(TransferProgress(completed: sent, total: total ?? sent)) }
                finished = true
                return nil
            }
            sent += Int64(chunk.count)
            if let total, sent >= total {
                // The last byte of a body of known length: a transport that knows the length may
                // never ask for the end, so this is the final report.
                reporter.finish(TransferProgress(completed: sent, total: total))
                finished = true
            } else {
                reporter.update(TransferProgress(completed: sent, total: total))
            }
            return chunk
        }
    }
}
