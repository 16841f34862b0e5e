import Courier

/// An exchange's clear mark (see ``CacheClearMark``): the first one a storage read gave before the
/// exchange sent anything, which its stores carry. Shared by the copies of one exchange (a
/// background revalidation's included).
final class ClearMarkRead: Sendable {
    private enum State {
        case unread
        case read(CacheClearMark?)
    }

    private let state = Locked(State.unread)

    /// The mark the exchange's stores carry; nil when none was read (the storage then refuses a
    /// store into a partition it knows was cleared).
    var mark: CacheClearMark? {
        state.withLock { state in
            if case .read(let mark) = state { return mark }
            return nil
        }
    }

    /// Keeps `mark` unless one was read already: an earlier mark is the one a clear since the
    /// request left must beat.
    func noteRead(_ mark: CacheClearMark?) {
        state.withLock { state in
            if case .unread = state { state = .read(mark) }
        }
    }

    /// Reads the mark before a request leaves, when no lookup has: a failed read leaves none.
    func readIfUnread(from storage: ObservedStorage, partition: String) async {
        guard case .unread = state.withLock({ $0 }) else { return }
        noteRead(try? await storage.clearMark(of: partition))
    }
}
