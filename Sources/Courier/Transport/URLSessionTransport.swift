import Foundation
import HTTPTypes
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests with Foundation's `URLSession`, on Apple platforms and on Linux.
///
/// Courier's own rather than swift-openapi-urlsession's: it gives each request the timeout of its
/// endpoint, cancels the session task the moment the Swift task is cancelled, maps `URLError` to
/// ``CourierError`` kinds, and never crashes on odd header names or bytes. It reads the body as it
/// arrives and stops at the client's size limit, so a huge response costs no more memory than the
/// limit. It never follows redirects: the ``Client`` does (see ``RedirectMiddleware``). The call's
/// timeout covers the whole response: the session task is cancelled when it runs out. A transfer's body (a download, ``Client/bytes(for:)``) is handed
/// over as it arrives, with URLSession's idle timeout, in bounded memory: while the reader is behind
/// the task is suspended (Apple platforms) and what still arrives waits in a private temporary file. A file or form body over 1 MiB streams from its source (chunked on
/// Linux, whose URLSession sends every streamed body that way); a caller's stream body is gathered
/// in memory, up to 64 MiB: URLSession reads a body stream synchronously, and on
/// Linux every session shares one queue, so a stream waiting on the caller would hold up every
/// URLSession request in the process. Stream large uploads over `AsyncHTTPClientTransport`.
public struct URLSessionTransport: CourierTransport {
    /// The session requests run on; its delegate belongs to the transport.
    package var session: URLSession { lifetime.session }

    private let lifetime: SessionLifetime
    private var delegate: URLSessionTransportDelegate { lifetime.delegate }

