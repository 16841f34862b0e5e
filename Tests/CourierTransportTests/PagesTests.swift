import Courier
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Collections walked page by page, by `Link` header fields or by the endpoint's cursor, over both transports.
@Suite struct PagesTests {
    private struct Cursor: PaginatedEndpoint {
        struct Page: Codable, Sendable { var items: [Item]; var next: String? }
        typealias Response = Page
        var cursor: String?
        var path: EndpointPath { "/feed" }
        var query: Parameters { ["cursor": cursor] }
        func nextPage(after page: Page) -> Cursor? { page.next.map { Cursor(cursor: $0) } }
    }

    private static func items(_ page: Int) -> [Item] {
        [Item(id: page * 10 + 1, title: "a"), Item(id: page * 10 + 2, title: "b")]
    }

    /// Three pages: a relative link among several, then an absolute one whose quoted rel has several types, then none.
    private func routeLinkedPages(_ server: MockServer) {
        let base = server.baseURL.absoluteString
        server.route("GET", "/items") { request in
            switch request.queryValue("page") {
            case nil, "1":
                .json(Self.items(1), headers: [MockHeader("Link", "<\(base)/items?page=1>; rel=first, <items?page=2>; title=\"a, b; c\"; REL=next")])
            case "2":
                .json(Self.items(2), headers: [
                    MockHeader("Link", "<\(base)/items?page=1>; rel=\"prev first\""),
                    MockHeader("Link", "<\(base)/items?page=3>; rel=\"nofollow NEXT\""),
                ])
            default:
                .json(Self.items(3), headers: [MockHeader("Link", "<\(base)/items?page=2>; rel=prev")])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func linkHeadersAreFollowedOnePageAtATime(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            routeLinkedPages(server)
            var pages = client.pages(for: Call<[Item]>(path: "/items")).makeAsyncIterator()
            #expect(server.recordedRequests.isEmpty, "no page is fetched before it is asked for")
            #expect(try await pages.next()?.value == Self.items(1))
            #expect(server.recordedRequests.count == 1, "the next page is fetched only when asked for")
            #expect(try await pages.next()?.value == Self.items(2))
            #expect(try await pages.next()?.value == Self.items(3))
            #expect(try await pages.next() == nil)
            #expect(server.recordedRequests.map(\.target) == ["/items", "/items?page=2", "/items?page=3"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func itemsFlattenThePages(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            routeLinkedPages(server)
            var items: [Item] = []
            for try await item in client.pages(for: Call<[Item]>(path: "/items")).items { items.append(item) }
            #expect(items == Self.items(1) + Self.items(2) + Self.items(3))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCursorEndpointFindsItsOwnNextPage(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/feed") { request in
                switch request.queryValue("cursor") {
                case nil: .json(Cursor.Page(items: Self.items(1), next: "c2"))
                case "c2": .json(Cursor.Page(items: Self.items(2), next: "c3"))
                default: .json(Cursor.Page(items: Self.items(3), next: nil))
                }
            }
            var pages: [[Item]] = []
            for try await page in client.pages(for: Cursor()) { pages.append(page.value.items) }
            #expect(pages == [Self.items(1), Self.items(2), Self.items(3)])
            #expect(server.recordedRequests.map(\.target) == ["/feed", "/feed?cursor=c2", "/feed?cursor=c3"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aPageThatFailsEndsTheWalkWithItsError(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/items") { request in
                request.queryValue("page") == "2"
                    ? .json("{\"message\":\"page 2 is broken\"}", status: 500)
                    : .json(Self.items(1), headers: [MockHeader("Link", "</items?page=2>; rel=\"next\"")])
            }
            var pages = client.pages(for: Call<[Item]>(path: "/items")).makeAsyncIterator()
            #expect(try await pages.next()?.value == Self.items(1))
            let error = await #expect(throws: CourierError.self) { _ = try await pages.next() }
            #expect(error?.status == .internalServerError)
            #expect(error?.serverMessage == "page 2 is broken")
            #expect(try await pages.next() == nil, "the walk ends after an error")
        }
    }

