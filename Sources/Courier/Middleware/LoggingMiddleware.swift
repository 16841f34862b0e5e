import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Logs each request and response at debug level, with secrets redacted.
///
/// Silent unless you add it with a logger. Messages are static; the details go in metadata
/// (`courier.endpoint`, `courier.method`, `courier.url`, `courier.status`, `courier.duration_ms`…),
/// and header fields and query items named in the ``Redaction`` never show their values: this
/// middleware's own list and, inside a ``Client``, the client's.
public struct LoggingMiddleware: ClientMiddleware, CourierMiddleware {
    /// Where the lines go.
    var logger: Logger
    /// Which header fields and query items are hidden, besides those of the client's list.
    var redaction: Redaction
    /// Whether bodies are logged (up to `bodyLimit` bytes).
    var logsBodies: Bool
    /// How many bytes of a body are logged when `logsBodies` is on.
    var bodyLimit: Int

    /// Creates the middleware.
    /// - Parameters:
    ///   - logger: Where the lines go.
    ///   - redaction: Header fields and query items to hide besides those of the client's list.
    ///   - logsBodies: Whether bodies are logged (up to `bodyLimit` bytes); off by default, bodies may hold personal data.
    ///   - bodyLimit: How many bytes of a body are logged when `logsBodies` is on.
    public init(logger: Logger, redaction: Redaction = Redaction(), logsBodies: Bool = false, bodyLimit: Int = 2048) {
        self.logger = logger
        self.redaction = redaction
        self.logsBodies = logsBodies
        self.bodyLimit = bodyLimit
    }

    /// Logs the request, passes it on, and logs the response or the error.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        guard logger.logLevel <= .debug else { return try await next(request, body, baseURL, context) }
        let redaction = self.redaction.merging(context.facts.redaction)
        var metadata: Logger.Metadata = [
            "courier.endpoint": "\(context.endpoint)",
            "courier.method": "\(request.method.rawValue)",
            "courier.url": "\(redaction.redact(url: baseURL.absoluteString(appendingRequestPath: request.path)))",
        ]
        var requestMetadata = metadata
        requestMetadata["courier.headers"] = "\(describe(request.headerFields, redaction))"
        if logsBodies, let body, case .known(let length) = body.length, length <= bodyLimit,
            let data = try? await Data(collecting: body, upTo: bodyLimit)
        {
            requestMetadata["courier.body"] = "\(String(decoding: data, as: UTF8.self))"
        }
        logger.debug("request", metadata: requestMetadata)
        let started = ContinuousClock.now
        do {
            var answer = try await next(request, body, baseURL, context)
            let response = answer.response
            metadata["courier.status"] = "\(response.status.code)"
            metadata["courier.duration_ms"] = "\(milliseconds(ContinuousClock.now - started))"
            metadata["courier.headers"] = "\(describe(response.headerFields, redaction))"
            // Only a body announced within the limit is read (and handed on as bytes: a stream can
            // be read once); any other streams past untouched.
            if logsBodies, let whole = answer.whole, whole.count <= bodyLimit {
                metadata["courier.body"] = "\(CourierError.snippet(of: whole))"
            } else if logsBodies, let body = answer.body, case .known(let length) = body.length, length <= bodyLimit {
                let data = try await Data(collecting: body, upTo: bodyLimit)
                metadata["courier.body"] = "\(CourierError.snippet(of: data))"
                answer.whole = data
            }
            logger.debug("response", metadata: metadata)
            return answer
        } catch {
            metadata["courier.duration_ms"] = "\(milliseconds(ContinuousClock.now - started))"
            metadata["courier.error"] = "\(CourierError.from(transportError: error).kind)"
            logger.debug("request failed", metadata: metadata)
            throw error
        }
    }

    private func describe(_ fields: HTTPFields, _ redaction: Redaction) -> String {
        redaction.redact(fields).map { "\($0.name): \($0.value)" }.joined(separator: "; ")
    }
}

/// A duration in whole milliseconds with one decimal.
func milliseconds(_ duration: Duration) -> Double {
    (duration.inSeconds * 10_000).rounded() / 10
}
