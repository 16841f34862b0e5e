import Foundation

@_spi(Benchmarks)
extension CacheStore {
    /// Whether a response to a GET of `normalizedURL` is stored (shared partition), read as a
    /// cache hit reads it: the benchmark measures the store's own lookup with it.
    public func hasStoredResponse(forGET normalizedURL: String) async throws -> Bool {
        try await lookup(CacheKey(method: "GET", normalizedURL: normalizedURL), select: { $0.last }) != nil
    }
}
