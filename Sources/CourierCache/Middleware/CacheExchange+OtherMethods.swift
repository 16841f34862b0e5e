import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CacheExchange {
    /// After a request other than GET went to the network: what its response does to the storage.
    ///
    /// A successful unsafe request invalidates its URL; a `HEAD` answer updates or removes the
    /// stored GET responses it stands for; a `POST` answer that names its own URL as
    /// `Content-Location`, with explicit freshness, is then stored for later GETs when `mayStore`.
    func afterOtherMethod(
        _ response: HTTPResponse, _ body: HTTPBody?, requestTime: Date, mayStore: Bool
    ) async throws -> (HTTPResponse, HTTPBody?) {
        await invalidateAfter(response)
        if request.method == .head { await updateAfterHead(response, requestTime: requestTime) }
        if mayStore, let url = URL(string: key.url), rules.isStorableForGET(afterPost: request, response: response, url: url),
           let selection = rules.varySelection(response: response, request: request) {
            return try await store(response, body, selection: selection, requestTime: requestTime)
        }
        return (response, body)
    }

    /// Applies ``CacheRules/outcome(ofHead:for:storedBodySize:)`` to every stored variant the HEAD
    /// request would have selected (RFC 9111 §4.3.5); best effort, like every cache write.
    private func updateAfterHead(_ response: HTTPResponse, requestTime: Date) async {
        await cache.coordination.writes.wait(for: key)
        guard let variants = try? await storage.variants(for: key) else { return }
        for variant in variants where rules.varyMatches(variant.storedResponse, request: request) {
            switch rules.outcome(ofHead: response, for: variant.storedResponse, storedBodySize: variant.bodySize) {
            case .keep:
                continue
            case .update(let fields):
                _ = try? await storage.updateHeaders(of: variant, headers: fields, requestTime: requestTime, responseTime: cache.clock)
            case .invalidate:
                _ = try? await storage.remove(variant)
            }
        }
    }
}
