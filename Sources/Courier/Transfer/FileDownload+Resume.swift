import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Resuming a download: each attempt asks only for the bytes not on disk, and a `206` continues
/// the file only when it is the rest of the very version the bytes came from (RFC 9110 §13.1.5).
extension FileDownload {
    /// One attempt of the download through `send` (the transport): its successful body goes to the
    /// file as it arrives, so a cut is this attempt's failure (retried where safe) and the next
    /// attempt asks only for the missing bytes. A `416`, or a `206` that isn't the rest of the same
    /// version of the file, starts the download over once from byte 0. Hands back an unsuccessful
    /// response as it is.
    package func attempt(
        _ request: HTTPRequest, send: (HTTPRequest) async throws -> Answer
    ) async throws -> Answer {
        var answer = try await send(self.request(for: request))
        let status = answer.response.status
        if status.code == 416 || status.code == 206 && !continues(answer.response), restart() {
            // The bytes on disk are no longer a prefix of this file (it shrank, or the server or a
            // proxy ignored `If-Range` and sent another version's bytes): start over.
            answer = try await send(self.request(for: request))
        }
        guard answer.response.status.kind == .successful else { return answer }
        try await receive(answer.response, body: answer.body)
        answer.body = nil
        return answer
    }

    /// `request`, asking only for the missing bytes when some are on disk with a validator.
    package func request(for request: HTTPRequest) -> HTTPRequest {
        var request = request
        let resumeFrom = state.withLock { state -> (Int64, String)? in
            guard state.offset > 0, let validator = state.validator else {
                state.askedFrom = nil
                return nil
            }
            state.askedFrom = state.offset
            return (state.offset, validator)
        }
        if let (offset, validator) = resumeFrom {
            request.headerFields[.range] = "bytes=\(offset)-"
            request.headerFields[.ifRange] = validator
        }
        return request
    }

    /// Forgets the bytes on disk, so the next request asks for the whole file; false when it
    /// asked for the whole file already.
    package func restart() -> Bool {
        state.withLock { state in
            guard state.askedFrom != nil else { return false }
            state.offset = 0
            state.validator = nil
            state.total = nil
            return true
        }
    }

    /// Whether a `206` carries the rest of the very version on disk: the range asked for, the
    /// validator the bytes were saved with and the same complete length (RFC 9110 §13.1.5: a server
    /// or a proxy may ignore `If-Range`, and then only these tell two versions apart).
    func continues(_ head: HTTPResponse) -> Bool {
        guard let range = head.headerFields[.contentRange].flatMap(ContentRange.init) else { return false }
        return state.withLock { state in
            guard let asked = state.askedFrom, range.first == asked, let saved = state.validator,
                  Self.validator(of: head) == saved
            else { return false }
            guard let total = state.total else { return true }
            return range.completeLength == total
        }
    }

    /// Where this response's bytes go in the file, after checking a 206 against what was asked.
    func startOffset(for head: HTTPResponse, announcedLength: Int64?) throws(CourierError) -> Int64 {
        let validator = Self.validator(of: head)
        guard head.status.code == 206 else {
            state.withLock { state in
                state.holdsWholeBody = false
                state.offset = 0
                state.validator = validator
                state.total = announcedLength
            }
            return 0
        }
        let value = head.headerFields[.contentRange] ?? ""
        let continuing = continues(head)
        let start = state.withLock { state -> Result<Int64, CourierError> in
            state.holdsWholeBody = false
            guard continuing, let asked = state.askedFrom, let range = ContentRange(value) else {
                // Bytes from somewhere else, or from another version, can't be placed: the partial file is of no use.
                state.offset = 0
                state.validator = nil
                return .failure(CourierError(
                    .invalidResponse,
                    detail: "A 206 with Content-Range \"\(value)\" and validator \(validator ?? "none") answered a request for bytes from \(state.askedFrom.map(String.init) ?? "the start")",
                    status: head.status, responseHeaders: head.headerFields
                ))
            }
            state.total = range.completeLength ?? state.total ?? announcedLength.map { asked + $0 }
            return .success(asked)
        }
        return try start.get()
    }

    /// `error`, carrying the state to resume from when the download was cut after some bytes of a
    /// response with a validator; otherwise the partial file is deleted.
    package func abandon(after error: CourierError) -> CourierError {
        let (offset, validator, total) = state.withLock { ($0.offset, $0.validator, $0.total) }
        guard Self.resumableKinds.contains(error.kind), offset > 0, let validator else {
            file.delete()
            return error
        }
        var resumable = error
        resumable.resumableDownload = ResumableDownload(partialFile: partial, validator: validator, completedBytes: offset, totalBytes: total)
        return resumable
    }

    /// Failures after which the same bytes are worth asking for again.
    static let resumableKinds: Set<CourierError.Kind> = [.connectionLost, .timedOut, .noConnection, .cancelled, .transport]

    /// The strong `ETag`, else a strong `Last-Modified` date: what `If-Range` may carry (RFC 9110
    /// §13.1.5). A date is strong only when it is at least a second before the response's `Date`
    /// (§8.8.2.2); otherwise the file may have changed within that second, and there is no validator.
    package static func validator(of head: HTTPResponse) -> String? {
        if let tag = head.headerFields[.eTag] { return tag.hasPrefix("W/") ? nil : tag }
        guard let text = head.headerFields[.lastModified], let modified = HTTPDate.parse(text),
              let date = head.headerFields[.date].flatMap(HTTPDate.parse), date.timeIntervalSince(modified) >= 1
        else { return nil }
        return text
    }
}
