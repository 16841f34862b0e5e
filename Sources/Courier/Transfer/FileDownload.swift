import Foundation
import OpenAPIRuntime

/// Streams a response body into a file: into a temporary file beside the destination, moved into
/// place only once complete, so a failed or cancelled download leaves no half file where the app
/// looks (and a file already there stays until the new one is whole).
package struct FileDownload: Sendable {
    /// Where the file goes.
    package let destination: URL
    /// Told how far the download has come (throttled), if anyone asked.
    package let progress: (@Sendable (TransferProgress) -> Void)?

    package init(destination: URL, progress: (@Sendable (TransferProgress) -> Void)?) {
        self.destination = destination
        self.progress = progress
    }

    /// Writes `body` to ``destination``; returns its size.
    /// - Throws: ``CourierError/Kind/file`` when the folder is missing or a write fails (a full
    ///   disk), the body's own error when the transfer fails; nothing is left half-written.
    package func write(_ body: HTTPBody?, announcedLength: Int64?) async throws -> Int64 {
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CourierError(.file, detail: "The folder \(folder.path) does not exist")
        }
        let partial = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw CourierError(.file, detail: "Cannot create a file in \(folder.path)")
        }
        var complete = false
        defer { if !complete { try? FileManager.default.removeItem(at: partial) } }
        let size = try await copy(body, into: partial, announcedLength: announcedLength)
        guard rename(partial.path, destination.path) == 0 else {
            throw CourierError(.file, detail: "Cannot move the download to \(destination.path): \(String(cString: strerror(errno)))")
        }
        complete = true
        return size
    }

    private func copy(_ body: HTTPBody?, into file: URL, announcedLength: Int64?) async throws -> Int64 {
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw CourierError(.file, detail: "Cannot write to \(file.path)", underlying: error)
        }
        defer { try? handle.close() }
        var throttle = progress.map(ProgressThrottle.init)
        var written: Int64 = 0
        if let body {
            for try await chunk in body {
                do {
                    try handle.write(contentsOf: chunk)
                } catch {
                    throw CourierError(.file, detail: "Writing the download to \(file.path) failed after \(written) bytes", underlying: error)
                }
                written += Int64(chunk.count)
                throttle?.update(TransferProgress(completedBytes: written, totalBytes: announcedLength))
            }
        }
        do {
            try handle.synchronize()
        } catch {
            throw CourierError(.file, detail: "Writing the download to \(file.path) failed", underlying: error)
        }
        throttle?.finish(TransferProgress(completedBytes: written, totalBytes: announcedLength ?? written))
        return written
    }
}
