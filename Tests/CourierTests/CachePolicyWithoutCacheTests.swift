import Courier
import CourierTesting
import Foundation
import Testing

/// What the cache policies do in a client without a cache in its chain.
@Suite struct CachePolicyWithoutCacheTests {
    @Test(arguments: [CachePolicy.followHTTP, .networkOnly, .networkFirst, .alwaysUseCache, .useCacheAndRequest])
    func aPolicyThatMayUseTheNetworkGoesThere(policy: CachePolicy) async throws {
        let (client, transport) = stubClient(body: #"{"id":1,"title":"a"}"#)
        #expect(try await client.send(TestEndpoint<Item>(), cachePolicy: policy) == Item(id: 1, title: "a"))
        #expect(transport.requests.count == 1)
    }

    /// Only the cache may answer, and there is none: the call fails as a miss would, offline.
    @Test func cacheOnlyFailsAsAMissWithoutTheNetwork() async throws {
        let (client, transport) = stubClient(body: #"{"id":1,"title":"a"}"#)
        let error = await #expect(throws: CourierError.self) {
            try await client.send(TestEndpoint<Item>(), cachePolicy: .cacheOnly)
        }
        #expect(error?.status == 504)
        #expect(transport.requests.isEmpty)
    }

    /// A POST is never answered from a cache: its policy can't keep it off the network.
    @Test func cacheOnlyDoesNotHoldBackAPost() async throws {
        let (client, transport) = stubClient(body: #"{"id":1,"title":"a"}"#)
        var endpoint = TestEndpoint<Item>()
        endpoint.method = .post
        _ = try await client.send(endpoint, cachePolicy: .cacheOnly)
        #expect(transport.requests.count == 1)
    }

    /// Cache then network, with no cache: the one network value, one request.
    @Test(arguments: [CachePolicy.useCacheAndRequest, .useCacheAndRequestWithoutRecache])
    func updatesYieldTheNetworkValueOnce(policy: CachePolicy) async throws {
        let (client, transport) = stubClient(body: #"{"id":1,"title":"a"}"#)
        var values: [Item] = []
        for try await update in client.updates(for: TestEndpoint<Item>(), cachePolicy: policy) { values.append(update.value) }
        #expect(values == [Item(id: 1, title: "a")])
        #expect(transport.requests.count == 1)
    }
}
