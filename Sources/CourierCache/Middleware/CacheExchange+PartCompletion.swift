import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CacheExchange {
    /// A request a stored part holds some of the bytes for: only the bytes it lacks are asked for
    /// (RFC 9111 §3.4), combined with the part, and the answer is cut from the result; nil when no
    /// stored part qualifies (see ``CacheRules/completion(for:among:limit:)``), or the result would
    /// exceed what the call may gather or the store may keep.
    ///
    /// A `200` (the representation changed, `If-Range` failed) answers the caller as it is and is
    /// stored as usual; a part that doesn't complete the stored one, or a `416`, sends the caller's
    /// own request instead.
    func completingPart(among variants: [VariantMetadata], _ network: Network) async throws -> Answer? {
        guard !isTransfer,
              let (index, ranged) = rules.completion(for: request, among: variants.map(\.storedResponse), limit: min(bodyLimit, storage.maximumSize))
        else { return nil }
        let requestTime = cache.clock
        let part = try await network(ranged)
        let response = part.response
        guard response.status == .partialContent else {
            if response.status == .rangeNotSatisfiable { return try await followHTTPNetwork(network, request: request, hit: nil).after(part) }
            return try await storeIfAllowed(part, requestTime: requestTime, explicitPolicy: false)
        }
        let selection = variants[index].varySelection
        guard rules.isStorable(request: ranged, response: response),
              rules.varySelection(response: response, request: request) == selection
        else { return try await followHTTPNetwork(network, request: request, hit: nil).after(part) }
        _ = try await storePart(response, part.body, selection: selection, requestTime: requestTime, sent: part.credentials)
        guard let hit = try await lookup().hit,
              let answer = rules.storedAnswer(for: request, from: hit.metadata.response, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, rules.servedResponse(for: hit.metadata.storedResponse, now: cache.clock), hit)
        else { return try await followHTTPNetwork(network, request: request, hit: nil).after(part) }
        // The bytes it lacked came from the network: not a cache hit.
        return part.replacing(with: served)
    }
}
