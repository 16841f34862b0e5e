import Courier
import Foundation

extension HTTPCache {
    /// The query items of pre-signed URLs: AWS Signature Version 4 (S3 and others), Google Cloud
    /// Storage V4 signing and CloudFront signed URLs. Each signing of the same object differs in
    /// them, so without leaving them out of the key every download would be a miss; left out, the
    /// signatures never reach the cache file either.
    ///
    /// ```swift
    /// var cache = HTTPCache(storage: store)
    /// cache.ignoredQueryItems = HTTPCache.presignedURLQueryItems
    /// ```
    ///
    /// The risk: two signed URLs for the same path share one entry even when they were signed for
    /// different content (another version id is a query item of its own and stays in the key), and a
    /// cached response answers after its signature has expired, as any cached response does.
    public static let presignedURLQueryItems: Set<String> = [
        "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Expires", "X-Amz-Security-Token",
        "X-Amz-SignedHeaders", "X-Amz-Signature",
        "X-Goog-Algorithm", "X-Goog-Credential", "X-Goog-Date", "X-Goog-Expires", "X-Goog-SignedHeaders",
        "X-Goog-Signature",
        "Expires", "Signature", "Key-Pair-Id", "Policy",
    ]

    /// The URL a request is stored under: normalized, without the query items named in `ignored`
    /// (a query left empty goes too), the values of secret query items as their keyed hashes (see
    /// ``redaction``); nil when it is not an http(s) URL.
    func keyURL(_ url: String, ignoring ignored: Set<String>, secrets: SecretValues) -> String? {
        normalizedURL(url, ignoring: ignored).map(secrets.keyURL)
    }

    private func normalizedURL(_ url: String, ignoring ignored: Set<String>) -> String? {
        guard !ignored.isEmpty, url.contains("?"), var components = URLComponents(string: url),
              let items = components.percentEncodedQueryItems
        else { return CacheKey.normalizedURL(string: url) }
        let kept = items.filter { !ignored.contains($0.name.removingPercentEncoding ?? $0.name) }
        guard kept.count < items.count else { return CacheKey.normalizedURL(string: url) }
        components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        return components.string.flatMap(CacheKey.normalizedURL(string:))
    }
}
