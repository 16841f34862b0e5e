import Courier
import GRDB

/// A store's open database: the GRDB connection every write and the rarer reads go through, and
/// the read connections of lookups. Replaced together when a damaged file is recovered.
struct OpenDatabase: Sendable {
    let writer: any DatabaseWriter
    /// nil in memory, or when the file can't be opened a second time: lookups then read through `writer`.
    let reader: StoreReader?
    /// The keyed hash of secret request values, under the file's own random key (see ``CacheStore/secretKey(in:)``).
    let secrets: HMAC

    init(writer: any DatabaseWriter, reader: StoreReader?) throws {
        self.writer = writer
        self.reader = reader
        secrets = HMAC(key: try CacheStore.secretKey(in: writer))
    }
}
