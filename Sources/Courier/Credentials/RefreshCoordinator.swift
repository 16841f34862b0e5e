/// Runs at most one token refresh at a time and hands its result to every request waiting for it.
///
/// The refresh runs in its own task, so a waiting request that is cancelled or runs out of time
/// leaves it running for the others. On success the store holds the new credentials before any
/// waiter resumes. A refusal (see ``isRefusal(_:)``) signs the store out once and fails every
/// waiter with ``CourierError/Kind/sessionExpired``; any other failure keeps the credentials and
/// fails the waiters with that error.
final class RefreshCoordinator: Sendable {
    typealias Refresh = @Sendable (Credentials) async throws -> Credentials

    private struct State {
        var nextID = 0
        /// The waiters of the refresh in flight, or nil when none runs.
        var waiters: [Int: CheckedContinuation<Credentials, any Error>]?
        /// The error of the last refresh that ended the session and the credentials it tried to replace.
        var lastRefusal: (stale: Credentials, error: CourierError)?
    }

    private let store: CredentialStore
    private let refresh: Refresh
    private let state = Locked(State())

    init(store: CredentialStore, refresh: @escaping Refresh) {
        self.store = store
        self.refresh = refresh
    }

    /// Credentials newer than `stale`: those already in the store, or those of the refresh in flight
    /// (joined), or of a refresh started now.
    /// - Throws: ``CourierError/Kind/sessionExpired`` when the refresh was refused or the user signed
    ///   out, the refresh's own error when it failed otherwise, ``CourierError/Kind/timedOut`` after
    ///   `timeout`, ``CourierError/Kind/cancelled`` when the calling task is cancelled while it waits.
    func credentials(replacing stale: Credentials, waitingAtMost timeout: Duration, telemetry: Telemetry) async throws -> Credentials {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        // Resumes this waiter with `error` unless the refresh already did.
        let giveUp = { @Sendable [state] (error: CourierError) in
            state.withLock { $0.waiters?.removeValue(forKey: id) }?.resume(throwing: error)
        }
        let timer = DeadlineTimer.shared.schedule(after: timeout) {
            giveUp(CourierError(.timedOut, detail: "No new credentials within \(timeout)"))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Credentials, any Error>) in
                enum Start { case wait, startRefresh, ready(Credentials), failed(CourierError), cancelled }
                let start = state.withLock { state -> Start in
                    if Task.isCancelled { return .cancelled }
                    if state.waiters != nil {
                        state.waiters?[id] = continuation
                        return .wait
                    }
                    // The store changes before the in-flight marker clears, so this sees any finished refresh.
                    guard let current = store.credentials else {
                        // Refused just after the refresh was refused: the same failure, else a plain sign-out.
                        let refusal = state.lastRefusal.flatMap { $0.stale == stale ? $0.error : nil }
                        return .failed(refusal ?? Self.sessionExpired(cause: nil))
                    }
                    if current != stale { return .ready(current) }
                    state.waiters = [id: continuation]
                    return .startRefresh
                }
                switch start {
                case .wait: telemetry.count(MetricName.tokenRefreshes, [("courier.refresh.outcome", "joined")])
                case .startRefresh:
                    // Detached: the shared refresh must not inherit one caller's cancellation or task-locals.
                    Task.detached(priority: Task.currentPriority) { await self.run(from: stale, telemetry: telemetry) }
                case .ready(let credentials): continuation.resume(returning: credentials)
                case .failed(let error): continuation.resume(throwing: error)
                case .cancelled: continuation.resume(throwing: Self.cancelled)
                }
            }
        } onCancel: {
            giveUp(Self.cancelled)
        }
    }

    /// Refreshes, then updates the store, signs it out (on a refusal) or leaves it; resumes every waiter.
    private func run(from stale: Credentials, telemetry: Telemetry) async {
        let result: Result<Credentials, CourierError>
        do {
            let fresh = try await refresh(stale)
            store.update(fresh)
            result = .success(fresh)
        } catch {
            if Self.isRefusal(error) {
                store.signOut()
                result = .failure(Self.sessionExpired(cause: error))
            } else {
                var failure = CourierError.from(transportError: error)
                failure.detail = "The credentials could not be refreshed: " + failure.detail
                result = .failure(failure)
            }
        }
        let outcome = switch result {
        case .success: "succeeded"
        case .failure(let error): error.kind == .sessionExpired ? "refused" : "failed"
        }
        telemetry.count(MetricName.tokenRefreshes, [("courier.refresh.outcome", outcome)])
        let waiters = state.withLock { state in
            defer { state.waiters = nil }
            if case .failure(let error) = result, error.kind == .sessionExpired { state.lastRefusal = (stale, error) }
            return state.waiters ?? [:]
        }
        for waiter in waiters.values { waiter.resume(with: result.mapError { $0 }) }
    }

    /// Whether a refresh failure means the refresh token itself was refused, so the session is over:
    /// `sessionExpired`, a 401, or a 400 whose body says `invalid_grant` (RFC 6749 §5.2).
    static func isRefusal(_ error: any Error) -> Bool {
        guard let error = error as? CourierError else { return false }
        if error.kind == .sessionExpired || error.status == .unauthorized { return true }
        guard error.status == .badRequest else { return false }
        let evidence = [error.serverMessage, error.bodySnippet, error.detail].compactMap { $0 }.joined(separator: " ")
        return evidence.contains("invalid_grant")
    }

    static func sessionExpired(cause: (any Error)?) -> CourierError {
        // The cause is kept as `underlying`; repeating it here would print it twice.
        let detail = cause == nil ? "The user signed out" : "The refresh token was refused"
        return CourierError(.sessionExpired, detail: detail, status: .unauthorized, underlying: cause)
    }

    private static var cancelled: CourierError {
        CourierError(.cancelled, detail: "The call was cancelled while waiting for new credentials")
    }
}
