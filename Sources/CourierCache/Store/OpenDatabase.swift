import Courier
import GRDB

/// A store's open database: the GRDB pool (or queue, in memory) every read and write goes
/// through, with the file's key for secret values. Replaced whole when a damaged file is recovered.
struct OpenDatabase: Sendable {
    let writer: any DatabaseWriter
    /// The keyed hash of secret request values, under the file's own random key (see ``CacheStore/secretKey(in:)``).
    let secrets: HMAC

    init(writer: any DatabaseWriter) throws {
        self.writer = writer
        secrets = HMAC(key: try CacheStore.secretKey(in: writer))
    }
}
