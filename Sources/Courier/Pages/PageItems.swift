/// The items of every page of a collection, one at a time: an `AsyncSequence` that fetches the next
/// page only when the items of the last one have been read.
public struct PageItems<E: Endpoint>: AsyncSequence, Sendable
where E.Response: Sequence, E.Response.Element: Sendable {
    /// One item of a page.
    public typealias Element = E.Response.Element
    /// Every failure is a ``CourierError``.
    public typealias Failure = CourierError

    let pages: Pages<E>

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: pages.makeAsyncIterator())
    }

    /// Reads a page's items, then fetches the next page.
    public struct Iterator: AsyncIteratorProtocol {
        private var pages: Pages<E>.Iterator
        private var items: E.Response.Iterator?

        init(pages: Pages<E>.Iterator) {
            self.pages = pages
        }

        /// The next item, or nil after the last page's last item.
        /// - Throws: ``CourierError`` when a page fails; see ``Pages``.
        public mutating func next() async throws(CourierError) -> E.Response.Element? {
            while true {
                if let item = items?.next() { return item }
                guard let page = try await pages.next() else { return nil }
                items = page.value.makeIterator()
            }
        }
    }
}

@available(*, unavailable)
extension PageItems.Iterator: Sendable {}

extension Pages where E.Response: Sequence, E.Response.Element: Sendable {
    /// The items of every page in order, fetching each page only when its items are needed.
    public var items: PageItems<E> { PageItems(pages: self) }
}
