import Courier
import Foundation

extension Tour {
    /// Step 11: a picture goes up as a multipart form, an offline pack comes down to a file with a
    /// progress bar; the download is cut halfway and its retry asks only for the rest.
    func transfers(_ client: Client, in workDir: URL) async throws {
        Narrator.step(11, "Transfers: upload a picture as multipart, download a 4 MiB pack to a file (cut halfway, resumed)")
        let picture = workDir.appendingPathComponent("sunset.jpg")
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: picture)
        let form = MultipartForm([.field("caption", "Sunset"), .file("photo", picture, contentType: "image/jpeg")])
        let uploaded = try await client.upload(UploadPhoto(form: form)) { _ in }
        Narrator.say("✓ uploaded \(uploaded.value.parts) parts, \(uploaded.value.bytes) bytes, streamed from disk")

        let destination = workDir.appendingPathComponent("offline.bin")
        let response = try await client.download(OfflinePack(), to: destination) { ProgressBar.draw($0) }
        ProgressBar.end()
        let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
        Narrator.say("✓ \(size) bytes in \(destination.lastPathComponent) after \(response.attempts) attempts: the second asked only for the missing half")
    }
}

/// `POST /photos`: a multipart form with a caption and a picture.
struct UploadPhoto: Endpoint {
    struct Receipt: Decodable, Sendable {
        var parts: Int
        var bytes: Int
    }

    typealias Response = Receipt
    var form: MultipartForm
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/photos" }
    var body: RequestBody? { .multipart(form) }
    var isIdempotent: Bool { false }
}

/// `GET /packs/offline.bin`: a large file to download.
struct OfflinePack: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/packs/offline.bin" }
}

/// A one-line progress bar, redrawn in place.
enum ProgressBar {
    static func draw(_ progress: TransferProgress) {
        let fraction = progress.fractionCompleted ?? 0
        let filled = Int(fraction * 30)
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: 30 - filled)
        print("\r   [\(bar)] \(Int(fraction * 100))%  \(progress.completedBytes / 1024) KiB", terminator: "")
        fflush(nil)  // A line without its newline stays buffered otherwise.
    }

    static func end() { print("") }
}
