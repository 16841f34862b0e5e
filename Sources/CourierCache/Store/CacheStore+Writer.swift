import Courier
import Foundation
import GRDB
import HTTPTypes

extension CacheStore {
    /// Accepts a response for storing and returns at once: the store's writer commits it, with
    /// whatever else is pending, in one transaction on its own queue.
    ///
    /// Until it commits, ``lookup(_:inlineBodyLimit:select:)``, ``variants(for:)`` and
    /// ``body(for:)`` see it (with a temporary negative id). A failed write is logged with the
    /// file's path and counted in ``statistics()``; the caller has its response already. When
    /// more than ``pendingWriteLimit`` bytes wait, the caller waits for the writer instead.
    /// - Returns: `false` when the response is too large to store (the variant it would replace is removed).
    @discardableResult
    func enqueue(
        key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, body: Data,
        requestTime: Date, responseTime: Date, telemetry: Telemetry = .current
    ) async -> Bool {
        guard (100...999).contains(status) else { return false }
        let entry = draft(key: key, varySelection: varySelection, status: status, headers: headers, bodySize: body.count,
                          requestTime: requestTime, responseTime: responseTime)
        guard body.count + entry.metaSize <= maximumSize else {
            _ = try? await remove(key, varyKey: varySelection.canonicalKey)
            return false
        }
        let write = PendingWrites.Write(
            metadata: entry.metadata.identified(as: pending.temporaryID()), body: body, varyData: entry.varyData,
            headerData: entry.headerData, metaSize: entry.metaSize, telemetry: telemetry)
        let (bytes, timer) = pending.append(write)
        if let timer { startWriter(timer) }
        if bytes > pendingWriteLimit { await flush() }
        return true
    }

    /// Writes everything pending now; returns when it is committed (or has failed and been logged).
    public func flush() async {
        guard !pending.isEmpty || pendingTouches.hasAny || fileCopies.current > 0 else { return }
        await runOnWriter()
    }

    /// Writes the pending responses (not the recorded uses, which no operation must follow), so
    /// that a removal or a direct store comes after the responses accepted before it.
    func flushResponses() async {
        guard !pending.isEmpty || fileCopies.current > 0 else { return }
        await runOnWriter()
    }

    private func runOnWriter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writerQueue.async {
                self.drain()
                continuation.resume()
            }
        }
    }

    /// Writes everything pending, then closes the file (its write-ahead log checkpointed and
    /// emptied); later calls fail with ``CacheStoreError/unavailable``.
    ///
    /// A store that is simply released writes what is pending first too; `close()` says when.
    public func close() async {
        await flush()
        let closed = database.withLock { current in
            defer { current = nil }
            return current
        }
        if let writer = closed?.writer { Self.checkpoint(writer) }
        try? (closed?.writer as? DatabasePool)?.close()
        OpenStores.shared.remove(self)
    }

    /// Writes everything pending before returning, blocking the calling thread (never call it on the writer's queue).
    func flushBlocking() {
        guard !pending.isEmpty || fileCopies.current > 0 else { return }
        writerQueue.sync { drain() }
    }

    /// Starts the writer for touches that piled up.
    func startWriterForTouches() {
        guard let timer = pending.scheduleWriter() else { return }
        startWriter(timer)
    }

    private func startWriter(_ timer: Int) {
        // Started a moment later, so responses that arrive together share a transaction and a
        // wake-up of the writer's thread. The block holds the store until everything pending is
        // written: a released store still flushes. A timer whose wait a flush already ended does nothing.
        writerQueue.asyncAfter(deadline: .now() + Self.writerDelay) {
            if self.pending.isCurrent(timer: timer) { self.drain() }
        }
    }

    /// How long the writer waits for more responses before it commits: a commit rewrites its
    /// shared pages (index, totals, partly filled pages), so fewer, larger ones cost less a row.
    static let writerDelay: DispatchTimeInterval = .milliseconds(50)

    /// Commits pending writes in batches until none is left. Runs on ``writerQueue``.
    func drain() {
        while true {
            let batch = pending.nextBatch()
            guard !batch.isEmpty || pendingTouches.hasAny else { return }
            let limit = maximumSize
            let result = try? accessNow("store") { writer in
                try writer.write { db -> (ids: [Int64], eviction: Eviction) in
                    try self.flushTouches(db)
                    let rows = try RowWriter(db)
                    var ids: [Int64] = []
                    for write in batch {
                        let id = try rows.replace(
                            with: write.metadata, varyData: write.varyData, headerData: write.headerData, metaSize: write.metaSize)
                        try rows.insertBody(write.body, of: id)
                        ids.append(id)
                    }
                    let eviction = try ids.last.map { try Self.evict(db, limit: limit, keeping: $0) } ?? Eviction()
                    return (ids, eviction)
                }
            }
            pending.finish(batch, ids: result?.ids ?? [])
            guard let result else {
                // Logged and counted by `accessNow`; the uses recorded meanwhile are dropped with the batch.
                _ = pendingTouches.drain()
                continue
            }
            if let telemetry = batch.last?.telemetry { countEvictions(result.eviction, telemetry: telemetry) }
        }
    }
}
