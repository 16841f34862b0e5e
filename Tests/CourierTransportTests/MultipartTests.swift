import Courier
import CourierTesting
import Foundation
import Testing

/// Multipart forms arrive framed per RFC 7578, their files streamed from disk, with an exact length.
@Suite struct MultipartTests {
    private struct Post: Endpoint {
        typealias Response = JSON
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/photos" }
        var form: MultipartForm
        var body: RequestBody? { .multipart(form) }
        /// As with an idempotency key: safe to send twice.
        var isIdempotent: Bool { true }
    }

    /// The file's bytes followed by a line that looks like a boundary, to show the framing doesn't depend on content.
    private static let photo = Array(transferBytes.prefix(300_000)) + Array("\r\n--courier-\r\n".utf8)

    private func withPhoto<T>(_ body: (URL) async throws -> T) async throws -> T {
        try await withFolder { folder in
            let file = folder.appendingPathComponent("sunset.jpg")
            try Data(Self.photo).write(to: file)
            return try await body(file)
        }
    }

    /// The parts of a `multipart/form-data` body: each part's header lines and its bytes.
    private func parts(of request: RecordedRequest) throws -> [(headers: [String], body: [UInt8])] {
        let contentType = try #require(request.header("Content-Type"))
        let boundary = try #require(contentType.components(separatedBy: "boundary=").last)
        let delimiter = Array("--\(boundary)".utf8)
        var sections: [[UInt8]] = []
        var rest = request.body[...]
        while let range = rest.firstRange(of: delimiter) {
            sections.append(Array(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        #expect(Array(rest) == Array("--\r\n\r\n".utf8) || Array(rest) == Array("--\r\n".utf8))
        #expect(sections.first == [])
        return try sections.dropFirst().map { section in
            // CRLF, header lines, an empty line, the bytes, CRLF.
            #expect(section.starts(with: Array("\r\n".utf8)) && section.suffix(2) == Array("\r\n".utf8)[...])
            let inner = section.dropFirst(2).dropLast(2)
            let split = try #require(inner.firstRange(of: Array("\r\n\r\n".utf8)))
            let headers = String(decoding: inner[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            return (headers, Array(inner[split.upperBound...]))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func fieldsAndFilesArriveFramedWithAnExactLength(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("POST", "/photos", respond: .json("{}"))
            try await withPhoto { file in
                let form = MultipartForm([
                    .field("caption", "Sunset über Zürich"),
                    .file("photo", file, contentType: "image/jpeg"),
                    .data("meta", Data("{\"iso\":100}".utf8), filename: "meta.json", contentType: "application/json"),
                ])
                _ = try await client.send(Post(form: form))
            }
            let request = try #require(server.recordedRequests.first)
            #expect(request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
            #expect(request.header("Content-Length") == String(request.body.count))
            let parts = try parts(of: request)
            try #require(parts.count == 3)
            #expect(parts[0].headers.map { $0.lowercased() } == [#"content-disposition: form-data; name="caption""#])
            #expect(String(decoding: parts[0].body, as: UTF8.self) == "Sunset über Zürich")
            #expect(Set(parts[1].headers.map { $0.lowercased() }) == [
                #"content-disposition: form-data; filename="sunset.jpg"; name="photo""#, "content-type: image/jpeg",
            ])
            #expect(parts[1].body == Self.photo)
            #expect(parts[2].body == Array("{\"iso\":100}".utf8))
            // RFC 7578 §4.8: no other fields in a part.
            #expect(!parts.flatMap(\.headers).contains { $0.lowercased().hasPrefix("content-length") })
        }
    }

    /// Over 1 MiB a form streams with its announced length: a length off by a byte fails the upload.
    @Test(arguments: TransportKind.allCases)
    func aFormLargerThanAMegabyteStreamsWithItsExactLength(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("POST", "/photos", respond: .json("{}"))
            try await withFolder { folder in
                let file = folder.appendingPathComponent("large.jpg")
                try Data(transferBytes).write(to: file)
                let form = MultipartForm([
                    .field("caption", "Large"), .file("photo", file, contentType: "image/jpeg"), .field("album", "2026"),
                ])
                _ = try await client.send(Post(form: form))
            }
            let request = try #require(server.recordedRequests.first)
            let parts = try parts(of: request)
            try #require(parts.count == 3)
            #expect(parts[1].body == transferBytes)
            #expect(String(decoding: parts[2].body, as: UTF8.self) == "2026")
        }
    }

    @Test func namesThatCouldBreakTheFramingArePercentEncoded() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("POST", "/photos", respond: .json("{}"))
            let form = MultipartForm([.data("photo\"", Data([1, 2, 3]), filename: "a\"b\r\nX-Injected: 1.jpg")])
            _ = try await client.send(Post(form: form))
            let request = try #require(server.recordedRequests.first)
            let parts = try parts(of: request)
            try #require(parts.count == 1)
            #expect(parts[0].headers.contains(#"content-disposition: form-data; filename="a%22b%0D%0AX-Injected: 1.jpg"; name="photo%22""#))
            #expect(!parts[0].headers.contains { $0.lowercased().hasPrefix("x-injected") })
            #expect(parts[0].body == [1, 2, 3])
        }
    }

    @Test func aRetriedFormSendsItsFilesAgainWhole() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("POST", "/photos", script: [.status(503), .json("{}")])
        let client = clientRetryingOnce(server)
        try await withPhoto { file in
            _ = try await client.send(Post(form: MultipartForm([.file("photo", file)])))
        }
        let requests = server.recordedRequests
        #expect(requests.count == 2)
        #expect(try requests.map { try parts(of: $0).first?.body } == [Self.photo, Self.photo])
    }

    @Test func aMissingFileFailsWithAFileError() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("POST", "/photos", respond: .json("{}"))
            let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-no-such-\(UUID().uuidString).jpg")
            let error = await #expect(throws: CourierError.self) { try await client.send(Post(form: MultipartForm([.file("photo", missing)]))) }
            #expect(error?.kind == .file)
            #expect(server.recordedRequests.isEmpty)
        }
    }
}
