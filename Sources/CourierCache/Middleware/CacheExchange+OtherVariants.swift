import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CacheExchange {
    /// A request none of the stored variants of its URL answers, sent with their entity tags
    /// (RFC 9111 §4.3.1); nil when there is no tag to send (the caller then sends it as it is).
    func validatingUnselected(_ variants: [VariantMetadata], _ network: Network) async throws -> Answer? {
        guard !variants.isEmpty, let conditional = rules.conditionalRequest(for: request, unselected: variants.map(\.storedResponse))
        else { return nil }
        return try await followHTTPNetwork(network, request: conditional, hit: nil, unselected: variants)
    }

    /// A `304` to a request that listed the tags of `variants`: the variant it names is freshened and
    /// served, and stored under this request's selection too, so its next call is a plain hit. A
    /// `304` that names none can't answer the caller, who asked unconditionally: it asks again.
    func revalidated(
        unselected variants: [VariantMetadata], by notModified: Answer, requestTime: Date, network: Network
    ) async throws -> Answer {
        guard let index = rules.variantNamed(by: notModified.response, among: variants.map(\.storedResponse)) else {
            return try await followHTTPNetwork(network, request: request, hit: nil).after(notModified)
        }
        let variant = variants[index]
        // Read once for both uses, when the call may gather it; a larger body is served from the store only.
        let body = isTransfer || variant.bodySize > bodyLimit ? nil : try? await storage.body(of: variant)
        let served = try await revalidated(StoredVariant(metadata: variant, body: body), by: notModified, requestTime: requestTime, network: network)
        let head = HTTPResponse(
            status: .init(code: variant.status), headerFields: rules.merge(stored: variant.headers, notModified: notModified.response.headerFields))
        if let body, rules.isStorable(request: request, response: head),
           let selection = rules.varySelection(response: head, request: request), selection != variant.varySelection {
            _ = try? await store(head, HTTPBody(body), selection: selection, requestTime: requestTime, sent: notModified.credentials)
        }
        return served
    }
}
