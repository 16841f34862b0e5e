import Foundation

/// The fuzzer's bytes, read as the parsers receive them.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// The bytes as (lossy) UTF-8, as a header value or a JSON string arrives.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes split at NUL into several strings (several fields, several values).
    public var parts: [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// Stops the run with a message: libFuzzer records the input that broke an invariant.
public func fuzzFailure(_ message: String) -> Never {
    FileHandle.standardError.write(Data("invariant broken: \(message)\n".utf8))
    abort()
}

