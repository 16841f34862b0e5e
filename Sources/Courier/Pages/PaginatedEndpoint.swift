/// An endpoint that knows its own next page from the page it got: a cursor or an offset in the body.
///
/// `client.pages(for:)` walks such an endpoint with this rule
/// instead of following `Link` header fields.
///
/// ```swift
/// struct Feed: PaginatedEndpoint {
///     typealias Response = FeedPage          // { "items": [...], "nextCursor": "..." }
///     var cursor: String?
///     var path: EndpointPath { "/feed" }
///     var query: Parameters { ["cursor": cursor] }
///     func nextPage(after page: FeedPage) -> Feed? {
///         page.nextCursor.map { Feed(cursor: $0) }
///     }
/// }
/// ```
public protocol PaginatedEndpoint: Endpoint {
    /// The endpoint for the page after `page`, or nil when `page` is the last.
    func nextPage(after page: Response) -> Self?
}
