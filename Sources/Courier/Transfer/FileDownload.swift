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
    let file: PartialFile
    private let progress: ProgressReporter?
    let state: Locked<State>

    struct State {
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
        // A 206 holds its Content-Range and no more: a server that goes on can't fill the disk.
        let end = head.status.code == 206 ? head.headerFields[.contentRange].flatMap(ContentRange.init).map { $0.last + 1 } : nil
        var offset = start
        if let body {
            for try await chunk in body {
                if let end, offset + Int64(chunk.count) > end {
                    throw CourierError(
                        .invalidResponse, detail: "A 206 for bytes up to \(end) sent more than its Content-Range",
                        status: head.status, responseHeaders: head.headerFields)
                }
                do {
                    try file.write(chunk)
                } catch {
                    throw CourierError(.file, detail: "Writing the download to \(partial.path) failed after \(offset) bytes", underlying: error)
                }
                offset += Int64(chunk.count)
                state.withLock { $0.offset = offset }
                progress?.update(TransferProgress(completed: offset, total: total))
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
        progress?.finish(TransferProgress(completed: size, total: size))
        return size
    }
}
