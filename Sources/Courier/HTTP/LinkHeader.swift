import HTTPTypes

/// The links of `Link` header fields (RFC 8288 §3): each a URI reference in angle brackets with
/// parameters, several per field line or over several lines.
struct LinkHeader: Sendable, Hashable {
    /// One link: its target as written (maybe relative) and its relation types, lowercased.
    struct Link: Sendable, Hashable {
        var target: String
        var relations: [String]
    }

    var links: [Link] = []

    /// Parses every `Link` field line; a malformed link-value is skipped, never a crash.
    init(_ fields: HTTPFields) {
        guard let name = HTTPField.Name("Link") else { return }
        for value in fields[values: name] { parse(Array(value.utf8)) }
    }

    init(_ value: String) {
        parse(Array(value.utf8))
    }

    /// The target of the first link whose `rel` holds `relation` (compared case-insensitively).
    func target(of relation: String) -> String? {
        let relation = relation.lowercased()
        return links.first { $0.relations.contains(relation) }?.target
    }

    /// `link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )`, values separated by commas.
    private mutating func parse(_ bytes: [UInt8]) {
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        /// Skips to just past the next comma outside quotes (a malformed value's rest).
        func skipValue() {
            var quoted = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\\"), quoted { index += 1 } else if byte == UInt8(ascii: "\"") { quoted.toggle() } else if byte == UInt8(ascii: ","), !quoted { return }
            }
        }
        /// A token or a quoted string (with `\` escapes).
        func readValue() -> String {
            guard index < bytes.count else { return "" }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var value: [UInt8] = []
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                    value.append(bytes[index])
                    index += 1
                }
                if index < bytes.count { index += 1 }
                return String(decoding: value, as: UTF8.self)
            }
            let start = index
            while index < bytes.count, !Self.separators.contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        while index < bytes.count {
            skipSpace()
            guard index < bytes.count else { return }
            guard bytes[index] == UInt8(ascii: "<"), let close = bytes[index...].firstIndex(of: UInt8(ascii: ">")) else {
                skipValue()
                continue
            }
            let target = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
            index = close + 1
            var relations: [String] = []
            var relSeen = false
            // Parameters until the comma that ends this link-value.
            while true {
                skipSpace()
                guard index < bytes.count else { break }
                if bytes[index] == UInt8(ascii: ",") { index += 1; break }
                guard bytes[index] == UInt8(ascii: ";") else { skipValue(); break }
                index += 1
                skipSpace()
                let nameStart = index
                while index < bytes.count, !Self.separators.contains(bytes[index]) { index += 1 }
                let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
                skipSpace()
                var value = ""
                if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                    index += 1
                    skipSpace()
                    value = readValue()
                }
                // Only the first `rel` counts (RFC 8288 §3.3); it may hold several types separated by spaces.
                if name == "rel", !relSeen {
                    relSeen = true
                    relations = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
                }
            }
            links.append(Link(target: target, relations: relations))
        }

    }

    private static let separators: Set<UInt8> = [UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: "="), 0x20, 0x09]
}
