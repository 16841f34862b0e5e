import Foundation

/// What the PostgreSQL storage throws besides postgres-nio's errors.
public enum PostgresCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An operation took longer than the storage's timeout.
    case timedOut(operation: String, after: Duration)
    /// The database holds tables of a later schema version than this library knows.
    case newerSchema(Int)
    /// A variant's body was replaced or removed while it was read.
    case bodyGone(id: Int64)
    /// Operations given up on at their timeout still run (the database hangs): the storage takes
    /// no new ones until fewer than four do.
    case stalled(abandoned: Int)
    /// The key secret values are hashed with is shorter than 32 bytes (the app's, or the one in
    /// the database).
    case shortSecretKey(bytes: Int)

    /// What went wrong.
    public var description: String {
        switch self {
        case .timedOut(let operation, let after): "The cache database didn't answer \(operation) within \(after)"
        case .newerSchema(let version): "The cache tables are at schema version \(version), newer than this library's"
        case .bodyGone(let id): "The body of stored variant \(id) was replaced or removed while it was read"
        case .stalled(let abandoned): "The cache database hangs: \(abandoned) operations given up on still run"
        case .shortSecretKey(let bytes): "The cache's secret key has \(bytes) bytes; it needs at least 32"
        }
    }
}
