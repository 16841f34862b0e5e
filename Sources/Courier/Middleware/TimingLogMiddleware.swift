import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Appends one line per request to a log file, to find slow endpoints. Off unless added.
///
/// Each line is tab-separated: ISO 8601 time, method, endpoint name, status (or the error kind),
/// duration in milliseconds, response bytes, source (`network`, `cache`, `revalidated`, `stale`).
/// Put it first in the chain so that it times what the caller waits for, cache hits included.
public struct TimingLogMiddleware: ClientMiddleware, CourierMiddleware {
    private let file: TimingLogFile

    /// Creates the middleware writing to `fileURL` (created if missing, readable by the user only;
    /// appended to otherwise).
    /// - Throws: When the file cannot be created or opened.
    public init(fileURL: URL) throws {
        file = try TimingLogFile(url: fileURL)
    }

    /// Times the rest of the chain and writes the line.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        let startedAt = Date()
        let started = ContinuousClock.now
        do {
            let answer = try await next(request, body, baseURL, context)
            var bytes: Int64 = -1
            if let responseBody = answer.body, case .known(let length) = responseBody.length { bytes = length }
            file.append(
                startedAt, request.method.rawValue, context.endpoint, "\(answer.response.status.code)",
                milliseconds(ContinuousClock.now - started), bytes, answer.source.identifier
            )
            return answer
        } catch {
            file.append(
                startedAt, request.method.rawValue, context.endpoint, CourierError.from(transportError: error).kind.identifier,
                milliseconds(ContinuousClock.now - started), 0, "error"
            )
            throw error
        }
    }
}

/// The open log file; lines are written whole, one writer at a time.
final class TimingLogFile: Sendable {
    private let handle: Locked<FileHandle>

    init(url: URL) throws {
        guard PrivateFile.create(at: url) else {
            throw CourierError(.file, detail: "Cannot create the timing log at \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        self.handle = Locked(handle)
    }

    func append(_ time: Date, _ method: String, _ endpoint: String, _ status: String, _ milliseconds: Double, _ bytes: Int64, _ source: String) {
        let line = [
            time.formatted(.iso8601), method, endpoint, status, String(format: "%.1f", milliseconds), String(bytes), source,
        ].joined(separator: "\t") + "\n"
        // A full disk must not fail the request: the timing log is best effort.
        handle.withLock { try? $0.write(contentsOf: Data(line.utf8)) }
    }

    deinit { handle.withLock { try? $0.close() } }
}
