/// The path of an endpoint, written as a string literal whose interpolated values are escaped.
///
/// ```swift
/// var path: EndpointPath { "/users/\(userID)/friends" }
/// ```
/// Literal text is taken as written; every interpolated value becomes exactly one path segment,
/// percent-escaped, so a value can never inject `/`, `?`, `#` or `..` into the URL. A `?` or `#` in
/// the literal text makes the request invalid: queries belong in ``Endpoint/query``.
public struct EndpointPath: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The percent-encoded path, as it goes on the wire.
    package private(set) var encoded: String
    /// Why the path is unusable, when it is (checked when the request is built).
    private(set) var problem: String?
    /// The path with every interpolated value as `{}`, e.g. `/users/{}/friends`: a label whose
    /// cardinality is bounded by the number of endpoints, whatever values flow through. Unnamed,
    /// because string interpolation passes the values, not the names of what produced them.
    @usableFromInline package private(set) var template: String

    /// Creates a path from literal text, taken as already encoded.
    public init(stringLiteral value: String) {
        encoded = ""
        template = ""
        problem = nil
        appendLiteral(value)
    }

    /// Creates a path from a literal with interpolated, escaped segments.
    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.path
    }

    /// Creates a path from raw segments, each escaped: `EndpointPath(segments: ["users", id])` is `/users/<id>`.
    public init(segments: [String]) {
        encoded = ""
        template = ""
        problem = nil
        for segment in segments {
            encoded += "/" + Self.escapeSegment(segment)
            template += "/{}"
        }
    }

    private mutating func appendLiteral(_ literal: String) {
        // Byte search: every call builds its path, and `String.contains(String)` goes through Foundation.
        if literal.utf8.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            problem = "the path '\(literal)' contains '?' or '#': put query items in `query`, not in the path"
        }
        encoded += literal
        template += literal
    }

    /// The encoded path.
    public var description: String { encoded }

    /// Builds an ``EndpointPath`` from literal parts and escaped values.
    public struct StringInterpolation: StringInterpolationProtocol {
        var path = EndpointPath(stringLiteral: "")

        /// Reserves nothing; paths are short.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Appends literal text as written.
        public mutating func appendLiteral(_ literal: String) { path.appendLiteral(literal) }

        /// Appends a value as one escaped path segment.
        public mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            let text = value.description
            if text.isEmpty || text == "." || text == ".." {
                path.problem = "a path segment may not be empty, '.' or '..' (got '\(text)')"
            }
            path.encoded += EndpointPath.escapeSegment(text)
            path.template += "{}"
        }
    }

    /// Percent-escapes everything but RFC 3986 unreserved characters and the safe sub-delimiters.
    static func escapeSegment(_ segment: String) -> String {
        percentEscape(segment, keeping: pathSegmentAllowed)
    }
}

/// Bytes allowed unescaped in one path segment: unreserved plus `!$&'()*+,;=:@` (RFC 3986 pchar), without `/`.
let pathSegmentAllowed = ByteSet(unreservedCharacters + "!$&'()*+,;=:@")
/// Bytes allowed unescaped in a query name or value: unreserved plus a few safe delimiters (no `&`, `=`, `+`, `#`).
let queryAllowed = ByteSet(unreservedCharacters + "!$'()*,;:@/?")
/// RFC 3986 unreserved characters: ALPHA DIGIT `-` `.` `_` `~`.
let unreservedCharacters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

/// A set of bytes as a 256-bit mask: every path and query byte of every call is looked up, and a
/// `Set<UInt8>` hashes each one.
struct ByteSet: Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The bytes of `characters`' UTF-8.
    init(_ characters: String) {
        for byte in characters.utf8 {
            let bit = UInt64(1) << UInt64(byte & 63)
            switch byte >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            case 2: words.2 |= bit
            default: words.3 |= bit
            }
        }
    }

    /// Whether `byte` is in the set.
    func contains(_ byte: UInt8) -> Bool {
        let word = switch byte >> 6 {
        case 0: words.0
        case 1: words.1
        case 2: words.2
        default: words.3
        }
        return word >> UInt64(byte & 63) & 1 == 1
    }
}

/// Percent-escapes the UTF-8 bytes of `text` not in `allowed`.
func percentEscape(_ text: String, keeping allowed: ByteSet) -> String {
    if text.utf8.allSatisfy({ allowed.contains($0) }) { return text }
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count * 3)
    for byte in text.utf8 {
        if allowed.contains(byte) {
            out.append(byte)
        } else {
            out.append(UInt8(ascii: "%"))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
    }
    return String(decoding: out, as: UTF8.self)
}
