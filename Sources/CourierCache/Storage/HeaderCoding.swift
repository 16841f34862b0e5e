import Foundation
import HTTPTypes

/// Encodes header fields as `name:value` lines (order and duplicates kept); reads the JSON array
/// of `[name, value]` pairs that earlier versions (and other programs) wrote too.
///
/// A field value never holds CR, LF or NUL (`HTTPField` turns them into spaces) and a name never
/// holds `:`, so the lines need no escaping; a JSON array starts with `[`, which no field name
/// does. Decoding is lenient because the database file comes from outside: malformed bytes yield
/// `nil`, and lines with an invalid field name are skipped.
public enum HeaderCoding {
    /// The bytes for `fields`.
    public static func encode(_ fields: HTTPFields) -> Data {
        // Sized first, then written in place: one buffer, no copy of the lines into `Data` afterwards.
        let size = fields.reduce(0) { $0 + $1.nameAndValueByteCount + 2 }
        var data = Data(count: size)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var offset = 0
            func write(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]).copyMemory(from: bytes)
                offset += bytes.count
            }
            for field in fields {
                var name = field.name.rawName
                name.withUTF8 { write(UnsafeRawBufferPointer($0)) }
                buffer[offset] = UInt8(ascii: ":")
                offset += 1
                field.withUnsafeBytesOfValue { write(UnsafeRawBufferPointer($0)) }
                buffer[offset] = UInt8(ascii: "\n")
                offset += 1
            }
        }
        return data
    }

    /// The fields decoded from stored bytes (read in place from SQLite's row); `nil` when they are neither format.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> HTTPFields? {
        if bytes.first == UInt8(ascii: "[") { return decodeJSON(Data(bytes)) }
        var fields = HTTPFields()
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")),
                  let name = HTTPField.Name(String(decoding: line[line.startIndex..<colon], as: UTF8.self))
            else { continue }
            fields.append(HTTPField(name: name, value: line[line.index(after: colon)...]))
        }
        return fields
    }

    private static func decodeJSON(_ data: Data) -> HTTPFields? {
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: data) else { return nil }
        var fields = HTTPFields()
        for pair in pairs where pair.count == 2 {
            guard let name = HTTPField.Name(pair[0]) else { continue }
            fields.append(HTTPField(name: name, value: pair[1]))
        }
        return fields
    }
}

extension HTTPField {
    /// The bytes of the field's name and value, counted in place (`value` would make a `String`).
    var nameAndValueByteCount: Int {
        name.rawName.utf8.count + withUnsafeBytesOfValue(\.count)
    }
}
