@testable import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIRuntime
import Testing

/// A streamed upload's body can start over in a new stream when URLSession must send it again, and
/// the bound-pair pump (Apple platforms) copies it whole through a sink that takes bytes when it can.
@Suite struct UploadBodyTests {
    private static let bytes: [UInt8] = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test func aReplayableBodyStartsOverInANewStream() async throws {
        let upload = UploadBody(HTTPBody(Self.bytes))
        defer { upload.close() }
        let first = upload.firstStream()
        first.open()
        #expect(Self.read(first, upTo: 100_000).count == 100_000)
        let second = try #require(upload.newStream())
        second.open()
        #expect(Self.read(second, upTo: .max) == Self.bytes)
    }

    @Test func aSingleUseBodyHasNoNewStream() {
        let chunks = AsyncStream<ArraySlice<UInt8>> { $0.yield(ArraySlice(Self.bytes)); $0.finish() }
        let upload = UploadBody(HTTPBody(chunks, length: .known(Int64(Self.bytes.count)), iterationBehavior: .single))
        defer { upload.close() }
        #expect(upload.newStream() == nil)
        #expect(!UploadBody.canReplay(HTTPBody(chunks, length: .unknown, iterationBehavior: .single)))
        #expect(UploadBody.canReplay(HTTPBody(Self.bytes)))
    }

    @Test func aClosedBodyHasNoNewStream() {
        let upload = UploadBody(HTTPBody(Self.bytes))
        upload.close()
        #expect(upload.newStream() == nil)
    }

    /// The session delegate finds the body of a task while it runs, and only then.
    @Test(.timeLimit(.minutes(10))) func theDelegateGivesATaskItsBodyAgain() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: try #require(URL(string: "http://127.0.0.1:9/upload")))
        let upload = UploadBody(HTTPBody(Self.bytes))
        _ = upload.firstStream()
        upload.attach(to: task, stop: TaskStop(task, in: session))
        // Through the protocol, as URLSession calls it: the method is the conformance's, not a look-alike.
        let delegate: any URLSessionTaskDelegate = URLSessionTransportDelegate()
        let again = Locked<InputStream?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let give: @Sendable (InputStream?) -> Void = { stream in
                again.withLock { $0 = stream }
                done.resume()
            }
            #if canImport(FoundationNetworking)
            delegate.urlSession(session, task: task, needNewBodyStream: give)
            #else
            // An optional Objective-C requirement, answered later by the async form.
            if delegate.urlSession?(session, task: task, needNewBodyStream: give) == nil { done.resume() }
            #endif
        }
        let stream = try #require(again.current)
        stream.open()
        #expect(Self.read(stream, upTo: .max) == Self.bytes)
        upload.close()
        #expect(UploadBody.attached(to: task) == nil)
        task.cancel()
    }

    /// A sink that takes at most a few bytes a write and is sometimes full, as a bound pair is.
    @Test func thePumpCopiesTheWholeBodyThroughASlowSink() async throws {
        let queue = DispatchQueue(label: "test.pump")
        let sink = RecordingSink(queue: queue)
        let buffer = ReadAhead()
        let pump = BodyPump(source: buffer, sink: sink, queue: queue, onFailure: { Issue.record("the body did not fail") })
        sink.pump = pump
        buffer.start(HTTPBody(Self.bytes))
        queue.async { pump.spaceBecameAvailable() }
        try await sink.ended()
        #expect(sink.received == Self.bytes)
        buffer.close()
    }

    @Test func aFailedBodyIsNeverEndedAsIfWhole() async throws {
        struct Shrunk: Error {}
        let chunks = AsyncThrowingStream<ArraySlice<UInt8>, any Error> {
            $0.yield(ArraySlice(Self.bytes.prefix(1000)))
            $0.finish(throwing: Shrunk())
        }
        let queue = DispatchQueue(label: "test.pump")
        let sink = RecordingSink(queue: queue)
        let buffer = ReadAhead()
        let failed = AsyncStream<Void>.makeStream()
        let pump = BodyPump(source: buffer, sink: sink, queue: queue, onFailure: { failed.continuation.yield() })
        sink.pump = pump
        buffer.start(HTTPBody(chunks, length: .unknown, iterationBehavior: .single))
        queue.async { pump.spaceBecameAvailable() }
        var iterator = failed.stream.makeAsyncIterator()
        await iterator.next()
        queue.sync {}
        #expect(sink.received == Array(Self.bytes.prefix(1000)))
        #expect(!sink.isEnded)
        #expect(buffer.failure != nil)
        buffer.close()
    }

    private static func read(_ stream: InputStream, upTo limit: Int) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while result.count < limit {
            let count = chunk.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { stream.read($0, maxLength: min(buffer.count, limit - result.count)) } ?? -1
            }
            guard count > 0 else { break }
            result += chunk.prefix(count)
        }
        return result
    }
}

/// Takes up to 7,000 bytes a write, then reports itself full until a later turn of its queue, as
/// a bound pair's output end does while the reader catches up.
// @unchecked: every property is touched on `queue` only (the pump's queue), but for the reads after `ended()`.
private final class RecordingSink: BodySink, @unchecked Sendable {
    let queue: DispatchQueue
    weak var pump: BodyPump?
    private(set) var received: [UInt8] = []
    private(set) var isEnded = false
    private var writes = 0
    private let end = AsyncStream<Void>.makeStream()

    init(queue: DispatchQueue) { self.queue = queue }

    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = min(bytes.count, 7000)
        received += bytes.prefix(count)
        writes += 1
        return count
    }

    var hasSpaceAvailable: Bool {
        guard writes % 3 == 0 else { return true }
        // Full for now: room comes back as an event, later.
        queue.async { [self] in pump?.spaceBecameAvailable() }
        return false
    }

    func endBody() {
        isEnded = true
        end.continuation.yield()
    }

    func ended() async throws {
        var iterator = end.stream.makeAsyncIterator()
        await iterator.next()
    }
}
