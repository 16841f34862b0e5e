import Foundation
import OpenAPIRuntime

/// A streamed response body between URLSession's delegate and its reader, in bounded memory.
///
/// URLSession pushes bytes as they arrive, whatever the reader's pace. Past ``highWater`` bytes
/// waiting in memory, the session task is suspended where URLSession honours that (Apple
/// platforms: a suspended task stops reading its socket), and what still arrives goes to a private
/// temporary file, read back in order; FoundationNetworking on Linux can't pause a task (suspending
/// restarts its transfer), so there the file is the flow control. Below ``lowWater`` with the file
/// read, the task resumes. A slow reader costs a few MB of memory, never the body.
final class ResponseBuffer: Sendable {
    /// Bytes held in memory before the task is paused and what arrives goes to the file.
    static let highWater = 4 << 20
    /// Bytes in memory under which a paused task resumes.
    static let lowWater = 1 << 20
    /// The most read back from the file at once.
    static let readBackChunk = 256 << 10

    private struct State {
        var chunks: [ArraySlice<UInt8>] = []
        var head = 0
        var memoryBytes = 0
        var spill: SpillFile?
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<ArraySlice<UInt8>?, any Error>?
        var paused = false
    }

    private let state = Locked(State())
    /// Pauses (true) or resumes (false) the session task; nil where URLSession can't.
    private let pause: (@Sendable (Bool) -> Void)?
    /// Stops the session task: the reader went away, or the file can't take more.
    private let cancel: @Sendable () -> Void

    init(pause: (@Sendable (Bool) -> Void)?, cancel: @escaping @Sendable () -> Void) {
        self.pause = pause
        self.cancel = cancel
    }

    /// The reading side, as an `HTTPBody`; dropping it before the end cancels the task.
    func body(length: HTTPBody.Length) -> HTTPBody {
        HTTPBody(Chunks(reader: Reader(buffer: self)), length: length, iterationBehavior: .single)
    }

    /// Takes bytes from the delegate: to a waiting reader, to memory, or past the high-water mark to the file.
    func append(_ data: Data) {
        let bytes = ArraySlice(data)
        var failure: CourierError?
        let (waiter, pauses) = state.withLock { state -> (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) in
            guard state.end == nil else { return (nil, false) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            if state.spill == nil, state.memoryBytes + bytes.count <= Self.highWater {
                state.chunks.append(bytes)
                state.memoryBytes += bytes.count
                return (nil, false)
            }
            do throws(CourierError) {
                if state.spill == nil { state.spill = try SpillFile() }
                try state.spill?.write(bytes)
            } catch {
                failure = error
                state.end = .failure(error)
                return (nil, false)
            }
            defer { state.paused = true }
            return (nil, !state.paused)
        }
        waiter?.resume(returning: bytes)
        if pauses { pause?(true) }
        if failure != nil { cancel() }
    }

    /// The body ended, or failed: a waiting reader learns it now, a later one after the bytes before it.
    func finish(_ end: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<ArraySlice<UInt8>?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = end
            defer { state.waiter = nil }
            return state.chunks.count > state.head || state.spill?.hasUnread == true ? nil : state.waiter
        }
        waiter?.resume(with: end.map { _ -> ArraySlice<UInt8>? in nil })
    }

    /// Bytes waiting in memory, and whether some wait in the file (for tests).
    var waiting: (memory: Int, inFile: Bool) { state.withLock { ($0.memoryBytes, $0.spill?.hasUnread == true) } }

    /// The next chunk in arrival order: memory first, then the file, then what comes.
    fileprivate func next() async throws -> ArraySlice<UInt8>? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (result, resumes) = state.withLock { state -> (Result<ArraySlice<UInt8>?, any Error>?, Bool) in
                    if let chunk = Self.take(&state) {
                        let resumes = state.paused && state.memoryBytes < Self.lowWater && state.spill?.hasUnread != true
                        if resumes { state.paused = false }
                        return (chunk, resumes)
                    }
                    if let end = state.end { return (end.map { _ -> ArraySlice<UInt8>? in nil }, false) }
                    if Task.isCancelled { return (.failure(CancellationError()), false) }
                    state.waiter = continuation
                    return (nil, false)
                }
                if resumes { pause?(false) }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            readerLeft(CancellationError())
        }
    }

    private static func take(_ state: inout State) -> Result<ArraySlice<UInt8>?, any Error>? {
        if state.head < state.chunks.count {
            let chunk = state.chunks[state.head]
            state.head += 1
            state.memoryBytes -= chunk.count
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            return .success(chunk)
        }
        guard let spill = state.spill, spill.hasUnread else { return nil }
        do throws(CourierError) {
            let chunk = try spill.read(upTo: readBackChunk)
            // Caught up: later bytes go to memory again, the file is done with.
            if !spill.hasUnread { state.spill = nil }
            return .success(chunk)
        } catch {
            state.end = .failure(error)
            state.spill = nil
            return .failure(error)
        }
    }

    /// The reader stopped before the end: nothing more is kept, and the task stops.
    fileprivate func readerLeft(_ error: any Error) {
        let (waiter, stops) = state.withLock { state -> (CheckedContinuation<ArraySlice<UInt8>?, any Error>?, Bool) in
            let stops = state.end == nil
            if stops { state.end = .failure(error) }
            state.chunks = []
            state.spill = nil
            defer { state.waiter = nil }
            return (state.waiter, stops)
        }
        waiter?.resume(throwing: error)
        if stops { cancel() }
    }

    /// The one owner of the reading side: when the last copy goes unfinished, so does the request.
    private final class Reader: Sendable {
        let buffer: ResponseBuffer
        init(buffer: ResponseBuffer) { self.buffer = buffer }
        deinit { buffer.readerLeft(CancellationError()) }
    }

    private struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let reader: Reader

        func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

        struct Iterator: AsyncIteratorProtocol {
            let reader: Reader
            mutating func next() async throws -> ArraySlice<UInt8>? { try await reader.buffer.next() }
        }
    }
}

/// The temporary file a ``ResponseBuffer`` keeps what its reader hasn't taken yet: private to the
/// user, unlinked as soon as it is open, so nothing is left behind, whatever happens.
private final class SpillFile {
    private let handle: FileHandle
    private var written: UInt64 = 0
    private var read: UInt64 = 0

    var hasUnread: Bool { read < written }

    init() throws(CourierError) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-body-\(UUID().uuidString)")
        guard PrivateFile.create(at: url), let handle = try? FileHandle(forUpdating: url) else {
            throw CourierError(.file, detail: "Cannot create a temporary file for a response body the reader is behind on")
        }
        try? FileManager.default.removeItem(at: url)
        self.handle = handle
    }

    deinit { try? handle.close() }

    func write(_ bytes: ArraySlice<UInt8>) throws(CourierError) {
        do {
            try handle.seek(toOffset: written)
            try handle.write(contentsOf: bytes)
            written += UInt64(bytes.count)
        } catch {
            throw CourierError(.file, detail: "Cannot buffer the response body on disk (is it full?)", underlying: error)
        }
    }

    func read(upTo count: Int) throws(CourierError) -> ArraySlice<UInt8> {
        do {
            try handle.seek(toOffset: read)
            let data = try handle.read(upToCount: Int(min(UInt64(count), written - read))) ?? Data()
            guard !data.isEmpty else { throw CourierError(.file, detail: "The buffered response body ended early") }
            read += UInt64(data.count)
            return ArraySlice(data)
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(.file, detail: "Cannot read back the buffered response body", underlying: error)
        }
    }
}
