import Foundation

/// The files Courier writes (cache database and its journals, timing log, downloads) are the
/// user's alone: readable and writable by the owner only (0600), and on iOS, tvOS, watchOS and
/// visionOS protected until the device is first unlocked, so background requests still run.
/// Caches and logs, which the network or the app can make again, are also left out of backups.
package enum PrivateFile {
    /// Creates an empty private file at `url` unless one exists; false when it can't be created.
    package static func create(at url: URL, excludedFromBackup: Bool = true) -> Bool {
        if FileManager.default.fileExists(atPath: url.path) { return true }
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            return false
        }
        protect(url, excludedFromBackup: excludedFromBackup)
        return true
    }

    /// Makes an existing file private (best effort: a file another user owns stays as it is).
    package static func protect(_ url: URL, excludedFromBackup: Bool = true) {
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        try? FileManager.default.setAttributes([.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: url.path)
        #endif
        #if canImport(Darwin)
        guard excludedFromBackup else { return }
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var file = url
        try? file.setResourceValues(values)
        #endif
    }
}
