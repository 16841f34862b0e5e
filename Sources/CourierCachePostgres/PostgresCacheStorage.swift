import Courier
import CourierCache
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// A `CacheStorage` in PostgreSQL, which a fleet of servers shares: what one stores,
/// the others serve; a revalidation, a removal or a user's sign-out is seen by all of them.
///
/// ```swift
/// let cache = HTTPCache(storage: PostgresCacheStorage(client: database, maximumSize: 2 << 30), logger: logger)
/// ```
///
/// The app runs `database`, postgres-nio's pool, for as long as it serves (in its service group;
/// the CourierCachePostgres article shows a whole server).
///
/// The tables (`courier_cache_*`) are created on first use and migrated by version, under a lock,
/// so instances starting together don't race. A lookup is one round trip that brings small bodies
/// along; a store of a body within one chunk is one round trip too (a function the server runs),
/// a larger body one transaction, written in chunks of ``chunkSize`` bytes (never one value in
/// memory); eviction reads a totals row, never the table, and takes the least recently used
/// variants without waiting on rows another instance is writing.
///
/// Each operation has ``timeout`` to finish: a database that is down, slow or refuses throws
/// within it, and `HTTPCache` then goes on to the network (logging once, counting
/// each failure). An operation the database leaves hanging is cancelled and left to end on its
/// own; while four of them still hold their connections, new operations are refused at once
/// (``PostgresCacheError/stalled(abandoned:)``), so a frozen database can't take the app's pool.
/// postgres-nio's pool reconnects on its own when the database is back.
public final class PostgresCacheStorage: CacheStorage {
    /// The size limit in bytes of the database's cache: each instance evicts down to its own limit
    /// when it stores, so give every instance of a fleet the same.
    public let maximumSize: Int
    /// How long one operation may take before it fails (and the call goes to the network).
    public let timeout: Duration
    /// How many body bytes one row holds.
    public let chunkSize: Int
    /// Shared: a database a fleet of servers shares serves their many end users, so `HTTPCache`
    /// applies a shared cache's rules (RFC 9111) unless the app says otherwise.
    public var sharing: CacheSharing { .shared }
    let client: PostgresClient
    let logger: Logger
    /// The app's own secret key, or nil for the one kept in the database.
    let appSecretKey: [UInt8]?
    /// The fewest bytes a secret key may have.
    static let minimumSecretKeySize = 32
    /// The seed that keeps the partitions' advisory locks apart from the keys' (seed 0).
    static let partitionLockSeed: Int64 = 1
    /// The time rows are stamped with.
    let now: @Sendable () -> Date
    /// The most operations left running after their timeout (each may hold a connection of the
    /// pool until the database answers) before new ones are refused at once.
    static let maximumAbandoned = 4
    /// Each operation's ``timeout``, and the operations given up on at it that haven't ended.
    let limit: StorageTimeLimit
    /// The schema's creation and the secret key, done once per instance (again after a failure).
    private let ready = NIOLockedValueBox<Task<[UInt8], any Error>?>(nil)

    /// A storage over an app's `PostgresClient` (which the app runs, and whose configuration holds
    /// the host, credentials and TLS).
    /// - Parameters:
    ///   - client: postgres-nio's pool.
    ///   - maximumSize: The size limit in bytes (bodies plus `CacheStorageSize`'s metadata).
    ///   - timeout: How long one operation may take; 2 seconds by default.
    ///   - chunkSize: How many body bytes one row holds; 256 KiB by default.
    ///   - logger: Where postgres-nio logs the storage's queries; silent by default.
    public convenience init(
        client: PostgresClient, maximumSize: Int, timeout: Duration = .seconds(2), chunkSize: Int = 256 << 10,
        logger: Logger = Logger(label: "courier.cache.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.init(client: client, maximumSize: maximumSize, timeout: timeout, chunkSize: chunkSize, logger: logger, appSecretKey: nil)
    }

    /// A storage that hashes secret values with the app's own key (from its secret store: the
    /// Keychain, a secrets manager), which is never written to the database: whoever reads the
    /// database alone can't test a guessed token against its hashes. Give every instance of a
    /// fleet the same key, and keep it as long as the stored entries (a new key makes every entry
    /// stored under a secret value unreachable).
    /// - Parameters:
    ///   - client: postgres-nio's pool.
    ///   - maximumSize: The size limit in bytes (bodies plus `CacheStorageSize`'s metadata).
    ///   - secretKey: At least 32 random bytes.
    ///   - timeout: How long one operation may take; 2 seconds by default.
    ///   - chunkSize: How many body bytes one row holds; 256 KiB by default.
    ///   - logger: Where postgres-nio logs the storage's queries; silent by default.
    /// - Throws: ``PostgresCacheError/shortSecretKey(bytes:)`` for a key under 32 bytes.
    public convenience init(
        client: PostgresClient, maximumSize: Int, secretKey: [UInt8], timeout: Duration = .seconds(2), chunkSize: Int = 256 << 10,
        logger: Logger = Logger(label: "courier.cache.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(PostgresCacheError) {
        guard secretKey.count >= Self.minimumSecretKeySize else { throw .shortSecretKey(bytes: secretKey.count) }
        self.init(client: client, maximumSize: maximumSize, timeout: timeout, chunkSize: chunkSize, logger: logger, appSecretKey: secretKey)
    }

    init(
        client: PostgresClient, maximumSize: Int, timeout: Duration, chunkSize: Int, logger: Logger, appSecretKey: [UInt8]?,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.client = client
        self.now = now
        self.maximumSize = maximumSize
        self.timeout = timeout
        self.limit = StorageTimeLimit(timeout: timeout, maximumAbandoned: Self.maximumAbandoned)
        self.chunkSize = max(chunkSize, 1)
        self.logger = logger
        self.appSecretKey = appSecretKey
    }

    /// The key every instance sharing the database hashes secret values with: the app's, when it
    /// gave one; otherwise made once, by the first instance to start, and kept in the database
    /// (readable by every role that can read the entries).
    public func secretKey() async throws -> [UInt8] {
        try await prepared()
    }

    /// Creates or migrates the tables and reads the secret key, once; a failure is tried again by
    /// the next operation.
    @discardableResult
    func prepared() async throws -> [UInt8] {
        let task = ready.withLockedValue { ready in
            if let ready { return ready }
            let task = Task { [client, logger, appSecretKey] in
                try await self.bounded("prepare") {
                    try await PostgresSchema.prepare(client, logger: logger, appKey: appSecretKey)
                }
            }
            ready = task
            return task
        }
        do {
            return try await task.value
        } catch {
            ready.withLockedValue { if $0 == task { $0 = nil } }
            throw error
        }
    }

    /// Runs `body` in one transaction of `client`, throwing the body's own error when it failed
    /// (postgres-nio wraps it with the rollback's).
    static func transaction<T: Sendable>(
        _ client: PostgresClient, logger: Logger, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { try await body($0) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error
        }
    }

    /// Runs one operation on a prepared database within ``timeout``.
    func run<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await prepared()
        return try await bounded(operation) { [client] in try await body(client) }
    }

    /// Runs `body` within ``timeout``, returning at the timeout even when the database hangs (the
    /// query is cancelled and left to end on its own); refused at once while
    /// ``maximumAbandoned`` such queries still run.
    private func bounded<T: Sendable>(_ operation: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard !limit.isSaturated else { throw PostgresCacheError.stalled(abandoned: limit.abandonedCount) }
        let timeout = timeout
        return try await limit.run(orThrow: { PostgresCacheError.timedOut(operation: operation, after: timeout) }, body)
    }
}
