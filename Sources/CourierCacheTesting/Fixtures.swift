import CourierCache
import Foundation
import HTTPTypes

/// The keys, responses and bodies the conformance checks store.
enum Fixtures {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// A key for `https://api.example.com/<path>`.
    static func key(_ path: String = "items?page=1", method: String = "GET", partition: String = "") -> CacheKey {
        CacheKey(method: method, normalizedURL: "https://api.example.com/\(path)", partition: partition)
    }

    /// Header fields from name/value pairs, in order, duplicates kept.
    static func fields(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return fields
    }

    /// Typical stored headers, with a repeated field to check that order and duplicates survive.
    static let headers = fields([
        ("Content-Type", "application/octet-stream"), ("Cache-Control", "max-age=60"), ("ETag", "\"abc\""),
        ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
    ])

    /// `count` bytes from a xorshift generator, with NUL bytes at the start and in the middle.
    static func body(_ count: Int) -> Data {
        var state = UInt64.random(in: 1 ... .max)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: state >> (offset * 8)) }
        }
        if count > 2 { bytes[0] = 0; bytes[count / 2] = 0 }
        return Data(bytes)
    }

    /// A `200` to store under `key`, requested at ``t0`` and received half a second later.
    static func response(_ key: CacheKey, vary: VarySelection = .none, headers: HTTPFields = headers) -> VariantToStore {
        VariantToStore(
            key: key, varySelection: vary, status: 200, headers: headers, requestTime: t0, responseTime: t0.addingTimeInterval(0.5))
    }

    /// Stores `body` under `key`; the stored variant, nil when the storage refused it.
    @discardableResult
    static func put(
        _ storage: any CacheStorage, _ key: CacheKey, body: Data, vary: VarySelection = .none, headers: HTTPFields = headers
    ) async throws -> VariantMetadata? {
        try await storage.store(response(key, vary: vary, headers: headers), body: .bytes(body)).stored
    }

    /// The same variant, last used at `date` (what `HTTPCache` passes to `recordUse`).
    static func used(_ variant: VariantMetadata, at date: Date) -> VariantMetadata {
        VariantMetadata(
            id: variant.id, key: variant.key, varySelection: variant.varySelection, status: variant.status, headers: variant.headers,
            requestTime: variant.requestTime, responseTime: variant.responseTime, bodySize: variant.bodySize,
            storedAt: variant.storedAt, lastAccess: date)
    }
}
