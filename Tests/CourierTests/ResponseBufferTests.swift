@testable import Courier
import Foundation
import OpenAPIRuntime
import Testing

/// URLSession's streamed bodies wait for a slow reader in bounded memory: past the high-water mark
/// the task is paused and the rest goes to a private temporary file, read back in order.
struct ResponseBufferTests {
    final class Calls: Sendable {
        let pauses = Locked<[Bool]>([])
        let cancels = Locked(0)
    }

    private func chunk(_ index: Int, size: Int = 64 << 10) -> Data {
        // Each chunk its own byte: a chunk out of place changes the whole.
        Data(repeating: UInt8(truncatingIfNeeded: index % 251), count: size)
    }

    @Test func aReaderFarBehindCostsNoMoreMemoryThanTheHighWaterMark() async throws {
        let calls = Calls()
        let buffer = ResponseBuffer(pause: { paused in calls.pauses.withLock { $0.append(paused) } }, cancel: { calls.cancels.withLock { $0 += 1 } })
        let body = buffer.body(length: .unknown)
        var expected = Data()
        // 24 MB arrive before the reader reads a byte.
        for index in 0..<384 {
            let data = chunk(index)
            expected += data
            buffer.append(data)
            #expect(buffer.waiting.memory <= ResponseBuffer.highWater)
        }
        buffer.finish(.success(()))
        #expect(buffer.waiting.inFile)
        #expect(calls.pauses.current == [true], "paused once, when the memory filled")

        var received = Data()
        for try await piece in body { received += piece }
        #expect(received == expected, "every byte, in order")
        #expect(calls.pauses.current == [true, false], "resumed once the reader caught up")
        #expect(calls.cancels.current == 0)
    }

    @Test func bytesArrivingWhileTheFileIsReadBackKeepTheirOrder() async throws {
        let buffer = ResponseBuffer(pause: nil, cancel: {})
        let body = buffer.body(length: .unknown)
        var expected = Data()
        var iterator = body.makeAsyncIterator()
        var received = Data()
        for index in 0..<200 {
            let data = chunk(index, size: 48 << 10)
            expected += data
            buffer.append(data)
            // The reader takes one chunk for every three that arrive.
            if index % 3 == 0, let piece = try await iterator.next() { received += piece }
        }
        buffer.finish(.success(()))
        while let piece = try await iterator.next() { received += piece }
        #expect(received == expected)
    }

    @Test func aFailureReachesTheReaderAfterTheBytesBeforeIt() async throws {
        let buffer = ResponseBuffer(pause: nil, cancel: {})
        let body = buffer.body(length: .unknown)
        buffer.append(Data("first".utf8))
        buffer.finish(.failure(CourierError(.connectionLost, detail: "cut")))
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next().map { Array($0) } == Array("first".utf8))
        await #expect(throws: CourierError.self) { _ = try await iterator.next() }
    }

    @Test func aBodyDroppedUnreadStopsTheTask() async throws {
        let calls = Calls()
        let buffer = ResponseBuffer(pause: nil, cancel: { calls.cancels.withLock { $0 += 1 } })
        do {
            let body = buffer.body(length: .unknown)
            buffer.append(Data("unread".utf8))
            _ = body
        }
        #expect(calls.cancels.current == 1)
        // A body read to its end stops nothing.
        let finished = ResponseBuffer(pause: nil, cancel: { calls.cancels.withLock { $0 += 1 } })
        do {
            let body = finished.body(length: .unknown)
            finished.append(Data("read".utf8))
            finished.finish(.success(()))
            for try await _ in body {}
        }
        #expect(calls.cancels.current == 1)
    }
}
