import Courier
import Foundation

/// The read connections hits go through: kept open and reused, one per thread reading at the
/// same moment, at most ``maximumIdle`` kept between reads.
final class StoreReader: Sendable {
    /// The database file.
    let path: String
    /// How many idle connections are kept open: one per thread of the cooperative pool, which runs
    /// the lookups (more threads reading at once open more, briefly).
    static let maximumIdle = max(2, ProcessInfo.processInfo.activeProcessorCount)

    private struct State {
        var idle: [ReadConnection] = []
        var closed = false
    }

    // A connection is either in `idle` or lent to exactly one read (taken out under the lock and
    // put back after), so no two threads ever use one at once.
    private let state: Locked<State>

    /// Opens the first connection now, so a file that can't be read this way is known at once.
    init(path: String) throws {
        self.path = path
        state = Locked(State(idle: [try ReadConnection(path: path)]))
    }

    /// The variants of `key` with their small bodies (see ``ReadConnection/variants(of:inlineBodyLimit:)``).
    func variants(of key: CacheKey, inlineBodyLimit: Int) throws -> [CacheStore.StoredVariant] {
        let connection = try state.withLock { $0.idle.popLast() } ?? ReadConnection(path: path)
        defer { giveBack(connection) }
        return try connection.variants(of: key, inlineBodyLimit: inlineBodyLimit)
    }

    /// Keeps `connection` for the next read; one not kept closes when the caller releases it.
    private func giveBack(_ connection: ReadConnection) {
        state.withLock { state in
            guard !state.closed, state.idle.count < Self.maximumIdle else { return }
            state.idle.append(connection)
        }
    }

    /// Closes the idle connections; one lent to a read closes when that read ends.
    func close() {
        // Taken out under the lock, closed when released at the end of this scope.
        let idle = state.withLock { state in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        withExtendedLifetime(idle) {}
    }
}
