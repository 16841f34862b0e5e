import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Streams a download into a partial file beside its destination and moves it into place only once
/// complete, so a failed or cancelled download leaves no half file where the app looks (and a file
/// already there stays until the new one is whole).
///
/// It lives for one logical call and is written by each attempt in turn: an attempt after a cut
/// asks for the missing bytes (`Range` + `If-Range`) and appends them, so a retried download resumes.
package final class FileDownload: Sendable {
    /// Where the file goes.
    package let destination: URL
    /// The bytes so far, hidden beside the destination.
    private let file: PartialFile
    private let progress: ProgressReporter?
    private let state: Locked<State>

    private struct State {
        /// Valid bytes in the partial file.
        var offset: Int64
        /// The strong ETag or Last-Modified of the response the bytes came from.
        var validator: String?
        /// The whole file's length, when known: a `206` must state the same.
        var total: Int64?
        /// Whether the last request asked for a range.
        var askedFrom: Int64?
        /// Whether the file holds the whole body of one `200`, received to its end.
        var holdsWholeBody = false
    }

    /// The partial file's location.
    var partial: URL { file.url }

    /// Prepares a download to `destination`, continuing `resume` when its partial file is still
    /// there and is one of this destination's partial files (see ``PartialFile/reopen(_:for:)``);
    /// any other resume record is ignored, and whatever its path names is left alone.
    /// - Throws: ``CourierError/Kind/file`` when the folder is missing or not writable.
    package init(destination: URL, resumingFrom resume: ResumableDownload?, progress: (@Sendable (TransferProgress) -> Void)?) throws(CourierError) {
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CourierError(.file, detail: "The folder \(folder.path) does not exist")
        }
        self.destination = destination
        self.progress = progress.map(ProgressReporter.init)
        if let resume, let reopened = PartialFile.reopen(resume.partialFile, for: destination) {
            file = reopened
            state = Locked(State(offset: reopened.size, validator: resume.validator, total: resume.totalBytes))
        } else {
            file = try PartialFile.create(for: destination)
            state = Locked(State(offset: 0))
        }
    }

    /// One attempt of the download through `send` (the transport): its successful body goes to the
    /// file as it arrives, so a cut is this attempt's failure (retried where safe) and the next
    /// attempt asks only for the missing bytes. A `416`, or a `206` that isn't the rest of the same
    /// version of the file, starts the download over once from byte 0. Hands back an unsuccessful
    /// response as it is.
    package func attempt(
        _ request: HTTPRequest, send: (HTTPRequest) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (head, body) = try await send(self.request(for: request))
        if head.status.code == 416 || head.status.code == 206 && !continues(head), restart() {
            // The bytes on disk are no longer a prefix of this file (it shrank, or the server or a
            // proxy ignored `If-Range` and sent another version's bytes): start over.
            (head, body) = try await send(self.request(for: request))
        }
        guard head.status.kind == .successful else { return (head, body) }
        try await receive(head, body: body)
        return (head, nil)
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
    private func continues(_ head: HTTPResponse) -> Bool {
        guard let range = head.headerFields[.contentRange].flatMap(ContentRange.init) else { return false }
        return state.withLock { state in
            guard let asked = state.askedFrom, range.first == asked, let saved = state.validator,
                  Self.validator(of: head) == saved
            else { return false }
            guard let total = state.total else { return true }
            return range.completeLength == total
        }
    }

    /// Writes a successful response's body: appended after the bytes on disk for a matching 206,
    /// from the start for anything else (a 200 means the file changed or the server ignores ranges).
    /// - Throws: ``CourierError/Kind/invalidResponse`` for a 206 that isn't the range asked for,
    ///   ``CourierError/Kind/file`` when a write fails, the body's own error when the transfer fails.
    package func receive(_ head: HTTPResponse, body: HTTPBody?) async throws {
        let start = try startOffset(for: head, announcedLength: body?.knownLength)
        do {
            try file.truncate(at: start)
        } catch {
            throw CourierError(.file, detail: "Cannot write to \(partial.path)", underlying: error)
        }
        let total = state.withLock { $0.total }
        var offset = start
        if let body {
            for try await chunk in body {
                do {
                    try file.write(chunk)
                } catch {
                    throw CourierError(.file, detail: "Writing the download to \(partial.path) failed after \(offset) bytes", underlying: error)
                }
                offset += Int64(chunk.count)
                state.withLock { $0.offset = offset }
                progress?.update(TransferProgress(completedBytes: offset, totalBytes: total))
            }
        }
        // A cancelled reader may see a stream simply end (AsyncStream does): that is a cancel, not a cut.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The download was cancelled after \(offset) bytes") }
        if let total, offset != total {
            throw CourierError(.connectionLost, detail: "The download ended after \(offset) of \(total) bytes")
        }
        if head.status.code == 200 { state.withLock { $0.holdsWholeBody = true } }
    }

    /// The partial file while it holds the whole body of the `200` just received (before
    /// ``complete()`` moves it into place): what a cache may copy.
    package var wholeBodyFile: URL? {
        state.withLock { $0.holdsWholeBody } ? partial : nil
    }

    /// Where this response's bytes go in the file, after checking a 206 against what was asked.
    private func startOffset(for head: HTTPResponse, announcedLength: Int64?) throws(CourierError) -> Int64 {
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

    /// Moves the complete file into place, once on disk, and reports the final progress; returns its size.
    package func complete() async throws(CourierError) -> Int64 {
        let size = state.withLock { $0.offset }
        do {
            try await file.synchronize()
        } catch {
            throw CourierError(.file, detail: "Writing the download to \(partial.path) failed", underlying: error)
        }
        if let reason = file.move(to: destination) {
            file.delete()
            throw CourierError(.file, detail: "Cannot move the download to \(destination.path): \(reason)")
        }
        progress?.finish(TransferProgress(completedBytes: size, totalBytes: size))
        return size
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
    private static let resumableKinds: Set<CourierError.Kind> = [.connectionLost, .timedOut, .noConnection, .cancelled, .transport]

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
