import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with Foundation's `URLSession`, on Apple platforms and on Linux.
///
/// Courier's own transport rather than swift-openapi-urlsession's: it gives each request the
/// timeout of its endpoint, cancels the session task the moment the Swift task is cancelled, maps
/// `URLError` to ``CourierError`` kinds, and never crashes on odd header names or bytes.
/// Responses are buffered (URLSession on Linux cannot stream); the client bounds their size. The
/// call's timeout covers the whole exchange: the session task is cancelled when it runs out.
public struct URLSessionTransport: BufferingTransport {
    /// The session requests run on.
    public let session: URLSession

    /// Creates a transport over a session.
    ///
    /// The default session is ephemeral, with URLSession's own cache and cookie handling off:
    /// caching is the job of `CourierCache`, and cookies are header fields the app controls.
    public init(session: URLSession = URLSessionTransport.makeDefaultSession()) {
        self.session = session
    }

    /// An ephemeral session without URL cache or automatic cookies.
    public static func makeDefaultSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration)
    }

    /// Sends one request and returns the response with its whole body.
    public func exchange(_ request: HTTPRequest, body: Data?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, Data) {
        var urlRequest = try makeURLRequest(request, baseURL: baseURL)
        urlRequest.httpBody = body
        let context = RequestContext.current
        let timeout = context?.timeout ?? .seconds(60)
        // URLSession's own interval is an idle timeout, and FoundationNetworking on Linux truncates
        // fractions (0.3 s becomes 0 and fails at once): set it past the deadline, which `perform`
        // enforces exactly.
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        urlRequest.timeoutInterval = max(1, seconds.rounded(.up) + 1)
        try Task.checkCancellation()
        let (data, urlResponse) = try await perform(urlRequest, timeout: timeout)
        // URLSession buffers the whole body before handing it over; the limit still holds for the caller.
        if let limit = context?.maximumBodySize, data.count > limit {
            throw CourierError.bodyTooLarge(limit: limit, size: data.count)
        }
        return (try makeResponse(urlResponse), data)
    }

    /// Runs a data task, cancelling it as soon as the calling task is cancelled or the timeout passes.
    private func perform(_ urlRequest: URLRequest, timeout: Duration) async throws -> (Data, URLResponse) {
        // Everything the three parties (the data task's completion, the timer, the caller's
        // cancellation) share, behind one lock.
        struct Exchange {
            var task: URLSessionDataTask?
            var cancelled = false
            var timedOut = false
            var finished = false
            var timer: DeadlineTimer.Token?
        }
        let state = Locked(Exchange())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    let (timedOut, timer) = state.withLock { state in
                        state.finished = true
                        defer { state.timer = nil }
                        return (state.timedOut, state.timer)
                    }
                    timer?.cancel()
                    if timedOut {
                        continuation.resume(throwing: CourierError(.timedOut, detail: "No complete response within \(timeout)"))
                    } else if let error {
                        continuation.resume(throwing: CourierError.from(transportError: error))
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: CourierError(.invalidResponse, detail: "URLSession returned no response"))
                    }
                }
                let cancelled = state.withLock { state -> Bool in
                    state.task = task
                    return state.cancelled
                }
                // Resume even when cancelled: the task then finishes at once with `cancelled`,
                // which resumes the continuation exactly once.
                task.resume()
                let timer = DeadlineTimer.shared.schedule(after: timeout) {
                    state.withLock { state -> URLSessionDataTask? in
                        state.timedOut = true
                        return state.task
                    }?.cancel()
                }
                // A response faster than this line leaves the timer to be cancelled here.
                let finished = state.withLock { state -> Bool in
                    if !state.finished { state.timer = timer }
                    return state.finished
                }
                if finished { timer.cancel() }
                if cancelled { task.cancel() }
            }
        } onCancel: {
            state.withLock { state -> URLSessionDataTask? in
                state.cancelled = true
                return state.task
            }?.cancel()
        }
    }

    private func makeURLRequest(_ request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        let text = baseURL.absoluteString(appendingRequestPath: request.path)
        guard let url = URL(string: text) else {
            throw CourierError(.invalidRequest, detail: "Cannot form a URL from '\(text)'")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        // URLRequest holds one value per name: join repeated fields as RFC 9110 allows (`; ` for Cookie).
        var joined: [(HTTPField.Name, String)] = []
        for field in request.headerFields {
            if let index = joined.firstIndex(where: { $0.0 == field.name }) {
                joined[index].1 += (field.name == .cookie ? "; " : ", ") + field.value
            } else {
                joined.append((field.name, field.value))
            }
        }
        for (name, value) in joined { urlRequest.setValue(value, forHTTPHeaderField: name.rawName) }
        return urlRequest
    }

    private func makeResponse(_ urlResponse: URLResponse) throws -> HTTPResponse {
        guard let http = urlResponse as? HTTPURLResponse, (100...999).contains(http.statusCode) else {
            throw CourierError(.invalidResponse, detail: "Not an HTTP response: \(urlResponse)")
        }
        var fields = HTTPFields()
        for (key, value) in http.allHeaderFields {
            // Names that are not valid tokens are dropped rather than trusted or crashed on.
            guard let nameText = key as? String, let name = HTTPField.Name(nameText) else { continue }
            // The values are strings; `String(describing:)` (a dynamic conformance search) is only the fallback.
            fields.append(HTTPField(name: name, value: value as? String ?? String(describing: value)))
        }
        return HTTPResponse(status: .init(code: http.statusCode), headerFields: fields)
    }
}
