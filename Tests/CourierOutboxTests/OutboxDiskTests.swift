import Courier
import CourierAsyncHTTPClient
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import GRDB
import Logging
import Testing

/// The outbox's files against what an app, another version of it and a damaged disk do to them:
/// a bad row stops nothing but itself, a failing storage is seen, no credential is written, and
/// one folder has one outbox.
@Suite(.timeLimit(.minutes(3))) struct OutboxDiskTests {
    @Test(arguments: Transport.allCases)
    func anUnreadableRowParksAloneAndEverythingElseGoesOn(_ transport: Transport) async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                let client = signedInClient(server, transport)
                try await server.goDown()
                let first = try Outbox(client: client, folder: folder, clock: ManualClock(), random: { 1 })
                let damaged = try await first.enqueue(PostMessage(conversation: 1, text: "damaged"), group: "a")
                try await first.enqueue(PostMessage(conversation: 1, text: "after damaged"), group: "a")
                try await first.enqueue(PostMessage(conversation: 2, text: "fine"), group: "b")
                let unknownState = try await first.enqueue(PostMessage(conversation: 3, text: "unknown state"), group: "c")
                await first.stop()

                // As another version of the app, or a damaged disk, could leave them.
                let database = try DatabaseQueue(path: folder.appendingPathComponent("outbox.sqlite").path)
                try await database.write { db in
                    try db.execute(sql: "UPDATE item SET request = x'7b6e6f74' WHERE id = ?", arguments: [damaged.id.rawValue])
                    try db.execute(sql: "UPDATE item SET state = 'flying' WHERE id = ?", arguments: [unknownState.id.rawValue])
                }
                try await server.comeUp()

                let outbox = try Outbox(client: client, folder: folder, clock: ManualClock(), random: { 1 })
                let changes = outbox.changes()
                await outbox.flush()
                #expect(texts(server) == ["fine"])
                let items = try await outbox.items()
                #expect(items.map(\.id) == [damaged.id, items[1].id, unknownState.id])
                #expect(items.map(\.state) == [.parked, .waiting, .parked])
                #expect(items[0].lastFailure?.reason == .unreadable && items[2].lastFailure?.reason == .unreadable)
                #expect(items[0].lastFailure?.detail.contains("can't be decoded") == true)
                let parked = await collect(changes, count: 4).filter { $0.name == "parked" }.compactMap(\.item?.id)
                #expect(Set(parked) == [damaged.id, unknownState.id])
                // Its bytes stay for support.
                let kept = try await database.read { db in try Data.fetchOne(db, sql: "SELECT request FROM item WHERE id = ?", arguments: [damaged.id.rawValue]) }
                #expect(kept == Data("{not".utf8))

                try await outbox.discard(damaged.id)
                await outbox.flush()
                #expect(texts(server) == ["fine", "after damaged"])
                #expect(try await outbox.clear(identity: "alice").map(\.id) == [unknownState.id])
                #expect(try await outbox.items().isEmpty)
                await outbox.stop()
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func aFailingStorageIsLoggedAndSentOnceAndSendingGoesOnWhenItWorks(_ transport: Transport) async throws {
        let recorder = LogRecorder()
        try await withOutbox(transport, logger: recorder.logger(level: .notice)) { server, outbox, clock, folder in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "kept"))
            await clock.waitForSleepers(count: 1)
            let changes = outbox.changes()
            let database = try DatabaseQueue(path: folder.appendingPathComponent("outbox.sqlite").path)
            try await database.write { db in try db.execute(sql: "ALTER TABLE item RENAME TO away") }
            try await server.comeUp()
            await outbox.flush()
            await #expect(throws: OutboxError.self) { try await outbox.items() }
            #expect(server.recordedRequests.isEmpty)

            try await database.write { db in try db.execute(sql: "ALTER TABLE away RENAME TO item") }
            await clock.waitForSleepers(count: 1)
            clock.advance(by: .seconds(3600))
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(texts(server) == ["kept"])
            #expect(await collect(changes, count: 4).map(\.name) == ["storageFailed", "storageWorksAgain", "sending", "sent"])
            #expect(recorder.entries.filter { $0.level == .error }.count == 1)
            #expect(recorder.entries.filter { $0.level == .notice }.count == 1)
        }
    }

    @Test(arguments: Transport.allCases)
    func noCredentialReachesTheFileWhateverTheAppsSecretList(_ transport: Transport) async throws {
        try await withOutbox(transport, configure: { $0.redaction.headerNames = ["x-tenant-secret"] }) { server, outbox, clock, folder in
            acceptMessages(on: server)
            try await server.goDown()
            let item = try await outbox.enqueue(WithOwnCredentials())
            await clock.waitForSleepers(count: 1)
            var written = Data()
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("outbox.sqlite") {
                written.append(try Data(contentsOf: folder.appendingPathComponent(name)))
            }
            let text = String(decoding: written, as: UTF8.self)
            #expect(text.contains("visible-value"))
            for secret in ["endpoint-own-secret", "proxy-secret", "cookie-secret", "auth-token-secret", "tenant-secret"] {
                #expect(!text.contains(secret), "\(secret) was written")
            }
            // The field's value as sent (a quoted string); JSON in the file escapes its quotes.
            let key = try #require(item.idempotencyKey).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            #expect(key.count == 36 && text.contains(key))
        }
    }

    @Test func oneFolderHasOneOutboxUntilItStops() async throws {
        try await withServer { server in
            try await withFolder { folder in
                let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
                let first = try Outbox(client: client, folder: folder)
                #expect {
                    try Outbox(client: client, folder: folder)
                } throws: { error in
                    guard case .folderInUse = error as? OutboxError else { return false }
                    return true
                }
                await first.stop()
                let second = try Outbox(client: client, folder: folder)
                await second.stop()
            }
        }
    }
}