    /// Creates a transport with a session of its own over `configuration`.
    ///
    /// The default configuration is ephemeral, with URLSession's own cache and cookie handling off:
    /// caching is the job of `CourierCache`, and cookies are header fields the app controls.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        lifetime = SessionLifetime(configuration: configuration)
    }

    /// Creates a transport that trusts servers as `trust` says (see ``ServerTrust``).
    ///
    /// On Apple platforms the roots and pins are applied to each server-trust challenge, pins
    /// matching any certificate of the evaluated chain; a client certificate is not supported yet.
    /// On Linux, URLSession verifies with the system's roots only, so anything else is refused here.
    /// - Throws: ``CourierError/Kind/serverTrust`` for what this platform's URLSession can't honour.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration(), trust: ServerTrust) throws(CourierError) {
        lifetime = SessionLifetime(configuration: configuration, trust: try URLSessionTrust(trust))
    }

    /// An ephemeral configuration without URL cache or automatic cookies.
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    /// The largest request body of known length sent from memory; larger files and forms stream.
    package static let gatheredBodyLimit = 1 << 20
    /// The largest ``RequestBody/stream(_:length:contentType:)`` body this transport sends: it
    /// gathers those in memory.
    package static let streamGatheringLimit = 64 << 20

    /// Sends one request; the response's body is read whole, within the client's size limit, or for
    /// a transfer handed over as it arrives.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        try await sendOutsideClient(request, body: body, baseURL: baseURL)
    }

    /// Sends one attempt of a call; see ``send(_:body:baseURL:operationID:)``.
    package func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, attempt: TransportAttempt) async throws -> Answer {
        let limit = attempt.timeLimit
        var urlRequest = try makeURLRequest(request, baseURL: baseURL)
        // A caller's stream is gathered within the deadline, or a transfer's idle limit from now.
        let gathering = limit.deadline ?? Deadline(timeout: limit.span)
        let upload = try await attach(body, to: &urlRequest, deadline: gathering, selfContained: attempt.requestBodyIsSelfContained)
        // URLSession's own interval is an idle timeout, and FoundationNetworking on Linux truncates
        // fractions (0.3 s becomes 0 and fails at once). A transfer's idle limit is URLSession's
        // alone; any other call's deadline `perform` enforces exactly.
        urlRequest.timeoutInterval = max(1, limit.span.inSeconds.rounded(.up) + (attempt.isTransfer ? 0 : 1))
        try Task.checkCancellation()
        do {
            let (urlResponse, responseBody) = try await performResendingOnce(
                urlRequest, upload: upload, attempt: attempt)
            upload?.close()
            let head = try makeResponse(urlResponse)
            return switch responseBody {
            case .whole(let data): Answer(response: head, whole: data)
            case .streamed(let body): Answer(response: head, body: body)
            }
        } catch {
            // The body's own failure (a file that shrank or changed) explains the task's better than
            // URLSession can; read before closing, which lets go of the streams that hold it.
            let failure = upload?.failure
            upload?.close()
            throw failure ?? error
        }
    }

    /// Puts `body` on the request: a self-contained one (bytes, a file, a form) over
    /// ``gatheredBodyLimit`` as a stream read as it is sent (started over from the top if URLSession
    /// must send it again), any other in memory (a caller's stream up to ``streamGatheringLimit``,
    /// see the type's summary, and within the call's deadline: a caller's stream may stall).
    private func attach(_ body: HTTPBody?, to urlRequest: inout URLRequest, deadline: Deadline, selfContained: Bool) async throws -> UploadBody? {
        guard let body else { return nil }
        let small = body.knownLength.map { $0 <= Self.gatheredBodyLimit } ?? false
        guard selfContained, !small, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) else {
            let limit = small ? Self.gatheredBodyLimit : Self.streamGatheringLimit
            urlRequest.httpBody = selfContained
                ? try await gatherRequestBody(body, limit: limit)
                : try await deadline.bound { try await gatherRequestBody(body, limit: limit) }
            return nil
        }
        let upload = UploadBody(body)
        urlRequest.httpBodyStream = upload.firstStream()
        #if canImport(Darwin)
        if let length = body.knownLength { urlRequest.setValue(String(length), forHTTPHeaderField: "Content-Length") }
        #endif
        return upload
    }

    /// ``perform(_:upload:deadline:limit:streams:)``, sent once more on a new connection when an idempotent
    /// request with its body in memory got an answer that is not HTTP: on a reused connection, the
    /// leftovers of an earlier response that ran past its length (curl has dropped that connection
    /// by then; only curl answers so, Apple's URLSession has no such error). AsyncHTTPClient closes
    /// such a connection before reusing it.
    private func performResendingOnce(
        _ urlRequest: URLRequest, upload: UploadBody?, attempt: TransportAttempt
    ) async throws -> URLSessionTransportDelegate.Reception.Reply {
        // A transfer's idle limit is URLSession's, set on the request; any other's is a deadline.
        let deadline = attempt.timeLimit.deadline
        let (limit, streams) = (attempt.maximumBodySize, attempt.isTransfer)
        do {
            return try await perform(urlRequest, upload: upload, deadline: deadline, limit: limit, streams: streams)
        } catch let error as CourierError {
            guard upload == nil, attempt.isIdempotent,
                let urlError = error.underlying as? URLError, urlError.isAnswerThatIsNotHTTP
            else { throw error }
            return try await perform(urlRequest, upload: nil, deadline: deadline, limit: limit, streams: streams)
        }
    }

    /// Runs a data task. A cancelled call or a passed deadline answers at once, whatever the
    /// session does with the task after it (see ``TaskStop``).
    private func perform(
        _ urlRequest: URLRequest, upload: UploadBody?, deadline: Deadline?, limit: Int, streams: Bool
    ) async throws -> URLSessionTransportDelegate.Reception.Reply {
        let task = session.dataTask(with: urlRequest)
        let stop = TaskStop(task, in: session)
        upload?.attach(to: task, stop: stop)
        #if canImport(Darwin)
        // A suspended task stops reading its socket: the reader's pace reaches the server.
        let pause: (@Sendable (Bool) -> Void)? = { paused in paused ? task.suspend() : task.resume() }
        #else
        // FoundationNetworking restarts a suspended task's transfer on resume: the buffer's file is the flow control.
        let pause: (@Sendable (Bool) -> Void)? = nil
        #endif
        let reception = URLSessionTransportDelegate.Reception(
            limit: limit, streams: streams, stop: stop, pause: pause)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A call cancelled before it started never starts its task.
                guard reception.start(continuation) else { return }
                delegate.register(reception, for: task)
                task.resume()
                if let deadline {
                    let timer = deadline.schedule { reception.end(deadline.error) }
                    // Done before the timer was set: cancel it now.
                    if reception.keep(timer) == false { timer.cancel() }
                }
                if Task.isCancelled { reception.end(Self.cancelled) }
            }
        } onCancel: {
            reception.end(Self.cancelled)
        }
    }

    private static let cancelled = CourierError(.cancelled, detail: "The call was cancelled")

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
        if request.headerFields[.range] != nil, request.headerFields[.acceptEncoding] == nil {
            // A range (a resumed download, a part) counts bytes of the representation as stored: never
            // a compressed one, which URLSession would decode and so shift every offset on disk.
            urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
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
