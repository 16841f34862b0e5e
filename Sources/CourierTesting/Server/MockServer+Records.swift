extension MockServer {
    /// Every request received since start or the last ``resetRecords()``, in arrival order.
    public var recordedRequests: [RecordedRequest] {
        core.records
    }

    /// The most recent request received, or nil.
    public var lastRequest: RecordedRequest? {
        core.records.last
    }

    /// How many recorded requests had exactly this raw path (query not included).
    public func requestCount(_ path: String) -> Int {
        core.records.count { $0.path == path }
    }

    /// Forgets the recorded requests; connection counters are kept.
    public func resetRecords() {
        core.resetRecords()
    }

    /// How many connections were accepted since start.
    public var connectionsOpened: Int {
        core.connectionsOpened
    }

    /// How many connections are open right now.
    public var connectionsOpen: Int {
        core.connectionsOpen
    }

    /// How many streams are open right now: each HTTP/1.1 connection is one, and each HTTP/2
    /// stream is one. A call cancelled over HTTP/2 resets its stream and leaves the connection
    /// open for the next call, so this, not ``connectionsOpen``, shows that the server's side ended.
    public var streamsOpen: Int {
        core.streamsOpen
    }

    /// Waits until no connection is open, checking every 10 ms; returns false if `timeout` passes first.
    public func waitUntilConnectionsClosed(timeout: Duration = .seconds(2)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.connectionsOpen == 0 }
    }

    /// Waits until no stream is open (see ``streamsOpen``), checking every 10 ms; returns false if
    /// `timeout` passes first.
    public func waitUntilStreamsClosed(timeout: Duration = .seconds(2)) async -> Bool {
        await waitUntil(timeout: timeout) { $0.streamsOpen == 0 }
    }

    private func waitUntil(timeout: Duration, _ condition: (MockServer) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !condition(self) {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
