import Foundation
import HTTPTypes

/// The one error every Courier call throws: what failed, in a family a UI can act on, with the evidence.
///
/// Switch on ``family`` to choose what to show ("No Internet connection", the server's own message,
/// or "Something went wrong"); switch on ``kind`` for the precise stage that failed. New kinds can be
/// added without breaking callers because ``Kind`` is a struct with static members, not an enum.
public struct CourierError: Error, Sendable {
    /// The precise reason.
    public var kind: Kind {
        get { fields.kind }
        set { fields.kind = newValue }
    }
    /// A technical detail for logs and developers (never shown to users as is).
    public var detail: String {
        get { fields.detail }
        set { fields.detail = newValue }
    }
    /// The message the server put in its body, when it sent one.
    public var serverMessage: String? {
        get { fields.serverMessage }
        set { fields.serverMessage = newValue }
    }
    /// The endpoint's name (its operation id), when the error happened inside a call.
    public var endpoint: String? {
        get { fields.endpoint }
        set { fields.endpoint = newValue }
    }
    /// The request as sent: method and URL with secrets redacted.
    public var request: RequestSummary? {
        get { fields.request }
        set { fields.request = newValue }
    }
    /// The HTTP status, when a response arrived.
    public var status: HTTPResponse.Status? {
        get { fields.status }
        set { fields.status = newValue }
    }
    /// The response header fields, when a response arrived.
    public var responseHeaders: HTTPFields? {
        get { fields.responseHeaders }
        set { fields.responseHeaders = newValue }
    }
    /// The first bytes of the response body (at most 1 KiB), as lossy UTF-8.
    public var bodySnippet: String? {
        get { fields.bodySnippet }
        set { fields.bodySnippet = newValue }
    }
    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        get { fields.underlying }
        set { fields.underlying = newValue }
    }
    /// What a download cut after some bytes needs to continue (see ``Client/download(_:to:resumingFrom:cachePolicy:progress:)``).
    public var resumableDownload: ResumableDownload? {
        get { fields.resumableDownload }
        set { fields.resumableDownload = newValue }
    }

    /// The evidence, boxed: `throws(CourierError)` reserves room for the error in every caller's
    /// async frame, and a pointer there instead of ~190 bytes keeps the success path's frames small.
    /// The box is immutable; a change makes a new one (errors change a few times, on the failure path).
    private var box: Box

    private var fields: Fields {
        get { box.fields }
        set { box = Box(newValue) }
    }

    private struct Fields: Sendable {
        var kind: Kind
        var detail: String
        var serverMessage: String?
        var endpoint: String?
        var request: RequestSummary?
        var status: HTTPResponse.Status?
        var responseHeaders: HTTPFields?
        var bodySnippet: String?
        var underlying: (any Error)?
        var resumableDownload: ResumableDownload?
        /// The secret list the evidence went through; the description applies it (or the default) again.
        var redaction: Redaction?
    }

    /// The secret list ``description`` hides values with: the client's, once the error left a call.
    var redaction: Redaction { fields.redaction ?? Redaction() }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// This error with the call's endpoint and request where it has none, and its evidence passed
    /// through the client's secret list (see ``redacted(with:)``), in one new box: on the failure path only.
    func filling(endpoint: String, request: RequestSummary, redaction: Redaction) -> CourierError {
        var copy = fields
        copy.endpoint = copy.endpoint ?? endpoint
        copy.request = copy.request ?? request
        return CourierError(box: Box(copy)).redacted(with: redaction)
    }

    private init(box: Box) { self.box = box }

    /// This error with its evidence passed through a secret list: response header fields, the
    /// detail and the underlying error (the URLs inside it included).
    package func redacted(with redaction: Redaction) -> CourierError {
        var copy = fields
        copy.responseHeaders = copy.responseHeaders.map(redaction.redact)
        copy.detail = redaction.redact(text: copy.detail)
        copy.underlying = copy.underlying.map { Self.redacting($0, with: redaction) }
        copy.redaction = redaction
        return CourierError(box: Box(copy))
    }

    /// An underlying error with its URLs redacted: a `URLError` (an `NSError` on Apple platforms)
    /// is rebuilt with the URLs and texts of its user info redacted, nested errors too.
    private static func redacting(_ error: any Error, with redaction: Redaction) -> any Error {
        if let error = error as? CourierError { return error.redacted(with: redaction) }
        if let error = error as? URLError {
            return URLError(error.code, userInfo: redacting(error.userInfo, with: redaction))
        }
        #if canImport(Darwin)
        // Only Foundation's and CFNetwork's own errors: any other is an app's type, kept as it is.
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain || nsError.domain == "kCFErrorDomainCFNetwork", !nsError.userInfo.isEmpty else { return error }
        return NSError(domain: nsError.domain, code: nsError.code, userInfo: redacting(nsError.userInfo, with: redaction))
        #else
        return error
        #endif
    }

    private static func redacting(_ userInfo: [String: Any], with redaction: Redaction) -> [String: Any] {
        userInfo.mapValues { value -> Any in
            switch value {
            case let url as URL: URL(string: redaction.redact(url: url.absoluteString)) ?? redaction.redact(url: url.absoluteString)
            case let text as String: redaction.redact(text: text)
            case let nested as any Error: redacting(nested, with: redaction)
            default: value
            }
        }
    }

    /// How many bytes of a body an error keeps as evidence.
    package static let snippetLimit = 1024

    /// Creates an error of the given kind with a technical detail and optional evidence.
    public init(
        _ kind: Kind,
        detail: String,
        serverMessage: String? = nil,
        status: HTTPResponse.Status? = nil,
        responseHeaders: HTTPFields? = nil,
        body: Data? = nil,
        underlying: (any Error)? = nil
    ) {
        box = Box(Fields(
            kind: kind, detail: detail, serverMessage: serverMessage, status: status, responseHeaders: responseHeaders,
            bodySnippet: body.map(Self.snippet(of:)), underlying: underlying
        ))
    }

    /// The family a UI switches on.
    public var family: Family {
        switch kind {
        case .noConnection: .noConnection
        case .server, .envelope, .rejected: serverMessage == nil ? .other : .server
        default: .other
        }
    }

    /// A bounded, lossy UTF-8 rendering of the first bytes of a body.
    static func snippet(of body: Data) -> String {
        let prefix = body.prefix(snippetLimit)
        let text = String(decoding: prefix, as: UTF8.self)
        return body.count > snippetLimit ? text + "…" : text
    }
}
