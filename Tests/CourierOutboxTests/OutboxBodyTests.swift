import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Every kind of body is kept as it would be sent: bytes in the database, a multipart form with a
/// file written to the outbox's own file (so the app's copy may go), a gzipped body compressed once.
@Suite(.timeLimit(.minutes(3))) struct OutboxBodyTests {
    struct PhotoUpload: Endpoint {
        typealias Response = Data
        let photo: URL
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/photos" }
        var body: RequestBody? {
            .multipart(MultipartForm([.field("caption", "Sunset"), .file("photo", photo, filename: "sunset.jpg", contentType: "image/jpeg")]))
        }
    }

    struct SaveForm: Endpoint {
        typealias Response = Data
        var method: HTTPRequest.Method { .patch }
        var path: EndpointPath { "/profile" }
        var body: RequestBody? { .form(["name": "Ann Lee", "city": "Paris"]) }
    }

    struct SendLog: Endpoint {
        typealias Response = Data
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/logs" }
        var body: RequestBody? { .text(String(repeating: "line of a log\n", count: 500)).gzipped() }
    }

    @Test(arguments: Transport.allCases)
    func formsFilesAndCompressedBodiesArriveAsTheyWereBuilt(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, clock, folder in
            server.route(nil, "/*", respond: .status(204))
            let photo = folder.deletingLastPathComponent().appendingPathComponent("photo-\(UUID().uuidString).jpg")
            let pixels = Data((0 ..< 50_000).map { UInt8($0 % 251) })
            try pixels.write(to: photo)
            try await server.goDown()
            try await outbox.enqueue(PhotoUpload(photo: photo), group: "photos")
            try await outbox.enqueue(SaveForm(), group: "profile")
            try await outbox.enqueue(SendLog(), group: "logs")
            // Each first attempt has failed and backs off before the server is back: `flush` ends
            // those waits (an attempt still under way when the server came back would wait again).
            await clock.waitForSleepers(count: 3)
            // The app's file may go once the write is kept.
            try FileManager.default.removeItem(at: photo)
            try await server.comeUp()
            await outbox.flush()
            #expect(try await outbox.items().isEmpty)

            let requests = Dictionary(uniqueKeysWithValues: server.recordedRequests.map { ($0.path, $0) })
            let upload = try #require(requests["/photos"])
            let boundary = try #require(upload.header("Content-Type")?.split(separator: "=").last.map(String.init))
            #expect(upload.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(Data(upload.body).range(of: pixels) != nil)
            #expect(upload.bodyText.contains("--\(boundary)--"))
            #expect(upload.bodyText.contains("Sunset"))

            let form = try #require(requests["/profile"])
            #expect(form.method == "PATCH")
            #expect(form.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(Set(form.bodyText.split(separator: "&")) == ["name=Ann%20Lee", "city=Paris"])

            let log = try #require(requests["/logs"])
            #expect(log.header("Content-Encoding") == "gzip")
            #expect(log.body.prefix(2) == [0x1f, 0x8b])
            #expect(log.body.count < 500)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bodies").path).isEmpty)
        }
    }
}