/// A write whose endpoint sets credential fields of its own, and one the app calls secret.
struct WithOwnCredentials: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/conversations/1/messages" }
    var body: RequestBody? { .json(["text": "hello"]) }
    var headers: HTTPFields {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer endpoint-own-secret"
        fields[.proxyAuthorization] = "Basic proxy-secret"
        fields[.cookie] = "session=cookie-secret"
        fields[HTTPField.Name("X-Auth-Token")!] = "auth-token-secret"
        fields[HTTPField.Name("X-Tenant-Secret")!] = "tenant-secret"
        fields[HTTPField.Name("X-Visible")!] = "visible-value"
        return fields
    }
}

/// What an app, or a file another version of it left, can't slip past the outbox's text columns:
/// SQLite would keep a group or an identity up to its NUL byte (another group's, another user's),
/// and a group of another type belongs to no lane.
@Suite(.timeLimit(.minutes(3))) struct OutboxRowTextTests {
    @Test func aGroupOrAnIdentityHoldingNULIsRefused() async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                let store = CredentialStore(.bearer("token-of-alice", identity: "alice"))
                let outbox = try Outbox(client: signedInClient(server, .asyncHTTPClient, store: store), folder: folder, clock: ManualClock())
                await #expect {
                    try await outbox.enqueue(PostMessage(conversation: 1, text: "x"), group: "a\u{0}b")
                } throws: { error in
                    if case OutboxError.invalidRequest = error { true } else { false }
                }
                store.update(.bearer("token-of-mallory", identity: "alice\u{0}mallory"))
                await #expect {
                    try await outbox.enqueue(PostMessage(conversation: 1, text: "x"))
                } throws: { error in
                    if case OutboxError.invalidRequest = error { true } else { false }
                }
                #expect(try await outbox.items().isEmpty)
                await outbox.stop()
                #expect(server.recordedRequests.isEmpty)
            }
        }
    }

    @Test func aGroupOfAnotherTypeParksItsRowAlone() async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                let client = signedInClient(server, .asyncHTTPClient)
                try await server.goDown()
                let first = try Outbox(client: client, folder: folder, clock: ManualClock(), random: { 1 })
                let damaged = try await first.enqueue(PostMessage(conversation: 1, text: "damaged"), group: "a")
                try await first.enqueue(PostMessage(conversation: 2, text: "fine"), group: "b")
                await first.stop()
                let database = try DatabaseQueue(path: folder.appendingPathComponent("outbox.sqlite").path)
                try await database.write { db in
                    try db.execute(sql: "UPDATE item SET grp = x'00ff' WHERE id = ?", arguments: [damaged.id.rawValue])
                }
                try await server.comeUp()

                let outbox = try Outbox(client: client, folder: folder, clock: ManualClock(), random: { 1 })
                await outbox.flush()
                #expect(texts(server) == ["fine"])
                let items = try await outbox.items()
                #expect(items.map(\.id) == [damaged.id] && items.map(\.state) == [.parked])
                #expect(items.first?.lastFailure?.reason == .unreadable)
                #expect(items.first?.lastFailure?.detail.contains("group") == true)
                await outbox.stop()
            }
        }
    }
}
