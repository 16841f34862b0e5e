import Foundation

/// What a cut download needs to continue later: its partial file and the validator of the
/// response it came from. Keep it (it is `Codable`) and hand it to
/// ``Client/download(_:to:resumingFrom:cachePolicy:progress:)``; the download then asks only for the missing
/// bytes (`Range` + `If-Range`), and starts over cleanly if the file changed on the server.
///
/// A download that fails with a lost connection, a timeout, no connection or a cancel leaves its
/// partial file (hidden, beside the destination) and puts this value in
/// ``CourierError/resumableDownload``; call ``discard()`` when the app gives up on it.
public struct ResumableDownload: Sendable, Hashable, Codable {
    /// The partial file, in the destination's folder.
    package private(set) var partialFile: URL
    /// The strong `ETag`, or else the `Last-Modified` date, of the response the bytes came from.
    package private(set) var validator: String
    /// How many bytes the partial file held when the download stopped.
    public private(set) var completedBytes: Int64
    /// The whole size, when the server announced it.
    public private(set) var totalBytes: Int64?

    /// Creates the state of a cut download.
    package init(partialFile: URL, validator: String, completedBytes: Int64, totalBytes: Int64?) {
        self.partialFile = partialFile
        self.validator = validator
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// Deletes the partial file: the download will not be resumed. A record whose path names
    /// anything but a partial download file (`.<name>.<UUID>.download`, a regular file, not a link)
    /// deletes nothing.
    public func discard() {
        guard partialFile.isFileURL, PartialFile.isPartialName(partialFile.lastPathComponent),
              let values = try? partialFile.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey]),
              values.isRegularFile == true, values.isSymbolicLink != true
        else { return }
        try? FileManager.default.removeItem(at: partialFile)
    }
}
