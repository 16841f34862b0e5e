import OpenAPIRuntime

/// A transport that ends each attempt at ``RequestContext/timeout`` itself, head and body alike,
/// so the client adds no timer and no task of its own.
///
/// It adds no method: every transport is a plain `ClientTransport`. A transport without this
/// conformance is bounded by the client, which then reads its response body within the timeout.
/// Both of Courier's transports conform.
public protocol TimeoutEnforcingTransport: ClientTransport {}
