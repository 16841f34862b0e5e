import Courier
import Foundation
import OpenAPIRuntime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder of an outbox's body files: each written whole and synced (file, then folder) before
/// the row naming it is committed, readable by the owner only.
struct OutboxFiles: Sendable {
    let folder: URL

    init(folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func url(of name: String) -> URL { folder.appendingPathComponent(name) }

    /// Writes `body` to a new file; its name and size. A body past `limit` bytes stops the copy and
    /// leaves nothing behind; the file and its folder are synced on a thread of their own.
    /// - Throws: `tooLarge` past `limit`, ``OutboxError/storage(_:)`` when the file can't be written.
    func write(_ body: HTTPBody, limit: Int64, tooLarge: OutboxError) async throws -> (name: String, size: Int64) {
        let name = UUID().uuidString.lowercased()
        let path = url(of: name).path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutboxError.storage("could not create a body file: \(String(cString: strerror(errno)))") }
        var size: Int64 = 0
        do {
            defer { close(descriptor) }
            for try await chunk in body {
                size += Int64(chunk.count)
                guard size <= limit else { throw tooLarge }
                try chunk.withUnsafeBytes { try writeAll($0, to: descriptor) }
            }
            let folder = folder
            try await runningBlocking {
                guard fsync(descriptor) == 0 else { throw OutboxError.storage("could not sync a body file: \(String(cString: strerror(errno)))") }
                Self.syncFolder(folder)
            }
        } catch {
            unlink(path)
            throw error
        }
        PrivateFile.protect(url(of: name), excludedFromBackup: false)
        return (name, size)
    }

    /// Deletes a body file (gone already is fine).
    func delete(_ name: String) {
        unlink(url(of: name).path)
    }

    /// Deletes the files no row names: left by a crash between writing a file and committing its row.
    func deleteAll(except kept: Set<String>) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !kept.contains(name) { delete(name) }
    }

    /// Syncs the folder's entries, so a new file's name survives a power cut too.
    private static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}

/// Writes all of `bytes`, again after an interrupted or short `write(2)`.
private func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, base + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            throw OutboxError.storage("could not write a body file: \(String(cString: strerror(errno)))")
        }
        offset += written
    }
}
