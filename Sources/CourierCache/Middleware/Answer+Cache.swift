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
    /// This answer with `served`'s response and body (the stored body, a slice of it, the body as
    /// stored), its own facts kept: where it came from unless `source` says, attempts, credentials.
    func replacing(with served: Answer, source: ResponseSource? = nil) -> Answer {
        var answer = served
        answer.source = source ?? self.source
        answer.attempts = attempts
        answer.credentials = credentials
        answer.notRetriedBecause = notRetriedBecause
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
