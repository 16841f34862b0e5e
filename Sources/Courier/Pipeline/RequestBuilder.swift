import Foundation
import HTTPTypes

/// A built request body: bytes in memory, or a stream (a file read afresh for each attempt, or a
/// sequence that can be sent once).
enum BuiltBody: Sendable {
    case bytes(Data)
    /// A file, read as it is sent.
    case file(HTTPBody)
    /// The caller's chunks, sent as they come.
    case stream(HTTPBody)
    /// Encoded when sent: its length is measured asynchronously; gzip-compressed as it is read when `gzip`.
    case multipart(MultipartForm, gzip: Bool)

    /// Whether reading the body needs nothing else to run (bytes, a file, a form): a caller's
    /// stream may wait on the caller's own tasks.
    var isSelfContained: Bool {
        if case .stream = self { false } else { true }
    }

    /// The body as the chain and the transport take it.
    func httpBody() async throws -> HTTPBody {
        switch self {
        case .bytes(let data): HTTPBody(data)
        case .file(let body), .stream(let body): body
        case .multipart(let form, let gzip): gzip ? Gzip.compress(try await form.body()) : try await form.body()
        }
    }
}

extension Client {
    /// Encodes a call's endpoint into its HTTP request and body (pure; throws
    /// ``CourierError/Kind/invalidRequest`` on bad input, before any I/O).
    ///
    /// Order of precedence: the client's default headers, then the endpoint's (same name replaces);
    /// the client's common query items, then the endpoint's query and method-placed parameters.
    /// Without `clientDefaults`, the request is the endpoint's alone (a request built to be sent later
    /// gets the client's defaults of the day it is sent).
    @discardableResult
    func build(_ call: inout EndpointCall, clientDefaults: Bool = true) throws(CourierError) -> HTTPRequest {
        let path = call.path
        if let problem = path.problem { throw invalid(call, problem) }
        guard path.encoded.isEmpty || path.encoded.hasPrefix("/") else {
            throw invalid(call, "the path '\(path.encoded)' must start with '/'")
        }

        let method = call.method
        var queryItems = clientDefaults ? configuration.commonQuery : []
        var body: BuiltBody?
        var contentType: String?
        do {
            let endpointQuery = call.query.isEmpty ? [] : try call.query.queryItems(using: configuration.parameterEncoder)
            // Most clients have no common query: take the endpoint's array instead of copying it.
            if queryItems.isEmpty { queryItems = endpointQuery } else { queryItems += endpointQuery }
            if let explicit = call.body {
                (body, contentType) = try encode(explicit)
            }
            if !call.parameters.isEmpty {
                if method.placesParametersInQuery {
                    queryItems += try call.parameters.queryItems(using: configuration.parameterEncoder)
                } else if body == nil {
                    (body, contentType) = try encode(.json(parameters: call.parameters))
                } else {
                    throw ParameterEncodingError(description: "an endpoint with a body cannot also place `parameters` in it; use `query`")
                }
            }
        } catch let error as CourierError {
            throw error
        } catch {
            throw invalid(call, "could not encode the parameters or body: \(error)", underlying: error)
        }

        var target = path.encoded.isEmpty ? "/" : path.encoded
        if !queryItems.isEmpty { target += "?" + encodeQuery(queryItems) }
        if let linked = call.target { target = linked }

        var fields = clientDefaults ? configuration.defaultHeaders : HTTPFields()
        let endpointFields = call.headers
        if !endpointFields.isEmpty {
            for name in Set(endpointFields.map(\.name)) { fields[values: name] = [] }
            fields.append(contentsOf: endpointFields)
        }
        if let contentType, fields[.contentType] == nil { fields[.contentType] = contentType }
        if call.body?.isGzipped == true { fields[.contentEncoding] = "gzip" }

        let request = HTTPRequest(method: method, scheme: nil, authority: nil, path: target, headerFields: fields)
        (call.request, call.requestBody) = (request, body)
        return request
    }

    private func encode(_ body: RequestBody) throws -> (BuiltBody, String) {
        let (built, contentType) = try encodeContent(of: body)
        guard body.isGzipped else { return (built, contentType) }
        switch built {
        case .bytes(let data): return (.bytes(try Gzip.compress(data)), contentType)
        case .file(let file): return (.file(Gzip.compress(file)), contentType)
        case .stream(let stream): return (.stream(Gzip.compress(stream)), contentType)
        case .multipart(let form, _): return (.multipart(form, gzip: true), contentType)
        }
    }

    private func encodeContent(of body: RequestBody) throws -> (BuiltBody, String) {
        switch body.content {
        case .json(let value):
            return (.bytes(try configuration.encoder.encode(value)), configuration.encoder.contentType)
        case .parameters(let parameters):
            return (.bytes(try parameters.jsonBody(using: configuration.encoder)), configuration.encoder.contentType)
        case .form(let parameters):
            let items = try parameters.queryItems(using: configuration.parameterEncoder)
            return (.bytes(Data(encodeQuery(items).utf8)), "application/x-www-form-urlencoded")
        case .data(let data, let contentType):
            return (.bytes(data), contentType)
        case .file(let file, let contentType):
            return (.file(try FileChunks.body(for: file)), contentType)
        case .stream(let body, let contentType):
            return (.stream(body), contentType)
        case .multipart(let form):
            return (.multipart(form, gzip: false), form.contentType)
        }
    }

    private func invalid(_ call: EndpointCall, _ detail: String, underlying: (any Error)? = nil) -> CourierError {
        var error = CourierError(.invalidRequest, detail: detail, underlying: underlying)
        error.endpoint = call.name
        return error
    }
}

extension Client {
    /// The path and query an endpoint is sent to, relative to ``baseURL`` (for the cache's keys).
    package func requestPath(for endpoint: some Endpoint) throws(CourierError) -> String {
        var call = EndpointCall(endpoint, cachePolicy: nil, otherwise: configuration.cachePolicy)
        return try build(&call).path ?? "/"
    }
}
