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

    /// Waits until no connection is open, checking every 10 ms; returns false if `timeout` passes first.
    public func waitUntilConnectionsClosed(timeout: Duration = .seconds(2)) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while connectionsOpen > 0 {
            guard clock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }
}
