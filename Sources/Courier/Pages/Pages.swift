import Foundation
import HTTPTypes

/// The pages of a collection, fetched one at a time as the consumer asks: an `AsyncSequence` of
/// responses.
///
/// Made by `client.pages(for:)`. The next page is requested only when
/// `next()` is called again, so a consumer that stops early fetches nothing more, and cancelling the
/// consuming task ends the walk with ``CourierError/Kind/cancelled``. Every page is a whole call:
/// middlewares, retries and the cache policy apply to each.
///
/// A failed page ends the walk with its error. So does a next page that cannot be followed safely,
/// with ``CourierError/Kind/pagination``: a `Link` to another origin (scheme, host and port) or
/// outside the client's base URL is refused rather than sent the client's credentials, and a link
/// or cursor that leads back to a page already fetched (compared as normalized URLs) is refused
/// rather than followed forever, and a walk stops after 1,000 pages (or the limit given to
/// `pages(for:cachePolicy:maximumPages:)`), empty pages included: more than an app walks in one go,
/// and what a server that links every page to another reaches in about a second. The page that carried
/// such a link is still delivered; the error comes when the page after it is asked for.
public struct Pages<E: Endpoint>: AsyncSequence, Sendable {
    /// One page: the decoded value with its status, headers and source.
    public typealias Element = Response<E.Response>
    /// Every failure is a ``CourierError``.
    public typealias Failure = CourierError

    /// How the next page is found.
    enum Rule: Sendable {
        /// The `Link` header field's `rel="next"`.
        case links
        /// The endpoint's own rule.
        case next(@Sendable (E, E.Response) -> E?)
    }

    let client: Client
    let first: E
    let cachePolicy: CachePolicy?
    /// How many pages may be fetched; nil for no limit.
    let maximumPages: Int?
    let rule: Rule

    /// Creates the iterator; each iterator walks from the first page.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: self)
    }

    /// Fetches one page per call to ``next()``.
    public struct Iterator: AsyncIteratorProtocol {
        private let pages: Pages
        /// The endpoint of the next page and, when a link named it, its path and query.
        private var upcoming: (endpoint: E, target: String?)?
        /// The requests already sent (method, normalized path and query), to refuse a cycle.
        private var seen: Set<String> = []
        /// The pages fetched so far.
        private var fetched = 0
        /// Why the page after the last one cannot be fetched: thrown when it is asked for.
        private var refusal: CourierError?

        init(pages: Pages) {
            self.pages = pages
            upcoming = (pages.first, nil)
        }

        /// The next page, or nil after the last.
        /// - Throws: ``CourierError``: the page's call failed, or its next page cannot be followed
        ///   (``CourierError/Kind/pagination``). The walk ends after an error.
        public mutating func next() async throws(CourierError) -> Response<E.Response>? {
            if let refusal {
                self.refusal = nil
                throw refusal
            }
            guard let (endpoint, target) = upcoming else { return nil }
            upcoming = nil
            let client = pages.client
            if let maximum = pages.maximumPages, fetched >= maximum {
                var error = CourierError(
                    .pagination, detail: "the walk reached its limit of \(maximum) pages with more to come (pass a larger maximumPages if the collection is that long)")
                error.endpoint = endpoint.operationName
                throw error
            }
            fetched += 1
            var call = EndpointCall(endpoint, cachePolicy: pages.cachePolicy, otherwise: client.configuration.cachePolicy)
            call.target = target
            call = try await client.run(call)
            let page = try client.decode(call, for: endpoint).response
            // The path the call was sent to (the linked target, or the endpoint's own), as it built it.
            let path = call.request?.path ?? "/"
            seen.insert(key(call.method, path))
            do {
                upcoming = try following(page, of: endpoint, method: call.method, path: path)
            } catch {
                refusal = error
            }
            return page
        }

        /// The page after `page`, nil after the last.
        /// - Throws: ``CourierError/Kind/pagination`` when it cannot be followed.
        private func following(
            _ page: Response<E.Response>, of endpoint: E, method: HTTPRequest.Method, path: String
        ) throws(CourierError) -> (endpoint: E, target: String?)? {
            let client = pages.client
            switch pages.rule {
            case .links:
                guard let link = LinkHeader(page.head.headerFields).target(of: "next") else { return nil }
                let next = try client.linkedTarget(link, from: path, endpoint: endpoint.operationName)
                guard !seen.contains(key(method, next)) else { throw cycle(endpoint.operationName, next) }
                return (endpoint, next)
            case .next(let rule):
                guard let nextEndpoint = rule(endpoint, page.value) else { return nil }
                // Only a request whose whole input is in its URL can be recognised as one already sent.
                if nextEndpoint.body == nil, nextEndpoint.method == .get || nextEndpoint.method == .head {
                    let nextPath = try client.requestPath(for: nextEndpoint)
                    guard !seen.contains(key(nextEndpoint.method, nextPath)) else {
                        throw cycle(endpoint.operationName, nextPath)
                    }
                }
                return (nextEndpoint, nil)
            }
        }

        private func key(_ method: HTTPRequest.Method, _ path: String) -> String {
            method.rawValue + " " + NormalizedTarget(target: path).targetWithSortedQuery
        }

        private func cycle(_ endpoint: String, _ path: String) -> CourierError {
            var error = CourierError(.pagination, detail: "the next page \(pages.client.configuration.redaction.redact(text: path)) was fetched before: the pages form a cycle")
            error.endpoint = endpoint
            return error
        }
    }
}

@available(*, unavailable)
extension Pages.Iterator: Sendable {}
