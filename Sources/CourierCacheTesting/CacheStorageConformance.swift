import CourierCache
import Foundation

/// The behaviour every `CacheStorage` owes `HTTPCache`, as checks a storage's author runs against
/// their own storage (Redis, DynamoDB, a file format): the same checks Courier's SQLite, memory
/// and PostgreSQL storages pass.
///
/// Give it a way to make an empty storage of a given size limit, run for one check and then
/// dropped, and read the violations; none means the storage conforms. Each check names what it
/// covers (``Check``); run them one by one to see which fails, or all at once:
///
/// ```swift
/// @Test(arguments: CacheStorageConformance.Check.allCases)
/// func myStorageConforms(check: CacheStorageConformance.Check) async {
///     let conformance = CacheStorageConformance { maximumSize, use in
///         let storage = try await RedisCacheStorage.connect(to: testServer, maximumSize: maximumSize)
///         try await storage.removeAll(.everything)
///         try await use(storage)
///     }
///     let violations = await conformance.violations(of: check)
///     #expect(violations.isEmpty, "\(violations)")
/// }
/// ```
///
/// The checks use this module's public API only, as a storage in another package does; they don't
/// depend on a test framework, so XCTest and Swift Testing both can call them.
public struct CacheStorageConformance: Sendable {
    /// Makes an empty storage whose size limit is `maximumSize` bytes, passes it to `use`, and
    /// cleans up after `use` returns or throws.
    public typealias Storages = @Sendable (_ maximumSize: Int, _ use: (any CacheStorage) async throws -> Void) async throws -> Void

    /// One behaviour a storage owes `HTTPCache`.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Bodies with every byte value, the status, the header fields in order with duplicates
        /// and both dates come back as stored.
        case roundTrip
        /// An empty body is a body, not a missing one.
        case emptyBody
        /// A lookup brings bodies up to its inline limit along; a larger body, and any slice of it,
        /// streams from the storage; a range past the end reads nothing.
        case inlineBodiesAndSlices
        /// Each vary selection of a key is its own variant, oldest first.
        case variants
        /// Storing a selection again replaces it under a new id; the old id reads nothing.
        case replacement
        /// A header update after a `304` keeps the id and the body; a removed variant can be
        /// neither removed nor updated again.
        case headerUpdate
        /// Partitions are apart, even names that start alike.
        case partitions
        /// A lookup brings the variants `variants(of:inlineBodyLimit:)` does. A storage that keeps
        /// clear marks gives one with every lookup, a miss included, and a higher one after a clear
        /// of the partition (only); a store with the mark read before that clear, or with none,
        /// stores nothing, and one with the mark read after it is stored.
        case clearMarks
        /// A storage that keeps flights (many processes share it; see `CacheFlightClaim`): a
        /// lookup that finds nothing claims the key's flight for its claimant, tells another
        /// claimant to wait (while its own claim is nothing to wait on), and gives the claimant its
        /// own claim again; a flight is per key and
        /// partition, ends when the key is stored or its claimant ends it (no one else can), and
        /// runs out after its duration; a lookup of a stored key claims nothing, a direct claim
        /// (a revalidation's) claims whatever is stored. A storage of one process claims nothing.
        case flights
        /// `variants(in:)` lists a partition's variants, or all of them, oldest first.
        case listing
        /// Each removal scope takes what it names and nothing else.
        case removalScopes
        /// A removal under a prefix takes the prefix and what is below it, never a sibling that
        /// only starts alike; `%` and `_` match only themselves.
        case removalUnderAPrefix
        /// At the size limit, the least recently used variant goes first, and a recorded use
        /// changes the order.
        case leastRecentlyUsedEviction
        /// Without uses, the oldest variants go first, as many at once as a larger response needs.
        case oldestFirstEviction
        /// A revalidation (a header update) counts as a use.
        case revalidationIsAUse
        /// A response larger than the limit is refused, and drops the variant it would replace.
        case tooLarge
        /// A limit of zero, or less, stores nothing.
        case noRoom
        /// A body from a file is stored whole; a file that changed after it was opened stores
        /// nothing and fails with `CourierError.Kind.file`.
        case fileBodies
        /// Many tasks store and read at once: no torn read, the totals add up.
        case concurrentUse

        /// The check's name.
        public var description: String { rawValue }
    }

    /// A behaviour a storage fell short of.
    public struct Violation: Sendable, Hashable, CustomStringConvertible {
        /// The check that found it.
        public let check: Check
        /// What was expected and what the storage did instead.
        public let message: String

        /// `check: message`.
        public var description: String { "\(check): \(message)" }
    }

    let storages: Storages

    /// Checks for the storages `storages` makes, a new one for each check.
    public init(storages: @escaping Storages) {
        self.storages = storages
    }

    /// What `check` found wrong: empty when the storage passes it. An error the storage throws,
    /// or one making it, is a violation too.
    public func violations(of check: Check) async -> [Violation] {
        let recorder = Recorder(check: check)
        do {
            try await run(check, recording: recorder)
        } catch is Recorder.Stop {
            // A requirement failed; it recorded why.
        } catch {
            recorder.record("threw \(String(reflecting: error))")
        }
        return recorder.violations
    }

    /// What every check found wrong, in the order of `Check.allCases`.
    public func violations() async -> [Violation] {
        var all: [Violation] = []
        for check in Check.allCases { all += await violations(of: check) }
        return all
    }
}
