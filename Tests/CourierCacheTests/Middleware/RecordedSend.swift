import Courier
import HTTPTypes

/// What a Courier transport records for the cache above it, for tests whose network is a closure
/// that stands for one: without it the cache hears nothing from below, as over another transport,
/// and keeps only what a shared cache may keep from a request with credentials.
func recordSend(of request: HTTPRequest) {
    guard let context = RequestContext.current else { return }
    let sent = SentCredentials(request.headerFields, redaction: context.facts.redaction)
    context.facts.report?.record(Answer(response: HTTPResponse(status: .ok), body: nil, source: .network, attempts: 1, credentials: sent))
}
