import OpenAPIRuntime

/// A transport that enforces the call's timeout itself, for the whole exchange.
///
/// A conforming transport fails with ``CourierError/Kind/timedOut`` once
/// ``RequestContext/timeout`` of ``RequestContext/current`` has passed since `send` was called,
/// whether the head or the body is late, and it honours task cancellation. The client then skips
/// its own timer, a task group with two child tasks per attempt, which costs more CPU than the rest
/// of the client together and, on Linux, holds each cancelled sleep's memory until its deadline.
///
/// Both of Courier's transports conform; any other transport gets the client's timer.
public protocol DeadlineEnforcingTransport: ClientTransport {}
