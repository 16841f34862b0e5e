// Files and streams through the same client: downloads that resume, uploads, forms, progress, streamed bodies.
//
// Runs against an in-process MockServer: `swift run Transfers`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
let report = Array(repeating: UInt8(ascii: "r"), count: 200_000)
server.route("GET", "/reports/11") { request in .ranged(report, for: request, etag: "\"nov\"") }
server.route("PUT", "/photos/42", respond: .json(#"{"id": 42}"#))
server.route("POST", "/photos", respond: .json(#"{"id": 43}"#))
server.route("GET", "/live", respond: .text("one\ntwo\n"))
let api = server.baseURL
let folder = FileManager.default.temporaryDirectory.appending(path: "courier-transfers-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let photoURL = folder.appending(path: "sunset.jpg")
try Data(repeating: 7, count: 50_000).write(to: photoURL)
var saved: ResumableDownload?
// snippet.show
import Courier
import Foundation
import HTTPTypes

struct MonthlyReport: Endpoint {
    typealias Response = Data
    var month: Int
    var path: EndpointPath { "/reports/\(month)" }
}
let client = Client(baseURL: api, middlewares: [RetryMiddleware()])

// snippet.download
// The body streams into a temporary file beside the destination, renamed over it only
// when complete. Progress: at most 20 updates a second, never backwards, a last one at the end.
let file = try await client.download(MonthlyReport(month: 11), to: folder.appending(path: "november.pdf")) { progress in
    print(progress.completedBytes, progress.fractionCompleted ?? 0)
}
// snippet.end

// snippet.resume
// A download cut after some bytes keeps its partial file when the response had a validator;
// the error says where to go on from (Codable: keep it across launches). With RetryMiddleware
// in the chain a cut download resumes by itself; this is for the next launch.
do {
    _ = try await client.download(MonthlyReport(month: 11), to: folder.appending(path: "again.pdf"))
} catch {
    saved = error.resumableDownload            // nil when the download can't be resumed
}
if let saved {
    _ = try await client.download(MonthlyReport(month: 11), to: folder.appending(path: "again.pdf"), resumingFrom: saved)
}
// snippet.end

// snippet.upload
// A file is read 64 KiB at a time as it is sent; `.data` and `.stream` send bytes and
// async sequences of bytes.
struct Photo: Codable, Sendable { var id: Int }
struct UploadPhoto: Endpoint {
    typealias Response = Photo
    var file: URL
    var method: HTTPRequest.Method { .put }
    var path: EndpointPath { "/photos/42" }
    var body: RequestBody? { .file(file, contentType: "image/jpeg") }
}
let photo = try await client.upload(UploadPhoto(file: photoURL)) { progress in
    print("sent", progress.completedBytes)
}
// snippet.end

// snippet.multipart
// Multipart forms stream their file parts from disk, with an exact Content-Length.
struct PostPhoto: Endpoint {
    typealias Response = Photo
    var form: MultipartForm
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/photos" }
    var body: RequestBody? { .multipart(form) }
}
var form = MultipartForm()
form.append(.field("caption", "Sunset"))
form.append(.file("photo", photoURL, contentType: "image/jpeg"))
let posted = try await client.send(PostPhoto(form: form))
// snippet.end

// snippet.task
// Progress as a stream (the newest value for a slow reader), the download as a task to await or cancel.
let (updates, reporter) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
let transfer = Task {
    defer { reporter.finish() }
    return try await client.download(MonthlyReport(month: 11), to: folder.appending(path: "task.pdf")) { reporter.yield($0) }
}
for await progress in updates {
    print(progress.fractionCompleted ?? 0)
}
let downloaded = try await transfer.value.value   // transfer.cancel() stops it
// snippet.end

// snippet.stream
// A response body as it arrives: `bytes(for:)` returns once the head is in.
struct LiveScores: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/live" }
}
let live = try await client.bytes(for: LiveScores())
for try await chunk in live.value {
    print(String(decoding: chunk, as: UTF8.self))
}
// snippet.end

// snippet.hide
let first = try Data(contentsOf: file.value)
precondition(first.count == report.count)
precondition(photo.value.id == 42 && posted.id == 43)
let second = try Data(contentsOf: downloaded)
precondition(second.count == report.count)
precondition(server.lastRequest?.method == "GET")
try await server.shutdown()
try? FileManager.default.removeItem(at: folder)
