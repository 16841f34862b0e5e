import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends identical GETs that are in flight at the same time once, and gives every caller the answer.
///
/// Two screens that load the same feed at once make one request. A ``Client`` puts this middleware
/// first in its chain unless ``Client/Configuration/coalescesIdenticalRequests`` is off.
///
/// Requests are identical when their method, path, query and header fields are, and (in a
/// ``Client``) their cache policy, timeout and the user they are made for. The first caller's
/// request runs in its own task, so a call nobody joins costs no more than without the middleware
/// (its answer is not even read here). A caller that cancels stops waiting at once; when the first
/// one cancels, its request ends with it and the callers still waiting share a new one.
///
/// An answer that others wait for is read into memory to be shared, within the call's size limit
/// (``maximumBodySize`` outside a ``Client``). Not shared, each caller sending its own request:
/// bodies of unknown or larger size outside a ``Client``, transfers, ``CachePolicy/withoutCache``
/// calls, and a request to which a middleware further down added credentials when who the call is
/// for isn't known.
package struct CoalescingMiddleware: CourierMiddleware {
    /// The largest body shared outside a ``Client`` (a ``Client`` uses its own limit).
    package let maximumBodySize: Int
    private let telemetry: Telemetry?
    private let calls = SharedCalls()

    /// Creates the middleware.
    /// - Parameters:
    ///   - maximumBodySize: The largest response body shared outside a ``Client``, in bytes.
    ///   - telemetry: Where the count of joined calls goes; nil uses the call's (or none).
    package init(maximumBodySize: Int = 8 << 20, telemetry: Telemetry? = nil) {
        self.maximumBodySize = maximumBodySize
        self.telemetry = telemetry
    }

    /// Joins an identical GET in flight, or sends this one and shares its answer.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        let described = context.described
        guard let key = Key(request, body: body, baseURL: baseURL, context: described) else {
            return try await next(request, body, baseURL, context)
        }
        var joined = false
        while true {
            let (call, isLeader) = calls.enter(key)
            if isLeader {
                return try await lead(call, key: key, request, body: body, baseURL: baseURL, context: context, next: next)
            }
            if !joined {
                Telemetry.chosen(telemetry, in: described).count(MetricName.coalescedRequests, [("courier.operation", context.endpoint)])
            }
            joined = true
            switch try await call.outcome() {
            case .response(let shared):
                return Answer(response: shared.head, whole: shared.body, source: shared.source, attempts: shared.attempts)
            case .sendYourOwn:
                return try await next(request, body, baseURL, context)
            case .askAgain:
                continue
            }
        }
    }

    /// Sends the request, in the leader's own task, for every caller that joins `call` before the
    /// answer comes; with nobody joined, the answer is handed back unread.
    private func lead(
        _ call: SharedCall, key: Key, _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        do {
            let answer = try await next(request, body, baseURL, context)
            if call.closeIfAlone() {
                calls.remove(key, call)
                return answer
            }
            // Not a user's call: credentials or secrets added down the chain make the answer
            // private, and so does a chain below that can't say what left (a generated client's
            // transport that is not Courier's) unless who is signed in is known.
            let isPrivate = switch key.identity {
            case .user: false
            case .anonymous: answer.credentials == .present
            case .unknown: answer.credentials != .absent
            }
            guard !isPrivate, let limit = context.described?.facts.maximumBodySize ?? sharingLimit(answer.body) else {
                calls.remove(key, call)
                call.finish(.success(.sendYourOwn))
                return answer
            }
            let data = try await collectResponseBody(of: answer, limit: limit)
            let shared = SharedResponse(head: answer.response, body: data, source: answer.source, attempts: answer.attempts)
            calls.remove(key, call)
            call.finish(.success(.response(shared)))
            var read = answer
            read.whole = data
            return read
        } catch {
            calls.remove(key, call)
            // A cancelled leader's request ended with it: the callers still waiting share a new one.
            call.finish(Task.isCancelled ? .success(.askAgain) : .failure(error))
            throw error
        }
    }

    /// The limit under which a body of known length is shared outside a ``Client``; nil otherwise.
    private func sharingLimit(_ body: HTTPBody?) -> Int? {
        guard let body else { return 0 }
        guard case .known(let length) = body.length, length <= maximumBodySize else { return nil }
        return Int(length)
    }
}

extension CoalescingMiddleware {
    /// What makes two calls identical: the request head and base URL, plus how the call treats
    /// caches and credentials.
    struct Key: Hashable, Sendable {
        let head: HTTPRequest
        let baseURL: URL
        let policy: CachePolicy?
        let identity: CallIdentity
        let requiresAuthentication: Bool
        let timeout: Duration?
        /// Hashed once, from the path alone: calls in flight at once rarely share a path, and
        /// equality still compares everything. (Hashing every header field cost more than the rest of the key.)
        private let hash: Int

        /// The key of a call that may be shared, or nil: only GETs without a body, and in a
        /// ``Client`` neither transfers nor ``CachePolicy/withoutCache`` calls.
        init?(_ head: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext?) {
            guard head.method == .get, body == nil else { return nil }
            if let context, context.facts.isTransfer || context.cachePolicy.mode == .withoutCache { return nil }
            self.head = head
            self.baseURL = baseURL
            policy = context?.cachePolicy
            identity = context?.facts.identity ?? .unknown
            requiresAuthentication = context?.requiresAuthentication ?? true
            timeout = context?.timeout
            hash = head.path.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.head == rhs.head && lhs.baseURL == rhs.baseURL && lhs.policy == rhs.policy
                && lhs.identity == rhs.identity && lhs.requiresAuthentication == rhs.requiresAuthentication && lhs.timeout == rhs.timeout
        }
    }
}
