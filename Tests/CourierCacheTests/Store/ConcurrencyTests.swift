import CourierCache
import CourierTestSupport
import Foundation
import GRDB
import HTTPTypes
import Testing

@Suite struct ConcurrencyTests {
    @Test func twoStoresOnOneFileWriteConcurrently() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("shared.sqlite")
            let first = try SQLiteCacheStorage(fileURL: file, maximumSize: 50_000_000)
            let second = try SQLiteCacheStorage(fileURL: file, maximumSize: 50_000_000)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (name, store) in [("first", first), ("second", second)] {
                    group.addTask {
                        for index in 0..<40 {
                            try await StoreFixtures.put(store, StoreFixtures.key("\(name)/\(index)"), body: StoreFixtures.randomBody(2000))
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await first.totals().count == 80)
            let written = try #require(try await first.variants(for: StoreFixtures.key("second/39")).first)
            #expect(try await first.body(of: written)?.count == 2000)
        }
    }

    #if os(Linux) || os(macOS)
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func anotherProcessWritesWhileTheStoreWorks() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("shared.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 50_000_000)
            let writer = try ChildProcess("/usr/bin/python3", ["-c", Self.pythonWriter, file.path, "60"])
            for index in 0..<60 {
                try await StoreFixtures.put(store, StoreFixtures.key("swift/\(index)"), body: StoreFixtures.randomBody(1000))
                _ = try await store.variants(for: StoreFixtures.key("python/\(index)"))
            }
            #expect(await writer.exitCode() == 0)
            #expect(try await store.totals().count == 120)
            let fromPython = try #require(try await store.variants(for: StoreFixtures.key("python/59", partition: "py")).first)
            #expect(fromPython.headers[values: .contentType] == ["text/plain"])
            #expect(try await store.body(of: fromPython) == Data("python body 59\0end".utf8))
        }
    }

    /// Inserts N entries with bodies, one IMMEDIATE transaction each, into the file given as argv[1].
    static let pythonWriter = """
        import os, sqlite3, sys, json, time
        # Descriptors inherited from the test process (its sockets, its stores' files) are closed at once.
        fds = "/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"
        for fd in [int(name) for name in os.listdir(fds)]:
            if fd > 2:
                try: os.close(fd)
                except OSError: pass
        db = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
        db.execute("PRAGMA foreign_keys = ON")
        vary = json.dumps({"names": [], "values": {}}).encode()
        headers = json.dumps([["Content-Type", "text/plain"]]).encode()
        for i in range(int(sys.argv[2])):
            body = ("python body %d\\0end" % i).encode()
            db.execute("BEGIN IMMEDIATE")
            cur = db.execute(
                "INSERT INTO entry (method, url, partitionKey, varyKey, vary, status, headers, requestTime, responseTime,"
                " bodySize, metaSize, storedAt, lastAccess, accessOrder) VALUES ('GET', ?, 'py', '', ?, 200, ?, ?, ?, ?, 200, ?, ?,"
                " (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry))",
                ("https://api.example.com/python/%d" % i, vary, headers, time.time(), time.time(), len(body), time.time(), time.time()))
            db.execute("INSERT INTO body (entryId, data) VALUES (?, ?)", (cur.lastrowid, body))
            db.execute("COMMIT")
            time.sleep(0.002)
        db.close()
        """
    #endif
}
