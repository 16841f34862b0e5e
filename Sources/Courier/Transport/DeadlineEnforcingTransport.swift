import OpenAPIRuntime

/// A transport that enforces the call's timeout itself, for the whole exchange.
///
/// A conforming transport fails with ``CourierError/Kind/timedOut`` once
/// ``RequestContext/timeout`` of ``RequestContext/current`` has passed since `send` was called,
/// whether the head or the body is late, and it honours task cancellation. The client then skips its
/// own timer (a task group with two child tasks per attempt, about 15 µs of CPU) for calls that carry
/// a request context.
///
/// Conform only when the deadline really covers the body: AsyncHTTPClient's `execute(_:deadline:)`
/// bounds the head but lets a slow body stream past it, so ``AsyncHTTPClientTransport`` does not.
public protocol DeadlineEnforcingTransport: ClientTransport {}
