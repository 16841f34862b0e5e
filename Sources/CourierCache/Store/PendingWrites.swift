import Courier
import Foundation

/// Responses accepted for storing but not yet committed, oldest first; reads see them until they are.
///
/// A pending variant carries a temporary negative id. Once its batch commits, the temporary id
/// maps to the row id (for handles read before the commit), and the variant leaves the queue.
final class PendingWrites: Sendable {
    /// One response waiting for the writer.
    ///
    /// A class: the queue, its batches and the reads that see it pass it around, and a reference
    /// is one retain where this many fields would be a dozen.
    final class Write: Sendable {
        let metadata: CachedMetadata
        let body: Data
        let varyData: Data
        let headerData: Data
        let metaSize: Int
        /// Where the call that stored it reports metrics.
        let telemetry: Telemetry

        init(metadata: CachedMetadata, body: Data, varyData: Data, headerData: Data, metaSize: Int, telemetry: Telemetry) {
            self.metadata = metadata
            self.body = body
            self.varyData = varyData
            self.headerData = headerData
            self.metaSize = metaSize
            self.telemetry = telemetry
        }

        /// What the write holds in memory until it commits.
        var bytes: Int { body.count + metaSize }
    }

    private struct State {
        var queue: [Write] = []
        /// How many queued writes each key has, so a read of another key costs one hash lookup.
        var keys: [CacheKey: Int] = [:]
        var bytes = 0
        var nextID: Int64 = -1
        var committed: [Int64: Int64] = [:]
        /// Whether the writer is on its way (its timer set, or draining).
        var scheduled = false
        /// The writer's current timer: a drain that empties the queue ends it, so that when it
        /// fires later it doesn't commit the responses queued since before their own timer.
        var timer = 0

        /// Marks the writer as started: the timer to set, or nil when it already was.
        mutating func schedule() -> Int? {
            guard !scheduled else { return nil }
            scheduled = true
            return timer
        }
    }

    private let state = Locked(State())
    /// How many temporary ids are remembered after their commit.
    static let committedCapacity = 4096

    /// A temporary id for a new pending variant.
    func temporaryID() -> Int64 {
        state.withLock { state in
            defer { state.nextID -= 1 }
            return state.nextID
        }
    }

    /// Queues a write; returns the bytes pending afterwards, and the timer to set when the writer must be started.
    func append(_ write: Write) -> (pendingBytes: Int, startTimer: Int?) {
        state.withLock { state in
            state.queue.append(write)
            state.keys[write.metadata.key, default: 0] += 1
            state.bytes += write.bytes
            return (state.bytes, state.schedule())
        }
    }

    /// Marks the writer as started; returns the timer to set, nil when it already was.
    func scheduleWriter() -> Int? {
        state.withLock { $0.schedule() }
    }

    /// Whether `timer` is still the writer's timer (no drain emptied the queue since it was set).
    func isCurrent(timer: Int) -> Bool {
        state.withLock { $0.scheduled && $0.timer == timer }
    }

    /// The writes to commit next (they stay visible until ``finish(_:ids:)``); when there are
    /// none, the writer is marked as stopped.
    func nextBatch() -> [Write] {
        state.withLock { state in
            if state.queue.isEmpty, state.scheduled {
                state.scheduled = false
                state.timer += 1
            }
            return state.queue
        }
    }

    /// Removes a batch from the queue after it committed (with the row ids it got) or failed (`ids` empty).
    func finish(_ batch: [Write], ids: [Int64]) {
        state.withLock { state in
            for write in state.queue.prefix(batch.count) {
                let remaining = (state.keys[write.metadata.key] ?? 1) - 1
                state.keys[write.metadata.key] = remaining > 0 ? remaining : nil
            }
            state.queue.removeFirst(min(batch.count, state.queue.count))
            state.bytes -= batch.reduce(0) { $0 + $1.bytes }
            if state.committed.count + ids.count > Self.committedCapacity { state.committed.removeAll(keepingCapacity: true) }
            for (write, id) in zip(batch, ids) { state.committed[write.metadata.id] = id }
        }
    }

    /// The pending variants of `key`, oldest first.
    func variants(for key: CacheKey) -> [Write] {
        state.withLock { state in
            state.keys[key] == nil ? [] : state.queue.filter { $0.metadata.key == key }
        }
    }

    /// The pending variants of every method for `url` in `partition`.
    func variants(url: String, partition: String) -> [Write] {
        state.withLock { state in
            state.queue.filter { $0.metadata.key.url == url && $0.metadata.key.partition == partition }
        }
    }

    /// The pending write with temporary id `id`.
    func write(id: Int64) -> Write? {
        state.withLock { state in state.queue.last { $0.metadata.id == id } }
    }

    /// The row id a temporary id got when it committed; the id itself when it is a row id.
    func rowID(for id: Int64) -> Int64? {
        guard id < 0 else { return id }
        return state.withLock { $0.committed[id] }
    }

    /// Whether nothing waits for the writer.
    var isEmpty: Bool { state.withLock { $0.queue.isEmpty } }

    /// How many writes wait, and their bytes.
    var size: (count: Int, bytes: Int) { state.withLock { ($0.queue.count, $0.bytes) } }
}
