import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime

extension CacheExchange {
    /// The response for `answer` built from a stored variant's head ready to serve: the whole body,
    /// the slice a `206` carries, or a bodiless `416`; nil when the body is gone.
    func answering(_ answer: StoredAnswer, _ head: HTTPResponse, _ hit: StoredVariant) async throws -> Answer? {
        let response = rules.response(head, answering: answer)
        switch answer {
        case .unsatisfiable, .notModified:
            return Answer(response: response, body: HTTPBody())
        case .whole:
            return try await served(response, hit, offsets: nil)
        case .part(_, let offsets):
            return try await served(response, hit, offsets: offsets)
        }
    }

    /// `response` with the stored body, or its slice at `offsets`; nil when it is gone. Streamed
    /// from the store, never loaded, when the lookup didn't read it and it goes to a transfer or is
    /// larger than the call may gather (the client's edge then fails it as too large after the
    /// limit's bytes); a whole body in memory goes up as it is.
    private func served(_ response: HTTPResponse, _ hit: StoredVariant, offsets: Range<Int>?) async throws -> Answer? {
        if hit.body == nil, isTransfer || hit.metadata.bodySize > bodyLimit {
            let body = try await storage.body(of: hit.metadata, offsets: offsets ?? 0..<hit.metadata.bodySize)
            return body.map { Answer(response: response, body: $0) }
        }
        guard let bytes = try await hit.loadBody(from: storage) else { return nil }
        guard let offsets else { return Answer(response: response, whole: bytes) }
        return Answer(response: response, body: bytes.body(at: offsets))
    }

    /// Stores a `206` as an incomplete response (RFC 9111 §3.3), combined with the stored part of
    /// the same variant when both have the same strong validator (§3.4); returns it with its body collected.
    ///
    /// Nothing larger than the client's body limit or the store's size is assembled in memory: a
    /// combination past that stores the new part alone. A part whose body isn't exactly the bytes
    /// its `Content-Range` announces (a cut response) is not stored.
    func storePart(
        _ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date, sent: SentCredentials
    ) async throws -> Answer {
        // A transfer's part is in its file, or streams to its caller: not gathered here.
        guard mayStore(response, sent: sent), !isTransfer else {
            return Answer(response: response, body: body)
        }
        let bytes = try await collectBody(body, limit: bodyLimit)
        guard let held = CacheRules.heldRange(of: response.headerFields), held.count == Int64(bytes.count) else {
            return Answer(response: response, whole: bytes)
        }
        var status = 206
        var fields = rules.fieldsToStore(response.headerFields)
        var stored = bytes
        await cache.coordination.writes.wait(for: key)
        let existing = try? await storage.variants(for: key).first { $0.varySelection == selection }
        if let existing {
            let limit = min(bodyLimit, storage.maximumSize)
            switch rules.combination(of: response, held: held, with: existing.response, storedBodySize: existing.bodySize, limit: limit) {
            case .replace:
                break
            case .keepStored:
                return Answer(response: response, whole: bytes)
            case .combine(let union):
                if let storedBytes = try? await storage.body(of: existing),
                   let storedHeld = CacheRules.heldRange(of: existing.headers),
                   let combined = Self.assemble(union, (storedHeld, storedBytes), (held, bytes)) {
                    (status, fields) = rules.combinedHead(stored: existing.headers, new: fields, union: union)
                    stored = combined
                }
            }
        }
        await store(
            VariantToStore(
                key: key, varySelection: selection, status: status, headers: fields, requestTime: requestTime, responseTime: cache.clock,
                clearMark: clearMarks.mark),
            body: .bytes(stored))
        return Answer(response: response, whole: bytes)
    }

    /// The bytes of `union` from two parts it covers (the later one written last); nil when they don't fit it.
    static func assemble(_ union: HeldRange, _ parts: (HeldRange, Data)...) -> Data? {
        guard union.count <= Int64(Int.max) else { return nil }
        var combined = Data(count: Int(union.count))
        for (held, bytes) in parts {
            let offset = Int(held.bytes.lowerBound - union.bytes.lowerBound)
            guard held.count == Int64(bytes.count), offset >= 0, offset + bytes.count <= combined.count else { return nil }
            combined.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        }
        return combined
    }
}
