/// Splits bytes that arrive in chunks into lines, holding at most one unfinished line of at most
/// `limit` bytes.
///
/// A line ends at LF, CRLF or a lone CR (the server-sent events grammar; JSON Lines uses LF and
/// tolerates CRLF), and a CRLF split across two chunks is one end of line. A line that grows past
/// `limit` without an end fails instead of filling memory.
struct LineReader: Sendable {
    /// The most bytes one line may hold.
    let limit: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts in ``buffer``.
    private var start = 0
    /// How far ``buffer`` has been searched for an end of line.
    private var scanned = 0
    /// Whether the last line ended with a CR, so that an LF at the start of the next chunk is part of it.
    private var skipsLF = false

    /// A line longer than the limit.
    struct LineTooLong: Error {
        /// The bytes of the line read so far.
        var length: Int
    }

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Adds bytes that arrived.
    mutating func append(_ chunk: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: chunk)
    }

    /// The next whole line without its end of line, or nil until more bytes arrive.
    /// - Throws: ``LineTooLong`` when the unfinished line is longer than the limit.
    mutating func nextLine() throws(LineTooLong) -> ArraySlice<UInt8>? {
        if skipsLF, start < buffer.count {
            skipsLF = false
            if buffer[start] == UInt8(ascii: "\n") {
                start += 1
                scanned = max(scanned, start)
            }
        }
        var index = max(scanned, start)
        while index < buffer.count {
            let byte = buffer[index]
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                let line = buffer[start..<index]
                guard line.count <= limit else { throw LineTooLong(length: line.count) }
                start = index + 1
                scanned = start
                if byte == UInt8(ascii: "\r") {
                    if start < buffer.count {
                        if buffer[start] == UInt8(ascii: "\n") { start += 1; scanned = start }
                    } else {
                        skipsLF = true
                    }
                }
                return line
            }
            index += 1
        }
        scanned = index
        if buffer.count - start > limit { throw LineTooLong(length: buffer.count - start) }
        return nil
    }

    /// The unfinished last line once the bytes have ended (nil when there is none).
    mutating func finish() -> ArraySlice<UInt8>? {
        guard start < buffer.count else { return nil }
        let line = buffer[start...]
        start = buffer.count
        scanned = start
        return line
    }
}
