import Courier

/// Ids of variants used since the last write, oldest use first, each once.
final class PendingTouches: Sendable {
    /// How many uses are collected before they are written.
    static let flushThreshold = 64

    private let ids = Locked<[Int64]>([])

    /// Records a use; returns true when enough have piled up to write them.
    func record(_ id: Int64) -> Bool {
        ids.withLock { ids in
            ids.removeAll { $0 == id }
            ids.append(id)
            return ids.count >= Self.flushThreshold
        }
    }

    /// Whether any use waits to be written.
    var hasAny: Bool { ids.withLock { !$0.isEmpty } }

    /// Takes every recorded use, oldest first.
    func drain() -> [Int64] {
        ids.withLock { ids in
            defer { ids = [] }
            return ids
        }
    }
}
