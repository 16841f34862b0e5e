import Foundation

extension Client {
    /// The path and query, relative to the base URL, of a link found in the response to `path`.
    ///
    /// - Throws: ``CourierError/Kind/pagination`` when the link is not a URL, leads to another origin,
    ///   or leaves the base URL's path.
    func linkedTarget(_ link: String, from path: String, endpoint: String) throws(CourierError) -> String {
        func refused(_ reason: String) -> CourierError {
            var error = CourierError(.pagination, detail: "the next page's link \(configuration.redaction.redact(text: link)) \(reason)")
            error.endpoint = endpoint
            return error
        }
        guard let request = URL(string: baseURL.absoluteString(appendingRequestPath: path)),
              let resolved = URL(string: link, relativeTo: request)?.absoluteURL,
              let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        else { throw refused("is not a URL") }
        guard let origin = Origin(resolved), origin == Origin(baseURL) else {
            throw refused("leads to another origin than \(baseURL.absoluteString(appendingRequestPath: nil)): credentials are not sent there")
        }
        var basePath = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        while basePath.hasSuffix("/") { basePath.removeLast() }
        // Checked as the server will read it: `%2e%2e`, `/./` and `..%2F` can't climb out of the base path.
        let linked = NormalizedTarget(path: components.percentEncodedPath, query: components.percentEncodedQuery)
        guard linked.path.hasPrefix(basePath + "/"), !linked.hasEncodedDotSegment else {
            throw refused("leads outside the client's base URL")
        }
        return String(linked.target.dropFirst(basePath.count))
    }

    /// The pages of a collection that links each page to the next with `Link: <…>; rel="next"`
    /// (RFC 8288), fetched one at a time as they are read.
    ///
    /// A relative link is resolved against the page's URL. A link to another origin or outside the
    /// base URL, one back to a page already fetched (however its URL is spelled), or a walk longer
    /// than `maximumPages` ends with ``CourierError/Kind/pagination``.
    ///
    /// ```swift
    /// for try await page in client.pages(for: Repositories(user: "apple")) {
    ///     show(page.value)
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: The first page; later pages keep its method, headers and decoding.
    ///   - cachePolicy: The cache policy of every page, overriding the endpoint's.
    ///   - maximumPages: How many pages the walk may fetch, empty ones included (1,000 unless given); nil for no limit.
    /// - Returns: The pages, none fetched yet.
    public func pages<E: Endpoint>(
        for endpoint: E, cachePolicy: CachePolicy? = nil, maximumPages: Int? = 1_000
    ) -> Pages<E> {
        Pages(client: self, first: endpoint, cachePolicy: cachePolicy, maximumPages: maximumPages, rule: .links)
    }

    /// The pages of a collection whose endpoint finds its own next page (a cursor or an offset in the
    /// body; see ``PaginatedEndpoint``), fetched one at a time as they are read.
    ///
    /// A next endpoint whose GET request was already sent, or a walk longer than `maximumPages`,
    /// ends with ``CourierError/Kind/pagination``.
    /// - Parameters:
    ///   - endpoint: The first page.
    ///   - cachePolicy: The cache policy of every page, overriding the endpoint's.
    ///   - maximumPages: How many pages the walk may fetch, empty ones included (1,000 unless given); nil for no limit.
    /// - Returns: The pages, none fetched yet.
    public func pages<E: PaginatedEndpoint>(
        for endpoint: E, cachePolicy: CachePolicy? = nil, maximumPages: Int? = 1_000
    ) -> Pages<E> {
        Pages(
            client: self, first: endpoint, cachePolicy: cachePolicy, maximumPages: maximumPages,
            rule: .next { endpoint, page in endpoint.nextPage(after: page) })
    }
}
