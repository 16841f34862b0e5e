import CourierCache
import CourierCachePostgres
import Foundation
import GRDB
import PostgresNIO
import Testing

/// A stored body whose bytes are not as many as its entry records (a file damaged on disk, a
/// row changed by hand or by another program) is never served, whole or streamed: the variant
/// is left out of a lookup that reads bodies, and its stream is not opened.
@Suite(.timeLimit(.minutes(3))) struct RecordedLengthTests {
    static let recorded = Data(repeating: 7, count: 100)

    /// What a storage with a tampered body answers: a lookup that reads bodies, one that doesn't,
    /// and the stream of the listed variant.
    static func answers(_ storage: any CacheStorage, _ key: CacheKey) async throws -> (inline: Int, listed: Int, streamed: Bool) {
        let inline = try await storage.variants(of: key, inlineBodyLimit: 1_000)
        let listed = try await storage.variants(of: key, inlineBodyLimit: 0)
        var streamed = false
        if let variant = listed.first { streamed = try await storage.body(of: variant.metadata, offsets: 0..<100) != nil }
        return (inline.count, listed.count, streamed)
    }

    @Test(arguments: [Data(repeating: 7, count: 3), Data(repeating: 7, count: 150)])
    func aSQLiteBodyOfAnotherLengthIsNotServed(tampered: Data) async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let key = StoreFixtures.key("/short")
            _ = try #require(try await StoreFixtures.put(store, key, body: Self.recorded))
            #expect(try await Self.answers(store, key) == (1, 1, true))

            let database = try DatabaseQueue(path: file.path)
            try await database.write { db in try db.execute(sql: "UPDATE body SET data = ?", arguments: [tampered]) }
            #expect(try await Self.answers(store, key) == (0, 1, false))
            await store.close()
        }
    }

    @Test(.enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"), arguments: [3, 150])
    func aPostgreSQLBodyOfAnotherLengthIsNotServed(tamperedLength: Int) async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            let key = StoreFixtures.key("/short")
            _ = try #require(try await StoreFixtures.put(storage, key, body: Self.recorded))
            #expect(try await Self.answers(storage, key) == (1, 1, true))

            let tampered = Data(repeating: 7, count: tamperedLength)
            try await client.query("UPDATE courier_cache_chunk SET data = \(tampered)")
            #expect(try await Self.answers(storage, key) == (0, 1, false))
        }
    }
}
