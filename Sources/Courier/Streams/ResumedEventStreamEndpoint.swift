import Foundation
import HTTPTypes

/// An event stream endpoint sent again after a cut: the same request with `Last-Event-ID`.
struct ResumedEventStreamEndpoint<Base: EventStreamEndpoint>: EventStreamEndpoint {
    typealias Response = Base.Response
    typealias Event = Base.Event

    let base: Base
    let lastEventID: String?

    var operationName: String { base.operationName }
    var method: HTTPRequest.Method { base.method }
    var path: EndpointPath { base.path }
    var parameters: Parameters { base.parameters }
    var query: Parameters { base.query }
    var body: RequestBody? { base.body }
    var headers: HTTPFields {
        var fields = base.headers
        if let lastEventID, let name = HTTPField.Name("Last-Event-ID") { fields[name] = lastEventID }
        return fields
    }
    var timeout: Duration? { base.timeout }
    var cachePolicy: CachePolicy? { base.cachePolicy }
    var isIdempotent: Bool { base.isIdempotent }
    var requiresAuthentication: Bool { base.requiresAuthentication }
    var idempotencyKey: IdempotencyKey? { base.idempotencyKey }
    var eventFormat: EventStreamFormat { base.eventFormat }
    var maximumEventSize: Int? { base.maximumEventSize }

    func decode(_ body: Data, context: DecodingContext) throws -> Base.Response {
        try base.decode(body, context: context)
    }

    func decodeEvent(_ event: StreamedEvent<Data>, context: DecodingContext) throws -> Base.Event? {
        try base.decodeEvent(event, context: context)
    }
}