    /// A next link to another origin is refused: the client's credentials must not go there.
    @Test(arguments: TransportKind.allCases)
    func aNextLinkToAnotherOriginIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            let port = try #require(server.baseURL.port)
            let elsewhere = ["http://localhost:\(port)/items?page=2", "https://127.0.0.1:\(port)/items?page=2", "//evil.example/items"]
            for link in elsewhere {
                server.route("GET", "/items", respond: .json(Self.items(1), headers: [MockHeader("Link", "<\(link)>; rel=next")]))
                var pages = client.pages(for: Call<[Item]>(path: "/items")).makeAsyncIterator()
                #expect(try await pages.next()?.value == Self.items(1))
                let error = await #expect(throws: CourierError.self, "\(link)") { _ = try await pages.next() }
                #expect(error?.kind == .pagination)
                #expect(error?.detail.contains("another origin") == true)
            }
            #expect(server.recordedRequests.count == elsewhere.count, "no request followed a link to another origin")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCycleOfNextLinksIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/items") { request in
                request.queryValue("page") == "2"
                    ? .json(Self.items(2), headers: [MockHeader("Link", "</items?page=1>; rel=next")])
                    : .json(Self.items(1), headers: [MockHeader("Link", "</items?page=2>; rel=next")])
            }
            var count = 0
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.pages(for: Call<[Item]>(path: "/items", parameters: ["page": 1])) { count += 1 }
            }
            #expect(error?.kind == .pagination)
            #expect(error?.detail.contains("cycle") == true)
            #expect(count == 2)
            #expect(server.recordedRequests.count == 2)
        }
    }

    /// Every page empty and linked to one more: the walk ends at its limit, not after 20,000 requests.
    @Test(arguments: TransportKind.allCases)
    func anEndlessWalkOfEmptyPagesStopsAtItsLimit(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            routeEndlessEmptyPages(server)
            var items = 0
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.pages(for: Call<[Item]>(path: "/items"), maximumPages: 25).items { items += 1 }
            }
            #expect(error?.kind == .pagination)
            #expect(error?.detail.contains("limit of 25 pages") == true)
            #expect(items == 0)
            #expect(server.recordedRequests.count == 25)
        }
    }

    /// Without a limit given, a walk still ends: at 1,000 pages.
    @Test func theDefaultLimitEndsAWalkThatNeverEnds() async throws {
        try await withServer(.asyncHTTPClient) { (server, client) async throws in
            routeEndlessEmptyPages(server)
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.pages(for: Call<[Item]>(path: "/items")).items {}
            }
            #expect(error?.kind == .pagination)
            #expect(server.recordedRequests.count == 1_000)
        }
    }

    private func routeEndlessEmptyPages(_ server: MockServer) {
        server.route("GET", "/items") { request in
            let page = Int(request.queryValue("page") ?? "1") ?? 1
            return .json([Item](), headers: [MockHeader("Link", "</items?page=\(page + 1)>; rel=next")])
        }
    }

    /// A link back to a page already fetched is a cycle however its URL is spelled.
    @Test(arguments: TransportKind.allCases)
    func aCycleSpelledAnotherWayIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            let spellings = ["/items?page=%31", "/./items?page=1", "/items/../items?page=1", "/%69tems?page=1&", "/items?page=1&&"]
            for spelling in spellings {
                server.resetRecords()
                server.route("GET", "/items") { request in
                    request.queryValue("page") == "2"
                        ? .json(Self.items(2), headers: [MockHeader("Link", "<\(spelling)>; rel=next")])
                        : .json(Self.items(1), headers: [MockHeader("Link", "</items?page=2>; rel=next")])
                }
                var count = 0
                let error = await #expect(throws: CourierError.self, "\(spelling)") {
                    for try await _ in client.pages(for: Call<[Item]>(path: "/items", parameters: ["page": 1])) { count += 1 }
                }
                #expect(error?.kind == .pagination, "\(spelling)")
                #expect(error?.detail.contains("cycle") == true, "\(spelling)")
                #expect(server.recordedRequests.count == 2, "\(spelling)")
            }
        }
    }

    /// A link back to a page already fetched with its query items shuffled is a cycle too.
    @Test(arguments: TransportKind.allCases)
    func aCycleWithItsQueryItemsShuffledIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/items") { request in
                request.queryValue("page") == "2"
                    ? .json(Self.items(2), headers: [MockHeader("Link", "</items?size=10&page=2>; rel=next")])
                    : .json(Self.items(1), headers: [MockHeader("Link", "</items?page=2&size=10>; rel=next")])
            }
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.pages(for: Call<[Item]>(path: "/items", parameters: ["page": 1])) {}
            }
            #expect(error?.kind == .pagination && error?.detail.contains("cycle") == true)
            #expect(server.recordedRequests.count == 2)
        }
    }

    /// A next link can't leave the base path by dot segments a server decodes (`%2e%2e`, `..%2F`).
    @Test(arguments: TransportKind.allCases)
    func aLinkThatClimbsOutOfTheBasePathIsRefused(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let client = Client(baseURL: server.baseURL.appendingPathComponent("api"), transport: kind.make()) { $0.timeout = .seconds(300) }
        let links = ["/api/%2e%2e/admin?page=2", "/api/%2E%2E/admin", "/api/.%2e/admin", "/api/..%2Fadmin", "/api/x/..%5C..%5Cadmin", "%2e%2e/admin"]
        for link in links {
            server.route("GET", "/api/items", respond: .json(Self.items(1), headers: [MockHeader("Link", "<\(link)>; rel=next")]))
            var pages = client.pages(for: Call<[Item]>(path: "/items")).makeAsyncIterator()
            #expect(try await pages.next()?.value == Self.items(1))
            let error = await #expect(throws: CourierError.self, "\(link)") { _ = try await pages.next() }
            #expect(error?.kind == .pagination, "\(link)")
            #expect(error?.detail.contains("outside the client's base URL") == true, "\(link)")
        }
        #expect(server.recordedRequests.map(\.path).allSatisfy { $0 == "/api/items" }, "\(server.recordedRequests.map(\.target))")
        #expect(server.recordedRequests.count == links.count)
    }

    @Test(arguments: TransportKind.allCases)
    func aCursorThatComesBackIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/feed") { request in
                .json(Cursor.Page(items: Self.items(1), next: request.queryValue("cursor") == "c2" ? "c3" : "c2"))
            }
            var count = 0
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.pages(for: Cursor()) { count += 1 }
            }
            #expect(error?.kind == .pagination)
            #expect(count == 3)
        }
    }

    /// Each page is a call of its own under the cache policy: a second walk is answered from the cache.
    @Test(arguments: TransportKind.allCases)
    func theCachePolicyAppliesToEveryPage(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pages-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = HTTPCache(storage: try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 8 << 20))
        try await withServer { server in
            server.route("GET", "/items") { request in
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                var headers = [MockHeader("Cache-Control", "max-age=600")]
                if page < 3 { headers.append(MockHeader("Link", "</items?page=\(page + 1)>; rel=next")) }
                return .json(Self.items(page), headers: headers)
            }
            let client = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [cache]) { $0.timeout = .seconds(300) }
            var first: [ResponseSource] = []
            for try await page in client.pages(for: Call<[Item]>(path: "/items"), cachePolicy: .followHTTP) { first.append(page.source) }
            await cache.flush()
            var second: [Item] = []
            var sources: [ResponseSource] = []
            for try await page in client.pages(for: Call<[Item]>(path: "/items"), cachePolicy: .followHTTP) {
                second += page.value
                sources.append(page.source)
            }
            #expect(first.count == 3)
            #expect(second == Self.items(1) + Self.items(2) + Self.items(3))
            #expect(server.recordedRequests.count == 3, "the second walk came from the cache: \(sources)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheWalkStopsIt(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind) { (server, client) async throws in
            server.route("GET", "/items") { request in
                if request.queryValue("page") == "2" { await rest.wait() }
                return .json(Self.items(1), headers: [MockHeader("Link", "</items?page=2>; rel=next")])
            }
            let received = Level()
            let walk = Task {
                for try await _ in client.pages(for: Call<[Item]>(path: "/items")) { received.raise(to: 1) }
            }
            await received.wait(until: 1)
            #expect(await server.waitUntilRequests(2))
            walk.cancel()
            let error = await #expect(throws: CourierError.self) { try await walk.value }
            #expect(error?.kind == .cancelled)
            #expect(server.recordedRequests.count == 2)
        }
    }
}

extension MockServer {
    /// Waits until `count` requests have arrived (polling; generous bound).
    fileprivate func waitUntilRequests(_ count: Int) async -> Bool {
        for _ in 0..<6000 {
            if recordedRequests.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
