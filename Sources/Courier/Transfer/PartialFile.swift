import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A download's partial file, hidden beside its destination, used only through the descriptor it
/// was opened with: created new (`O_CREAT | O_EXCL | O_NOFOLLOW`, 0600) or, to resume, reopened
/// without following a link and only when it is a regular file of this user. A symbolic link or
/// another file planted at its path is never written, truncated, renamed or deleted.
final class PartialFile: Sendable {
    let url: URL
    private let handle: FileHandle
    /// The file as it was opened, to recognise it at its path before a rename or an unlink.
    private let identity: FileSnapshot

    private init(url: URL, descriptor: Int32, identity: FileSnapshot) {
        self.url = url
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.identity = identity
    }

    /// The name a partial file of `destination` has: `.<name>.<UUID>.download`, in its folder.
    static func isPartialName(_ name: String, of destination: URL) -> Bool {
        name.hasPrefix("." + destination.lastPathComponent + ".") && isPartialName(name)
    }

    /// Whether `name` has the form of some partial file, `.<name>.<UUID>.download`.
    static func isPartialName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".download") else { return false }
        let stem = name.dropLast(".download".count)
        guard let dot = stem.lastIndex(of: "."), dot > stem.startIndex else { return false }
        return UUID(uuidString: String(stem[stem.index(after: dot)...])) != nil
    }

    /// Creates a new, empty partial file for `destination`.
    static func create(for destination: URL) throws(CourierError) -> PartialFile {
        let folder = destination.deletingLastPathComponent()
        let url = folder.appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).download")
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CourierError(.file, detail: "Cannot create a file in \(folder.path): \(String(cString: strerror(errno)))")
        }
        guard let identity = FileSnapshot(descriptor: descriptor) else {
            close(descriptor)
            throw CourierError(.file, detail: "Cannot read the state of \(url.path)")
        }
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // Private while it arrives; an app's download is its to back up.
        PrivateFile.protect(url, excludedFromBackup: false)
        #endif
        return PartialFile(url: url, descriptor: descriptor, identity: identity)
    }

    /// Reopens the partial file a ``ResumableDownload`` names, or nil when it is not one this
    /// download may use: outside the destination's folder, another name, a link, not a regular
    /// file, another user's, or empty. Nil leaves whatever is at that path untouched.
    static func reopen(_ url: URL, for destination: URL) -> PartialFile? {
        let folder = destination.deletingLastPathComponent().standardizedFileURL.path
        guard url.isFileURL, url.deletingLastPathComponent().standardizedFileURL.path == folder,
              isPartialName(url.lastPathComponent, of: destination)
        else { return nil }
        let descriptor = open(url.path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard let identity = FileSnapshot(descriptor: descriptor), identity.isRegularFile, identity.owner == getuid(), identity.size > 0 else {
            close(descriptor)
            return nil
        }
        return PartialFile(url: url, descriptor: descriptor, identity: identity)
    }

    /// The bytes in the file.
    var size: Int64 {
        FileSnapshot(descriptor: handle.fileDescriptor)?.size ?? 0
    }

    /// Keeps the first `offset` bytes and writes from there on.
    func truncate(at offset: Int64) throws {
        try handle.truncate(atOffset: UInt64(offset))
        try handle.seek(toOffset: UInt64(offset))
    }

    /// Appends `bytes` as they are (a chunk is written without a copy into `Data`).
    func write(_ bytes: some DataProtocol) throws {
        try handle.write(contentsOf: bytes)
    }

    /// Waits until the bytes are on disk. On a thread of its own: an fsync can take seconds, and
    /// Swift's shared pool has few threads.
    func synchronize() async throws {
        let handle = self.handle
        try await runningBlocking { try handle.synchronize() }
    }

    /// Whether the path still names this file (not a link or another file put there since).
    private var isAtItsPath: Bool {
        FileSnapshot(linkAt: url.path)?.isSameFile(as: identity) ?? false
    }

    /// Moves the file to `destination`; false (with the reason) when it is no longer at its path or
    /// the rename fails.
    func move(to destination: URL) -> String? {
        guard isAtItsPath else { return "the partial file \(url.lastPathComponent) was replaced" }
        guard rename(url.path, destination.path) == 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// Deletes the file, if its path still names it.
    func delete() {
        if isAtItsPath { unlink(url.path) }
    }
}

