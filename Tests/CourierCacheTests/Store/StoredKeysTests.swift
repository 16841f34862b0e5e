@testable import CourierCache
import Foundation
import Testing

@Suite struct StoredKeysTests {
    private let stored = StoreFixtures.key("stored")
    private let other = StoreFixtures.key("other")

    private func check(_ keys: StoredKeys, for key: CacheKey) throws -> StoredKeys.Check {
        guard case .check(let check) = keys.answer(for: key) else {
            Issue.record("expected a check")
            throw CancellationError()
        }
        return check
    }

    private func isStored(_ keys: StoredKeys, _ key: CacheKey) -> Bool? {
        switch keys.answer(for: key) {
        case .mayBeStored: true
        case .notStored: false
        case .check: nil
        }
    }

    @Test func answersOnlyOnceLoadedAndStartsOneCheckAtATime() throws {
        let keys = StoredKeys()
        let check = try check(keys, for: stored)
        #expect(check.needsLoad(version: 1))
        // While the check runs, every key may be stored and no second check starts.
        #expect(isStored(keys, other) == true)
        keys.finishCheck(check, version: 1, loaded: [stored])
        #expect(isStored(keys, stored) == true)
        #expect(isStored(keys, other) == false)
    }

    @Test func keysCommittedDuringACheckSurviveItsLoad() throws {
        let keys = StoredKeys()
        let check = try check(keys, for: stored)
        keys.add([other])
        keys.finishCheck(check, version: 1, loaded: [stored])
        #expect(isStored(keys, other) == true)
        keys.add([StoreFixtures.key("later")])
        #expect(isStored(keys, StoreFixtures.key("later")) == true)
    }

    @Test func aFailedCheckLetsEveryLookupReadTheFileWithoutCheckingAgainAtOnce() throws {
        let keys = StoredKeys()
        keys.finishCheck(try check(keys, for: stored), version: nil, loaded: nil)
        #expect(isStored(keys, other) == true)
        #expect(isStored(keys, stored) == true)
    }

    @Test func aSetGrownPastItsBoundIsForgottenAndLoadedAgain() throws {
        let keys = StoredKeys()
        keys.finishCheck(try check(keys, for: stored), version: 1, loaded: [stored])
        keys.add((0..<StoredKeys.slack).map { StoreFixtures.key("added-\($0)") })
        #expect(isStored(keys, other) == false)
        // Past twice the loaded count (one key) plus the slack.
        keys.add([StoreFixtures.key("one-more"), StoreFixtures.key("one-too-many")])
        // Forgotten: the next lookup reads the file and loads the set again.
        let again = try check(keys, for: other)
        #expect(again.needsLoad(version: 1))
    }

    @Test func aCheckThatEndsAfterTheSetWasForgottenLeavesTheNextCheckWhole() throws {
        let keys = StoredKeys()
        let stale = try check(keys, for: stored)
        keys.reset()
        let current = try check(keys, for: stored)
        keys.add([other])
        keys.finishCheck(stale, version: 1, loaded: [])
        // The key committed during the current check survives its load, whatever the stale one did.
        keys.finishCheck(current, version: 1, loaded: [])
        #expect(isStored(keys, other) == true)
    }

    @Test func aSetForgottenDuringACheckIsNotTrustedByIt() async throws {
        let keys = StoredKeys()
        keys.finishCheck(try check(keys, for: stored), version: 1, loaded: [stored])
        try await Task.sleep(for: StoredKeys.lifetime + .milliseconds(100))
        let unchanged = try check(keys, for: stored)
        keys.add((0...StoredKeys.slack + 2).map { StoreFixtures.key("added-\($0)") })
        // The file didn't change, but the set was forgotten meanwhile: `stored` must not read as absent.
        keys.finishCheck(unchanged, version: 1, loaded: nil)
        #expect(isStored(keys, stored) != false)
    }

    @Test func aCheckBegunBeforeTheFileWasReplacedIsIgnored() throws {
        let keys = StoredKeys()
        let stale = try check(keys, for: stored)
        keys.reset()
        keys.finishCheck(stale, version: 1, loaded: [])
        #expect(isStored(keys, stored) == nil)
    }

    @Test func afterItsLifetimeTheSetIsCheckedAndKeptWhileTheFileIsUnchanged() async throws {
        let keys = StoredKeys()
        keys.finishCheck(try check(keys, for: stored), version: 7, loaded: [stored])
        try await Task.sleep(for: StoredKeys.lifetime + .milliseconds(100))
        let again = try check(keys, for: stored)
        #expect(!again.needsLoad(version: 7))
        #expect(again.needsLoad(version: 8))
        keys.finishCheck(again, version: 7, loaded: nil)
        #expect(isStored(keys, stored) == true)
        #expect(isStored(keys, other) == false)
    }

    // Over a real file: what other stores write reaches a store whose set is loaded.

    /// Looks `key` up in `store` and waits until the set's check that lookup may have started is done.
    private func lookupAndSettle(_ store: CacheStore, _ key: CacheKey) async throws -> Data? {
        let found = try await store.lookup(key) { $0.first }?.body
        store.writerQueue.sync {}
        return found
    }

    @Test func anotherStoreOfThisProcessIsSeenAtOnce() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let mine = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let theirs = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            #expect(try await lookupAndSettle(mine, stored) == nil)
            #expect(try await lookupAndSettle(mine, stored) == nil)

            try await StoreFixtures.put(theirs, stored, body: Data("direct".utf8))
            #expect(try await mine.lookup(stored) { $0.first }?.body == Data("direct".utf8))

            _ = await theirs.enqueue(
                key: other, varySelection: .none, status: 200, headers: StoreFixtures.headers, body: Data("queued".utf8),
                requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0)
            await theirs.flush()
            #expect(try await mine.lookup(other) { $0.first }?.body == Data("queued".utf8))
        }
    }

    @Test func anotherProcessIsSeenWithinALifetime() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let mine = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            // Through a symbolic link the file is another path, so the two stores don't know of
            // each other, as in two processes.
            let link = directory.appendingPathComponent("link.sqlite")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
            let foreign = try CacheStore(fileURL: link, maximumSize: 1 << 20)
            #expect(try await lookupAndSettle(mine, stored) == nil)

            try await StoreFixtures.put(foreign, stored, body: Data("foreign".utf8))
            // Within a lifetime: a lookup begun once three have passed finds it (the one before
            // may start the check; settled, the next reads its result), however few lookups a
            // loaded machine fits in before.
            let deadline = ContinuousClock.now + StoredKeys.lifetime * 3
            var found: Data?
            var afterDeadline = 0
            while found == nil, afterDeadline < 2 {
                if ContinuousClock.now >= deadline { afterDeadline += 1 }
                found = try await lookupAndSettle(mine, stored)
                if found == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(found == Data("foreign".utf8))
        }
    }
}
