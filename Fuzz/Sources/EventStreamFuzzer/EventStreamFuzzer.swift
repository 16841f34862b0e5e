@testable import Courier
import Foundation
import FuzzSupport

/// A `text/event-stream` body: its first byte picks a chunk size, the rest is split into lines and
/// events. Invariants: the lines are the same however the body is chunked (a CRLF split across two
/// chunks included), no line holds a CR or LF or is longer than the limit, and no event's data is
/// longer than its limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput(data, count)
    guard let first = input.bytes.first else { return 0 }
    let body = Array(input.bytes.dropFirst())
    let chunkSize = Int(first % 16) + 1
    let whole = lines(of: [body[...]])
    let chunked = lines(of: stride(from: 0, to: body.count, by: chunkSize).map { body[$0..<min($0 + chunkSize, body.count)] })
    if whole.lines != chunked.lines || whole.tooLong != chunked.tooLong {
        fuzzFailure("chunks of \(chunkSize) read \(chunked.lines.count) lines (too long: \(chunked.tooLong)), the whole body \(whole.lines.count) (\(whole.tooLong))")
    }
    var parser = ServerSentEventParser(limit: 48)
    for line in whole.lines {
        if line.count > lineLimit || line.contains(0x0A) || line.contains(0x0D) { fuzzFailure("a line of \(line.count) bytes with its end") }
        do {
            if let event = try parser.consume(line[...]), event.value.count > 48 { fuzzFailure("an event of \(event.value.count) bytes") }
        } catch {
            break
        }
    }
    return 0
}

private let lineLimit = 32

/// The lines a `LineReader` gives for `chunks`, up to the first line that is too long, then the last unfinished one.
private func lines(of chunks: [ArraySlice<UInt8>]) -> (lines: [[UInt8]], tooLong: Bool) {
    var reader = LineReader(limit: lineLimit)
    var lines: [[UInt8]] = []
    do {
        for chunk in chunks {
            reader.append(chunk)
            while let line = try reader.nextLine() { lines.append(Array(line)) }
        }
    } catch {
        return (lines, true)
    }
    if let last = reader.finish() { lines.append(Array(last)) }
    return (lines, false)
}
