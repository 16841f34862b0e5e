import Courier

extension CacheKey {
    /// Whether one of the key's strings holds a NUL byte. The store keeps no variant under such a
    /// key: GRDB binds a text up to its first NUL, so `a<NUL>b` would read, and clear, `a`'s rows
    /// (PostgreSQL's text can't hold a NUL at all; ``HTTPCache`` escapes NUL in the partitions it makes).
    var holdsNUL: Bool {
        method.holdsNUL || url.holdsNUL || partition.holdsNUL
    }
}

extension CacheScope {
    /// Whether the scope names a URL, prefix or partition holding a NUL byte, under which the
    /// store keeps nothing (see ``CacheKey/holdsNUL``).
    var holdsNUL: Bool {
        switch self {
        case .url(let text, let partition), .under(let text, let partition): text.holdsNUL || partition?.holdsNUL == true
        case .partition(let partition): partition.holdsNUL
        case .everything: false
        }
    }
}
