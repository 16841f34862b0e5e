import Courier

/// The outbox's hold on its folder: a stop gives the folder up only once nothing of this outbox
/// uses it (no lane, no read or write of the app's under way), and nothing restarts sending
/// underneath a stop. After a stop, a use of the folder takes it back for its own time, or fails
/// with ``OutboxError/folderInUse(_:)`` when another outbox has it.
extension Outbox {
    /// Runs one of the app's uses of the folder (an enqueue, a listing, a retry, a discard, a clear):
    /// after any stop under way, and with the folder held.
    func usingFolder<T: Sendable>(_ use: () async throws(OutboxError) -> T) async throws(OutboxError) -> T {
        await stopped()
        try lock.acquire()
        folderUses += 1
        defer { leftFolder() }
        return try await use()
    }

    /// Runs a use of the folder this outbox holds now, while sending: a stop waits for it.
    func holdingFolder<T: Sendable>(_ use: () async -> T) async -> T {
        folderUses += 1
        defer { leftFolder() }
        return await use()
    }

    /// The end of a use: the last one lets a waiting stop go on, or, after a stop, gives the folder
    /// up again unless sending started meanwhile.
    private func leftFolder() {
        folderUses -= 1
        guard folderUses == 0 else { return }
        if let stop = folderUsesEnded {
            folderUsesEnded = nil
            stop.resume()
        } else if hasStopped, !isSending {
            lock.release()
        }
    }

    /// Returns once no stop is under way.
    func stopped() async {
        while stopWaiters != nil {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if stopWaiters == nil { continuation.resume() } else { stopWaiters?.append(continuation) }
            }
        }
    }

    /// Stops sending (an item in flight is cancelled and sent again later, unless its answer came:
    /// then it is removed), ends every subscription to ``changes(bufferingNewest:)`` and gives the
    /// folder up to another outbox, once every lane and every use of the folder under way has
    /// ended. Items stay on disk. An ``enqueue(_:group:)``, ``resume()`` or ``flush()`` called
    /// meanwhile waits for the stop, then takes the folder back (or fails with
    /// ``OutboxError/folderInUse(_:)``, when another outbox has taken it).
    public func stop() async {
        guard stopWaiters == nil else { return await stopped() }
        stopWaiters = []
        isSending = false
        connectivity = nil
        for hold in holds.values { hold.task.cancel() }
        holds.removeAll()
        userCheck?.cancel()
        userCheck = nil
        storageRetry?.cancel()
        storageRetry = nil
        // A lane may start after the first are awaited (a schedule that read the heads before the
        // stop): each is cancelled and awaited until none is left.
        while let lane = lanes.values.first {
            lane.cancel()
            await lane.value
        }
        if folderUses > 0 {
            await withCheckedContinuation { folderUsesEnded = $0 }
        }
        lock.release()
        hasStopped = true
        subscribers.finish()
        resumeIdleWaiters()
        let waiters = stopWaiters ?? []
        stopWaiters = nil
        for waiter in waiters { waiter.resume() }
    }
}
