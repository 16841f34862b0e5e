#if os(Linux)
import CourierCache
import CourierTestSupport
import Foundation
import Glibc
import OpenAPIRuntime
import Testing

/// A process out of file descriptors can't open the cache's file (`EMFILE`, SQLite's
/// `SQLITE_CANTOPEN`): the file is healthy, so it is neither moved aside nor deleted, and once
/// descriptors are free the store answers from it again. Run in a process of its own, whose
/// descriptor limit the test lowers: the other tests of the run keep theirs.
@Suite struct DescriptorExhaustionTests {
    static var isChild: Bool { ProcessInfo.processInfo.environment["COURIER_EMFILE"] == "child" }

    @Test(.enabled(if: ChildProcess.canRunATest && !isChild))
    func runningOutOfDescriptorsCostsTheStoreNothing() async throws {
        let (status, output) = try await ChildProcess.runTest(
            "DescriptorExhaustionTests/theStoreOutOfDescriptors", environment: ["COURIER_EMFILE": "child"], bound: .seconds(120))
        let report = output.split(separator: "\n").filter { $0.hasPrefix("descriptors:") }
        #expect(status == 0, "\(report)")
        #expect(report.contains("descriptors: the body could not be opened while none were free"), "\(report)")
        #expect(report.contains("descriptors: the same file, its entry served again"), "\(report)")
    }

    /// The child's half; run only by the test above.
    @Test(.enabled(if: isChild))
    func theStoreOutOfDescriptors() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 22)
            let key = StoreFixtures.key("/large")
            let body = Data(repeating: 7, count: 200_000)
            let stored = try #require(try await StoreFixtures.put(store, key, body: body))
            let inode = try #require(Self.inode(of: file))

            var limit = rlimit()
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            getrlimit(resource, &limit)
            var lowered = limit
            lowered.rlim_cur = 256
            setrlimit(resource, &lowered)
            var held: [Int32] = []
            while true {
                let descriptor = open("/dev/null", O_RDONLY)
                guard descriptor >= 0 else { break }
                held.append(descriptor)
            }
            // A streamed body opens a connection of its own: it can't now.
            let opened = (try? await store.body(of: stored, offsets: 0..<body.count)) != nil
            for descriptor in held { close(descriptor) }
            setrlimit(resource, &limit)
            if !opened { ChildProcess.say("descriptors: the body could not be opened while none were free") }

            let served = try await store.body(of: stored, offsets: 0..<body.count)
            var bytes = Data()
            if let served { for try await chunk in served { bytes.append(contentsOf: chunk) } }
            if Self.inode(of: file) == inode, bytes == body, try await store.variants(of: key, inlineBodyLimit: 0).count == 1 {
                ChildProcess.say("descriptors: the same file, its entry served again")
            }
            await store.close()
        }
    }

    static func inode(of file: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file.path))?[.systemFileNumber] as? Int
    }
}
#endif
