import Foundation
import HTTPTypes

/// What Courier's steps know of a call beyond what an app reads in its ``RequestContext``: set by
/// the client (``Client/context(of:)``) from the call, or by the bridge in a generated client's
/// chain, and read by every step that needs it.
package struct CallFacts: Sendable {
    /// The largest response body the client accepts; transports that buffer stop reading past it.
    package var maximumBodySize = Int.max
    /// Who the call is made for, known before any middleware runs (the cache partitions by it).
    package var identity = CallIdentity.unknown
    /// The endpoint's path with its values as `{}` (see `EndpointPath.template`): a bounded label.
    package var pathTemplate: String?
    /// Where metrics and spans go.
    package var telemetry: Telemetry
    /// Where the response came from and how many attempts it took, as the Courier steps of a
    /// generated client's chain pass it up (its `next` returns a bare response). Copies of a
    /// context share one report: each Courier step gives the steps below it a report of their own,
    /// so calls made at once under one context never share one; ``RequestContext/reporting(_:)`` hands the
    /// caller its call's; nil where nobody will read one (a ``Client``'s call, whose steps answer
    /// with an `Answer`). Part of the bridge to swift-openapi-runtime (`OpenAPIBridge.swift`).
    package var report: RequestContext.Report?
    /// Where a step may start work that outlives the call, running `next` again (the cache
    /// revalidates a stale response so). Nil where `next` ends with the call: in a generated
    /// client's chain, and in work already in the background.
    package var background: BackgroundWork?
    /// The client's secret list (see ``Client/Configuration/redaction``), for every step that
    /// describes, stores or forwards the request.
    package var redaction: Redaction
    /// The client's base URL: the call's origin, whatever server a redirect hop goes to (metrics
    /// and spans are labelled by it, so a server can't grow their label sets).
    package var origin: URL?
    /// Whether a middleware set this context only to carry its marks (``RequestContext/isCrossOriginHop``) and
    /// its report down the chain of a generated client's call that had none: the steps that choose
    /// their own defaults outside a Courier client read ``RequestContext/described`` instead (`OpenAPIBridge.swift`).
    package var carriesMarksOnly = false
    /// Where a successful response's body goes: memory to decode, a download's file, or the caller.
    var destination = BodyDestination.memory
    /// Whether the call is a transfer (``Client/download(_:to:resumingFrom:cachePolicy:progress:)``, ``Client/bytes(for:)``):
    /// its body is not gathered, so a transport hands the head over at once, and ``RequestContext/timeout`` is an
    /// idle timeout (no bytes either way for that long), not a deadline for the whole response.
    package var isTransfer: Bool { destination.isTransfer }
    /// The file a download writes: each attempt's successful body goes there as it arrives (so a
    /// retry can resume it), not up the chain.
    package var download: FileDownload? {
        if case .file(let download) = destination { download } else { nil }
    }
    /// Whether the request body needs nothing else to run to be read (bytes, a file, a form), so a
    /// transport may read it on a thread of its own (see ``URLSessionTransport``).
    package var requestBodyIsSelfContained = true
    /// Whether the call's write is delivered only to its origin, never sent again as a GET (an
    /// outbox's): a redirect is followed only where it delivers that same write to the same
    /// origin, and a `303` says it was taken (see ``RedirectMiddleware``).
    package var deliversOnlyToOrigin = false

    /// The facts of a call outside a ``Client`` (a generated client's): no telemetry backends of
    /// its own, the default secret list.
    package init() {
        self.init(telemetry: Telemetry(), redaction: Redaction())
    }

    /// The facts of a ``Client``'s call, with the client's telemetry and secret list (the other
    /// facts start at their defaults, and the client sets them from the call).
    package init(telemetry: Telemetry, redaction: Redaction) {
        self.telemetry = telemetry
        self.redaction = redaction
    }
}
