import CFileStatus

/// What tells one version of a file from another without reading it: size, modification time,
/// device and inode (read through `CFileStatus`, so no Swift file depends on `struct stat`).
struct FileSnapshot: Equatable, Sendable {
    let size: Int64
    let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64
    let device: UInt64
    let inode: UInt64
    /// The owner's user id.
    let owner: UInt32
    /// Whether it is a regular file (not a folder, a link or a device).
    let isRegularFile: Bool

    private init(_ status: courier_file_status) {
        size = status.size
        modifiedSeconds = status.modifiedSeconds
        modifiedNanoseconds = status.modifiedNanoseconds
        device = status.device
        inode = status.inode
        owner = status.owner
        isRegularFile = status.isRegularFile != 0
    }

    /// The open descriptor's file; nil (with `errno` set) when it can't be read.
    init?(descriptor: Int32) {
        var status = courier_file_status()
        guard courier_fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The file at `path`, through a link; nil (with `errno` set) when there is none.
    init?(path: String) {
        var status = courier_file_status()
        guard courier_stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// What `path` itself names, a link not followed; nil (with `errno` set) when there is none.
    init?(linkAt path: String) {
        var status = courier_file_status()
        guard courier_lstat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// Whether both describe the same file, whatever was written to it since.
    func isSameFile(as other: FileSnapshot) -> Bool {
        device == other.device && inode == other.inode
    }
}
