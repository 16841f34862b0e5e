import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension StoredVariant {
    /// The body, read now when the lookup left it in the storage; nil when the variant is gone.
    func loadBody(from storage: ObservedStorage) async throws -> Data? {
        if let body { return body }
        return try await storage.body(of: metadata)
    }
}

extension Answer {
    /// The cache's answer from a stored response: no transport call.
    init(stored: (HTTPResponse, HTTPBody?), source: ResponseSource) {
        self.init(response: stored.0, body: stored.1, source: source, attempts: 0)
    }

    /// This answer with another response and body (the stored body, a slice of it), its facts kept.
    func replacing(with served: (HTTPResponse, HTTPBody?), source: ResponseSource? = nil) -> Answer {
        var answer = self
        (answer.response, answer.body) = served
        answer.source = source ?? self.source
        return answer
    }

    /// This answer after `earlier` in one exchange: their transport calls add up, and either
    /// leaving with credentials counts.
    func after(_ earlier: Answer) -> Answer {
        var answer = self
        answer.attempts += earlier.attempts
        answer.credentials = credentials.and(earlier.credentials)
        return answer
    }
}

/// Where and how an exchange revalidates a stale response after its caller has the answer.
struct BackgroundRefresh: Sendable {
    /// The client's background work, which the refresh runs in.
    let work: BackgroundWork
    /// The chain below the cache, with a context of the background's own.
    let network: CacheExchange.Network
}
