/// A request's path and query in the one spelling that equivalent URLs share (RFC 3986 §6.2.2):
/// percent-encodings of unreserved characters decoded, the others in upper case, dot segments
/// removed (§5.2.4), and empty query items (a trailing `?` or `&`) dropped. A page walk compares
/// and checks these, so `%2e%2e`, `/./` or `?page=2&` can't pass for another page or leave the base path.
struct NormalizedTarget: Hashable, Sendable {
    /// The percent-encoded path, absolute, without dot segments.
    let path: String
    /// The query without empty items; nil when none is left.
    let query: String?

    /// Normalizes a percent-encoded path and query.
    init(path: String, query: String?) {
        let decoded = Self.normalizingPercentEncodings(path)
        self.path = Self.removingDotSegments(decoded.hasPrefix("/") ? decoded : "/" + decoded)
        let items = (query.map(Self.normalizingPercentEncodings) ?? "").split(separator: "&").filter { !$0.isEmpty }
        self.query = items.isEmpty ? nil : items.joined(separator: "&")
    }

    /// Normalizes a path and query as a request target writes it (`/items?page=2`).
    init(target: String) {
        if let mark = target.firstIndex(of: "?") {
            self.init(path: String(target[..<mark]), query: String(target[target.index(after: mark)...]))
        } else {
            self.init(path: target, query: nil)
        }
    }

    /// The path and query as one request target.
    var target: String {
        query.map { path + "?" + $0 } ?? path
    }

    /// The target with its query items in sorted order: what a page walk compares, so a server
    /// that shuffles the items of a page it already sent can't pass it off as a new one.
    var targetWithSortedQuery: String {
        guard let query else { return path }
        return path + "?" + query.split(separator: "&").sorted().joined(separator: "&")
    }

    /// Whether a segment would climb out of its folder once a server decodes it: `..` or `.` hidden
    /// behind an encoded `/` or `\` (`..%2F`), which dot-segment removal alone does not see.
    var hasEncodedDotSegment: Bool {
        path.split(separator: "/").contains { segment in
            guard segment.contains("%") else { return false }
            let decoded = String(decoding: Self.percentDecoded(segment), as: UTF8.self)
            return decoded.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains { $0 == "." || $0 == ".." }
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// `%41` becomes `A`, `%2f` becomes `%2F`; a `%` not followed by two hex digits stays as it is.
    private static func normalizingPercentEncodings(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue {
                let value = high << 4 | low
                if isUnreserved(value) {
                    result.append(value)
                } else {
                    result.append(UInt8(ascii: "%"))
                    result.append(contentsOf: String(value, radix: 16, uppercase: true).leftPadded().utf8)
                }
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Every `%XX` decoded.
    private static func percentDecoded(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = bytes[index + 1].hexDigitValue, let low = bytes[index + 2].hexDigitValue {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }

    /// RFC 3986 §5.2.4 for an absolute path: `.` segments go, `..` removes the segment before it
    /// (never above the root), and a path ending in `.` or `..` keeps its trailing slash.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var endsInFolder = false
        for segment in segments {
            endsInFolder = false
            switch segment {
            case ".":
                endsInFolder = true
            case "..":
                if !output.isEmpty { output.removeLast() }
                endsInFolder = true
            default:
                output.append(segment)
            }
        }
        var result = "/" + output.joined(separator: "/")
        if endsInFolder, !result.hasSuffix("/") { result += "/" }
        return result
    }
}

extension String {
    /// Two hex digits: `F` becomes `0F`.
    fileprivate func leftPadded() -> String {
        count < 2 ? "0" + self : self
    }
}
