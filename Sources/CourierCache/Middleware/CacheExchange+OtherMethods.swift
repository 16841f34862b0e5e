import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CacheExchange {
    /// After a request other than GET went to the network: what its response does to the storage.
    ///
    /// A successful unsafe request invalidates its URL; a `HEAD` answer updates or removes the
    /// stored GET responses it stands for; a `POST` answer that names its own URL as
    /// `Content-Location`, with explicit freshness, is then stored for later GETs when `mayStore`.
    func afterOtherMethod(_ answer: Answer, requestTime: Date, mayStore: Bool) async throws -> Answer {
        let response = answer.response
        await invalidateAfter(response)
        if request.method == .head { await updateAfterHead(response, requestTime: requestTime) }
        if mayStore, let url = URL(string: key.url), rules.isStorableForGET(afterPost: request, response: response, url: url),
           let selection = rules.varySelection(response: response, request: request) {
            return answer.replacing(with: try await store(
                response, answer.body, selection: selection, requestTime: requestTime, sent: answer.credentials))
        }
        return answer
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

    /// After a successful unsafe request, the stored entries of its URL (and Location targets) go.
    func invalidateAfter(_ response: HTTPResponse) async {
        guard rules.invalidates(method: request.method, status: response.status) else { return }
        var urls = [key.url]
        if let absolute = URL(string: key.url) {
            let full = HTTPRequest(method: request.method, scheme: absolute.scheme, authority: absolute.host.map { host in
                absolute.port.map { "\(host):\($0)" } ?? host
            }, path: request.path, headerFields: request.headerFields)
            urls += rules.invalidationTargets(request: full, response: response).map { keyURL(of: $0) }
        }
        // Removals follow the stores accepted before them, of whatever key.
        await cache.coordination.writes.waitForAll()
        for url in Set(urls) {
            _ = try? await storage.removeAll(.url(url, partition: key.partition))
        }
    }

    /// A URL as this exchange's keys hold it: normalized, secret query values as their keyed hashes.
    private func keyURL(of url: URL) -> String {
        let normalized = CacheKey.normalizedURL(url)
        return rules.secrets?.keyURL(normalized) ?? normalized
    }
}
