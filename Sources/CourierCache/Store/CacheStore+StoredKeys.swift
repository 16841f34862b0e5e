import Courier
import Foundation
import GRDB

extension CacheStore {
    /// Whether `key` may be stored (see ``StoredKeys``); when the set is due for a check, starts
    /// it on the writer's queue and answers yes meanwhile.
    func mayHold(_ key: CacheKey) -> Bool {
        switch storedKeys.answer(for: key) {
        case .mayBeStored: return true
        case .notStored: return false
        case .check(let check):
            writerQueue.async { self.checkStoredKeys(check) }
            return true
        }
    }

    /// Adds keys just committed to the sets of this store and of the other stores on its file in this process.
    func didStore(_ keys: [CacheKey]) {
        guard !keys.isEmpty else { return }
        storedKeys.add(keys)
        for other in OpenStores.shared.others(than: self) { other.storedKeys.add(keys) }
    }

    /// Compares the file's change counter with the one the keys were loaded at, and reads the keys
    /// again when another connection (another store, another process) committed meanwhile.
    ///
    /// `PRAGMA data_version` on the writer's connection changes only with other connections'
    /// commits; this store's own writes are added as they commit. A failed check changes nothing:
    /// lookups read the file, and report the failure themselves.
    private func checkStoredKeys(_ check: StoredKeys.Check) {
        let result = try? database.current?.writer.writeWithoutTransaction { db -> (version: Int, keys: [CacheKey]?) in
            let version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            guard check.needsLoad(version: version) else { return (version, nil) }
            var keys: [CacheKey] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT method, url, partitionKey FROM entry")
            while let row = try rows.next() {
                keys.append(CacheKey(method: row[0] ?? "", normalizedURL: row[1] ?? "", partition: row[2] ?? ""))
            }
            return (version, keys)
        }
        storedKeys.finishCheck(check, version: result?.version, loaded: result?.keys)
    }
}
