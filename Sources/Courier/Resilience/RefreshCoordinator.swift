/// Runs at most one token refresh at a time and hands its result to every request waiting for it.
///
/// The refresh runs in its own task, so a waiting request that is cancelled leaves it running for
/// the others. On success the store holds the new credentials before any waiter resumes; on
/// failure the store is signed out once and every waiter gets ``CourierError/Kind/sessionExpired``.
final class RefreshCoordinator: Sendable {
    typealias Refresh = @Sendable (Credentials) async throws -> Credentials

    private struct State {
        var nextID = 0
        /// The waiters of the refresh in flight, or nil when none runs.
        var waiters: [Int: CheckedContinuation<Credentials, any Error>]?
        /// The error of the last refresh that failed and the credentials it tried to replace.
        var lastFailure: (stale: Credentials, error: CourierError)?
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
    /// - Throws: ``CourierError/Kind/sessionExpired`` when the refresh fails or the user signed out,
    ///   ``CourierError/Kind/cancelled`` when the calling task is cancelled while it waits.
    func credentials(replacing stale: Credentials) async throws -> Credentials {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
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
                        // Refused just after the refresh failed: the same failure, else a plain sign-out.
                        let failure = state.lastFailure.flatMap { $0.stale == stale ? $0.error : nil }
                        return .failed(failure ?? Self.sessionExpired(cause: nil))
                    }
                    if current != stale { return .ready(current) }
                    state.waiters = [id: continuation]
                    return .startRefresh
                }
                switch start {
                case .wait: break
                case .startRefresh:
                    // Detached: the shared refresh must not inherit one caller's cancellation or task-locals.
                    Task.detached(priority: Task.currentPriority) { await self.run(from: stale) }
                case .ready(let credentials): continuation.resume(returning: credentials)
                case .failed(let error): continuation.resume(throwing: error)
                case .cancelled: continuation.resume(throwing: Self.cancelled)
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters?.removeValue(forKey: id) }
            waiter?.resume(throwing: Self.cancelled)
        }
    }

    /// Refreshes, updates or signs out the store, then resumes every waiter.
    private func run(from stale: Credentials) async {
        let result: Result<Credentials, CourierError>
        do {
            let fresh = try await refresh(stale)
            store.update(fresh)
            result = .success(fresh)
        } catch {
            store.signOut()
            result = .failure(Self.sessionExpired(cause: error))
        }
        let waiters = state.withLock { state in
            defer { state.waiters = nil }
            if case .failure(let error) = result { state.lastFailure = (stale, error) }
            return state.waiters ?? [:]
        }
        for waiter in waiters.values { waiter.resume(with: result.mapError { $0 }) }
    }

    static func sessionExpired(cause: (any Error)?) -> CourierError {
        let detail = cause.map { "The credentials could not be refreshed: \($0)" } ?? "The user signed out"
        return CourierError(.sessionExpired, detail: detail, status: .unauthorized, underlying: cause)
    }

    private static var cancelled: CourierError {
        CourierError(.cancelled, detail: "The call was cancelled while waiting for new credentials")
    }
}
