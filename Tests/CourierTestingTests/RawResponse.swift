import Foundation

/// One HTTP/1.1 response parsed from raw bytes, header lines kept exactly as sent.
struct RawResponse: Sendable {
    var status: Int
    /// The header lines in order, names as sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// Every value of the header `name`, compared case-insensitively, in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The head of a response at the start of `bytes`, and where its body starts; nil while incomplete.
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> (status: Int, headers: [(name: String, value: String)], bodyStart: Int)? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (String(line[..<colon]), value)
        }
        return (status, headers, end + separator.count)
    }

    /// All complete responses at the start of `bytes` (framed by `Content-Length`, 0 if absent).
    static func parseAll(_ bytes: [UInt8]) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = bytes[...]
        while let head = parseHead(rest) {
            let length = head.headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
            guard rest.endIndex - head.bodyStart >= length else { break }
            let body = Array(rest[head.bodyStart..<(head.bodyStart + length)])
            responses.append(RawResponse(status: head.status, headers: head.headers, body: body))
            rest = rest[(head.bodyStart + length)...]
        }
        return responses
    }
}
